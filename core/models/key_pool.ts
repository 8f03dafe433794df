/**
 * Several keys for one provider, and the rules that rotate them. Keys come
 * from the environment as `<KEY_ENV>`, `<KEY_ENV>_2`, `<KEY_ENV>_3`, ...
 * (see {@link poolKeys}); the first key that is not cooling down is used.
 *
 * The rules ({@link judgeKeyFailure}), per key:
 *
 * - a 429 is retried once on the same key after a short wait; a second 429
 *   in a row puts the key in a cooldown (60 s, or longer when the provider
 *   asks) and the next key takes over;
 * - a payment failure (402) puts the key in a long cooldown (1 h) and the
 *   next key takes over;
 * - a rejected key (401/403) is passed over for the rest of the turn, with
 *   no cooldown, so the next turn tries it again;
 * - an unavailable provider is not the key's fault: the fallback chain takes
 *   over without touching the key.
 *
 * Pure: time comes in as `now` (epoch milliseconds); nothing is read or
 * written here. The state lives in each process; the adapters persist a
 * summary so `herald auth list` can show it.
 *
 * @module
 */

import type { EnvLookup } from "../config/load.ts";
import { redact } from "../config/redact.ts";
import type { ModelFailure } from "./failure.ts";
import { usableKey } from "./settings.ts";

/** One key of a pool. */
export interface PooledKey {
  /**
   * Where the key came from: the variable name (`OPENAI_API_KEY_2`), or
   * `model.api_key` for a key written in config.yaml itself. `""` for the
   * single "no key" entry of a keyless provider.
   */
  source: string;
  /** The key; absent for a keyless provider. Never shown or stored. */
  key?: string;
}

/** What a pool remembers about one key. */
export interface KeyStatus {
  /** Epoch ms until which the key is passed over while another one is ready. */
  cooldownUntil?: number;
  /** The key's last failure. */
  lastError?: KeyErrorRecord;
  /** 429 answers in a row since the key last succeeded. */
  rateLimitStreak: number;
}

/** A failure remembered for a key. */
export interface KeyErrorRecord {
  /** HTTP status, when there was one. */
  status?: number;
  /** The failure's class. */
  failure: ModelFailure;
  /** Epoch ms. */
  at: number;
}

/** The timings of the rotation rules. */
export interface PoolRules {
  /** Cooldown after the second 429 in a row (at least; a longer `retry-after` wins). */
  rateLimitCooldownMs: number;
  /** Cooldown after a payment failure. */
  paymentCooldownMs: number;
  /** Wait before the one retry of a first 429, when the provider does not say. */
  rateLimitRetryMs: number;
  /** Longest wait before that retry, whatever the provider asks. */
  maxRateLimitRetryMs: number;
  /** Longest cooldown, whatever the provider asks. */
  maxCooldownMs: number;
}

/** The default rules. */
export const POOL_RULES: PoolRules = {
  rateLimitCooldownMs: 60_000,
  paymentCooldownMs: 3_600_000,
  rateLimitRetryMs: 1_000,
  maxRateLimitRetryMs: 10_000,
  maxCooldownMs: 24 * 3_600_000,
};

/**
 * What to do after a key failed:
 *
 * - `retry`: the same key again after `waitMs`;
 * - `rotate`: another key of the same provider;
 * - `next_route`: the next provider of the fallback chain (the key is fine).
 */
export type KeyVerdict =
  | { action: "retry"; waitMs: number }
  | { action: "rotate" }
  | { action: "next_route" };

/**
 * Applies the rotation rules to one failure of a key. Returns the key's new
 * status and the verdict; `failure` must not be `fatal`.
 *
 * @example
 * ```ts
 * const first = judgeKeyFailure({ rateLimitStreak: 0 }, "rate_limit", 0);
 * first.verdict; // { action: "retry", waitMs: 1000 }
 * const second = judgeKeyFailure(first.status, "rate_limit", 2000);
 * second.status.cooldownUntil; // 62000
 * ```
 */
export function judgeKeyFailure(
  status: KeyStatus,
  failure: Exclude<ModelFailure, "fatal">,
  now: number,
  options: { status?: number; retryAfterMs?: number; rules?: PoolRules } = {},
): { status: KeyStatus; verdict: KeyVerdict } {
  const rules = options.rules ?? POOL_RULES;
  const lastError: KeyErrorRecord = { status: options.status, failure, at: now };
  const cooldown = (ms: number) => now + Math.min(ms, rules.maxCooldownMs);
  switch (failure) {
    case "rate_limit": {
      const streak = status.rateLimitStreak + 1;
      if (streak < 2) {
        const waitMs = Math.min(
          options.retryAfterMs ?? rules.rateLimitRetryMs,
          rules.maxRateLimitRetryMs,
        );
        return {
          status: { ...status, lastError, rateLimitStreak: streak },
          verdict: { action: "retry", waitMs },
        };
      }
      const ms = Math.max(rules.rateLimitCooldownMs, options.retryAfterMs ?? 0);
      return {
        status: { cooldownUntil: cooldown(ms), lastError, rateLimitStreak: 0 },
        verdict: { action: "rotate" },
      };
    }
    case "payment":
      return {
        status: { cooldownUntil: cooldown(rules.paymentCooldownMs), lastError, rateLimitStreak: 0 },
        verdict: { action: "rotate" },
      };
    case "auth":
      return {
        status: { ...status, lastError, rateLimitStreak: 0 },
        verdict: { action: "rotate" },
      };
    case "unavailable":
      return { status, verdict: { action: "next_route" } };
  }
}

/** True while `status` holds the key back at `now`. */
export function isCoolingDown(status: KeyStatus | undefined, now: number): boolean {
  return status?.cooldownUntil !== undefined && status.cooldownUntil > now;
}

/** Called when a key's status changed in a way worth keeping (a failure, a cooldown). */
export type KeyStatusListener = (pool: KeyPool, key: PooledKey, status: KeyStatus) => void;

/** Options of {@link KeyPool.pick}. */
export interface PickOptions {
  /** Sources not to use (keys already failed in this turn or call). */
  exclude?: ReadonlySet<string>;
  /**
   * When every other key is cooling down, return the one whose cooldown
   * ends first instead of none (for the last provider of a chain, where
   * there is nowhere else to go).
   */
  lastResort?: boolean;
}

/**
 * The keys of one provider and their status.
 *
 * @example
 * ```ts
 * const pool = new KeyPool("openai", poolKeys(env, "OPENAI_API_KEY"));
 * const key = pool.pick(Date.now());
 * ```
 */
export class KeyPool {
  #keys: PooledKey[];
  readonly #status = new Map<string, KeyStatus>();
  readonly #rules: PoolRules;
  readonly #listeners = new Set<KeyStatusListener>();

  /** Creates a pool of `keys` (in order of preference) for `provider`. */
  constructor(
    readonly provider: string,
    keys: readonly PooledKey[],
    options: { rules?: PoolRules } = {},
  ) {
    this.#keys = [...keys];
    this.#rules = options.rules ?? POOL_RULES;
  }

  /** The keys, in order of preference. */
  get keys(): readonly PooledKey[] {
    return this.#keys;
  }

  /**
   * Replaces the keys (the `.env` was read again). The status of a source
   * whose key is the same is kept; a source whose key changed starts afresh.
   */
  setKeys(keys: readonly PooledKey[]): void {
    const before = new Map(this.#keys.map((k) => [k.source, k.key]));
    for (const key of keys) {
      if (before.has(key.source) && before.get(key.source) !== key.key) {
        this.#status.delete(key.source);
      }
    }
    this.#keys = [...keys];
  }

  /** What the pool remembers about `source`. */
  status(source: string): KeyStatus {
    return this.#status.get(source) ?? { rateLimitStreak: 0 };
  }

  /** Sets what the pool remembers about `source` (a status read back from disk). */
  restore(source: string, status: KeyStatus): void {
    this.#status.set(source, status);
  }

  /** Tells `listener` about every status change worth keeping; returns a function that stops it. */
  onChange(listener: KeyStatusListener): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /**
   * The key to use at `now`: the first one in order that is not excluded
   * and not cooling down; with `lastResort`, else the one whose cooldown ends
   * first; else none.
   */
  pick(now: number, options: PickOptions = {}): PooledKey | undefined {
    const candidates = this.#keys.filter((k) => !options.exclude?.has(k.source));
    const ready = candidates.find((k) => !isCoolingDown(this.status(k.source), now));
    if (ready || !options.lastResort) return ready;
    return candidates.reduce<PooledKey | undefined>((best, k) =>
      best === undefined ||
        (this.status(k.source).cooldownUntil ?? 0) < (this.status(best.source).cooldownUntil ?? 0)
        ? k
        : best, undefined);
  }

  /** When every key rests at `now`: when the first is ready again; else undefined. */
  readyAt(now: number): number | undefined {
    const ends = this.#keys
      .map((k) => this.status(k.source))
      .filter((s) => isCoolingDown(s, now))
      .map((s) => s.cooldownUntil!);
    return ends.length === this.#keys.length && ends.length > 0 ? Math.min(...ends) : undefined;
  }

  /**
   * Records that `key` failed with `failure` at `now` and returns what to
   * do next ({@link judgeKeyFailure}).
   */
  fail(
    key: PooledKey,
    failure: Exclude<ModelFailure, "fatal">,
    now: number,
    details: { status?: number; retryAfterMs?: number } = {},
  ): KeyVerdict {
    const before = this.status(key.source);
    const { status, verdict } = judgeKeyFailure(before, failure, now, {
      ...details,
      rules: this.#rules,
    });
    if (status !== before) {
      this.#status.set(key.source, status);
      if (key.key !== undefined) {
        for (const listener of this.#listeners) listener(this, key, status);
      }
    }
    return verdict;
  }

  /**
   * Records that `key` answered at `now`: its 429 streak ends, and a
   * cooldown ends too (a key used as the last resort that works is fine).
   */
  succeed(key: PooledKey, now: number): void {
    const status = this.#status.get(key.source);
    if (!status || (status.rateLimitStreak === 0 && status.cooldownUntil === undefined)) return;
    const active = isCoolingDown(status, now);
    const { cooldownUntil: _ended, ...rest } = status;
    const next: KeyStatus = { ...rest, rateLimitStreak: 0 };
    this.#status.set(key.source, next);
    if (active && key.key !== undefined) {
      for (const listener of this.#listeners) listener(this, key, next);
    }
  }
}

/** How many numbered variables (`<KEY_ENV>_2` ... `_<n>`) are looked at. */
const MAX_POOLED_KEYS = 32;

/**
 * The keys of a provider whose key variable is `keyEnv`: `<KEY_ENV>`, then
 * `<KEY_ENV>_2`, `<KEY_ENV>_3`, ... up to `_32` (gaps allowed), each key
 * once. `configured`, the key config.yaml resolves to (`model.api_key`),
 * comes first: under its variable's name when it is one of these, else
 * under `configured.source`.
 *
 * @example
 * ```ts
 * poolKeys((n) => ({ OPENAI_API_KEY: "sk-a", OPENAI_API_KEY_2: "sk-b" })[n], "OPENAI_API_KEY");
 * // [{ source: "OPENAI_API_KEY", key: "sk-a" }, { source: "OPENAI_API_KEY_2", key: "sk-b" }]
 * ```
 */
export function poolKeys(
  env: EnvLookup,
  keyEnv: string,
  configured?: { source: string; key: string },
): PooledKey[] {
  const keys: PooledKey[] = [];
  const add = (source: string, value: string | undefined) => {
    const key = usableKey(value);
    if (key !== undefined && !keys.some((k) => k.key === key)) keys.push({ source, key });
  };
  add(keyEnv, env(keyEnv));
  for (let n = 2; n <= MAX_POOLED_KEYS; n++) add(`${keyEnv}_${n}`, env(`${keyEnv}_${n}`));
  const chosen = usableKey(configured?.key);
  if (configured && chosen !== undefined) {
    // The configured key comes first, under its variable's name when it is one of them.
    const at = keys.findIndex((k) => k.key === chosen);
    keys.unshift(at >= 0 ? keys.splice(at, 1)[0] : { source: configured.source, key: chosen });
  }
  return keys;
}

/**
 * A key as it may be shown: its first three characters and last four when
 * it is 16 or more characters long (`sk-…abcd`), the last four alone from 12
 * characters (the config redaction rule), else only `…`. Never the whole key.
 *
 * @example
 * ```ts
 * maskKey("sk-or-v1-0123456789abcdef"); // "sk-…cdef"
 * ```
 */
export function maskKey(key: string): string {
  return key.length >= 16 ? `${key.slice(0, 3)}${redact(key)}` : redact(key);
}

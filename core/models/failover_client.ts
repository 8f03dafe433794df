/**
 * The fallback chain and the key pools as one {@link ModelClient}. A chain
 * is an ordered list of routes (the primary model, then
 * `fallback_providers`), each with the key pool of its provider:
 *
 * - a call uses the first key of the route that is ready; a failing key is
 *   judged by the pool's rules (core/models/key_pool.ts): retried once,
 *   rotated to the provider's next key, or left alone;
 * - when a route has no key left to try, or the provider is unavailable
 *   (5xx after the client's retries, a timeout, a lost connection), the
 *   next route takes over for the rest of the turn, and the caller's
 *   `onNotice` hears about it in one line;
 * - a route whose every key is cooling down is passed over, unless it is
 *   the last one;
 * - a failure no other key or provider would fix (a bad request, an unknown
 *   model) is thrown as is, and so is any failure once part of the answer
 *   has been streamed;
 * - a request whose last message is the user's starts a turn: it goes to the
 *   primary again.
 *
 * Pure: the clients come from `connect`, time from `now` and `sleep`.
 *
 * @module
 */

import { sleep } from "../_util/sleep.ts";
import { ModelError, type ModelErrorCode } from "../errors.ts";
import { classifyModelFailure, failureReason, retryAfterOf } from "./failure.ts";
import type { KeyPool, PooledKey } from "./key_pool.ts";
import type { ModelSettings } from "./settings.ts";
import {
  emptyUsage,
  type ModelClient,
  type ModelNotice,
  type ModelRequest,
  type ModelResponse,
  type ModelStreamHandlers,
} from "./types.ts";

/** One endpoint of the chain: its settings (the key comes from the pool) and its key pool. */
export interface ModelRoute {
  settings: ModelSettings;
  pool: KeyPool;
}

/** Options of {@link createFailoverClient}. */
export interface FailoverClientOptions {
  /** The primary route first, then the fallbacks in order; at least one. */
  routes: readonly ModelRoute[];
  /** A client for `settings` (whose `apiKey` is the pooled key); called once per route and key. */
  connect(settings: ModelSettings): ModelClient;
  /** Epoch milliseconds; defaults to `Date.now`. */
  now?(): number;
  /** Waits `ms` or until `signal` aborts; defaults to a timer. */
  sleep?(ms: number, signal?: AbortSignal): Promise<void>;
}

/** How one route of a call ended, when it did not answer. */
interface RouteFailure {
  /** The last failure, or undefined when the route was passed over without a call. */
  error?: unknown;
  /** Why the route was left, for the notice. */
  reason: string;
}

/**
 * A client over a fallback chain and key pools.
 *
 * @example
 * ```ts
 * const client = createFailoverClient({
 *   routes: [{ settings: primary, pool: primaryPool }, { settings: fallback, pool: fallbackPool }],
 *   connect: createModelClient,
 * });
 * const answer = await client.complete(request, { onNotice: (n) => console.error(n.message) });
 * ```
 *
 * @throws RangeError when `routes` is empty.
 */
export function createFailoverClient(options: FailoverClientOptions): ModelClient {
  if (options.routes.length === 0) throw new RangeError("A fallback chain needs a route");
  return new FailoverClient(options);
}

/** A request whose last message is the user's begins a turn. */
function startsTurn(request: ModelRequest): boolean {
  return request.messages.at(-1)?.role === "user";
}

/** `provider/model` of a route, for messages. */
function routeLabel(settings: ModelSettings): string {
  return `${settings.provider}/${settings.model}`;
}

class FailoverClient implements ModelClient {
  readonly #routes: readonly ModelRoute[];
  readonly #connect: (settings: ModelSettings) => ModelClient;
  readonly #now: () => number;
  readonly #sleep: (ms: number, signal?: AbortSignal) => Promise<void>;
  readonly #clients = new Map<string, ModelClient>();
  /** The route the current turn is on. */
  #active = 0;
  /** Keys rejected (401/403) in the current turn, by route. */
  readonly #rejected = new Map<number, Set<string>>();

  constructor(options: FailoverClientOptions) {
    this.#routes = options.routes;
    this.#connect = options.connect;
    this.#now = options.now ?? Date.now;
    this.#sleep = options.sleep ?? sleep;
  }

  get provider(): string {
    return this.#routes[0].settings.provider;
  }

  get model(): string {
    return this.#routes[0].settings.model;
  }

  async complete(
    request: ModelRequest,
    handlers: ModelStreamHandlers = {},
  ): Promise<ModelResponse> {
    if (startsTurn(request)) {
      this.#active = 0;
      this.#rejected.clear();
    }
    const failures: { index: number; failure: RouteFailure }[] = [];
    let told = 0;
    for (let index = this.#active; index < this.#routes.length; index++) {
      // Told once a key of this route is about to be tried: the routes left since the last notice.
      const announce = () => {
        if (told < failures.length) this.#announce(handlers, failures.slice(told), index);
        told = failures.length;
      };
      const outcome = await this.#tryRoute(index, request, handlers, announce);
      if ("response" in outcome) {
        this.#active = index;
        return outcome.response;
      }
      failures.push({ index, failure: outcome });
    }
    throw this.#exhausted(failures);
  }

  /** Calls route `index` with its keys until one answers or the route has nothing left to try. */
  async #tryRoute(
    index: number,
    request: ModelRequest,
    handlers: ModelStreamHandlers,
    announce: () => void,
  ): Promise<{ response: ModelResponse } | RouteFailure> {
    const { pool, settings } = this.#routes[index];
    const last = index === this.#routes.length - 1;
    const rejected = this.#rejected.get(index) ?? new Set<string>();
    this.#rejected.set(index, rejected);
    const tried = new Set(rejected);
    const retried = new Set<string>();
    let failed: { error: unknown; key: PooledKey } | undefined;
    let announced = false;
    for (;;) {
      const key = pool.pick(this.#now(), { exclude: tried, lastResort: last });
      if (!key) {
        if (failed) return { error: failed.error, reason: failureReason(failed.error) };
        const until = pool.readyAt(this.#now());
        return {
          reason: until === undefined
            ? "has no key left to try in this turn"
            : `has every key cooling down until ${clock(until)}`,
        };
      }
      if (failed && failed.key.source !== key.source) {
        this.#rotated(handlers, this.#routes[index], failed, key);
      }
      if (!announced) {
        announce();
        announced = true;
      }
      let streamed = false;
      try {
        const response = await this.#client(index, settings, key).complete(request, {
          ...handlers,
          onText: (delta) => {
            streamed = true;
            handlers.onText?.(delta);
          },
        });
        if (response.finishReason !== "aborted") pool.succeed(key, this.#now());
        return { response };
      } catch (error) {
        const failure = classifyModelFailure(error);
        if (failure === "fatal" || streamed) throw error;
        const now = this.#now();
        let verdict = pool.fail(key, failure, now, {
          status: error instanceof ModelError ? error.status : undefined,
          retryAfterMs: retryAfterOf(error, now),
        });
        if (verdict.action === "retry" && retried.has(key.source)) verdict = { action: "rotate" };
        failed = { error, key };
        if (verdict.action === "next_route") {
          return { error, reason: failureReason(error) };
        }
        if (verdict.action === "retry") {
          retried.add(key.source);
          await this.#sleep(verdict.waitMs, request.signal);
          if (request.signal?.aborted) return { response: abortedResponse() };
          continue;
        }
        tried.add(key.source);
        if (failure === "auth") rejected.add(key.source);
      }
    }
  }

  #client(index: number, settings: ModelSettings, key: PooledKey): ModelClient {
    const id = `${index}\0${key.source}`;
    let client = this.#clients.get(id);
    if (!client) {
      client = this.#connect({ ...settings, apiKey: key.key });
      this.#clients.set(id, client);
    }
    return client;
  }

  #rotated(
    handlers: ModelStreamHandlers,
    route: ModelRoute,
    failed: { error: unknown; key: PooledKey },
    next: PooledKey,
  ): void {
    const until = route.pool.status(failed.key.source).cooldownUntil;
    const resting = until !== undefined && until > this.#now()
      ? ` (it rests until ${clock(until)})`
      : "";
    notify(handlers, {
      code: "model_key_rotated",
      message: `${route.settings.provider} ${failureReason(failed.error)} with key ` +
        `${failed.key.source}${resting}; trying ${next.source}`,
    });
  }

  #announce(
    handlers: ModelStreamHandlers,
    left: readonly { index: number; failure: RouteFailure }[],
    to: number,
  ): void {
    const why = left
      .map(({ index, failure }) => `${routeLabel(this.#routes[index].settings)} ${failure.reason}`)
      .join("; ");
    notify(handlers, {
      code: "model_fallback",
      message: `${why}; this turn continues with ${routeLabel(this.#routes[to].settings)} ` +
        `(fallback ${to} of ${this.#routes.length - 1})`,
    });
  }

  /** The error for a call that every route failed. */
  #exhausted(failures: { index: number; failure: RouteFailure }[]): unknown {
    const tried = failures.filter((f) => f.failure.error !== undefined);
    const last = tried.at(-1);
    if (!last) {
      const route = this.#routes[failures.at(-1)?.index ?? 0].settings;
      return new ModelError(
        "model_unavailable",
        `${routeLabel(route)} ${failures.at(-1)?.failure.reason ?? "could not be called"}; ` +
          "see `herald auth list`",
        route.provider,
      );
    }
    const error = last.failure.error;
    const others = failures.filter((f) => f !== last);
    if (others.length === 0 || !(error instanceof ModelError)) return error;
    const also = others
      .map((f) => `${routeLabel(this.#routes[f.index].settings)} ${f.failure.reason}`)
      .join("; ");
    return new ModelError(
      error.code as ModelErrorCode,
      `${error.message} (also failed: ${also})`,
      error.provider,
      error.status,
      { cause: error },
    );
  }
}

function notify(handlers: ModelStreamHandlers, notice: ModelNotice): void {
  handlers.onNotice?.(notice);
}

/** `HH:MM:SS UTC` of an epoch millisecond. */
function clock(ms: number): string {
  return `${new Date(ms).toISOString().slice(11, 19)} UTC`;
}

function abortedResponse(): ModelResponse {
  return { text: "", toolCalls: [], finishReason: "aborted", usage: emptyUsage() };
}

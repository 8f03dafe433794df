/**
 * The key pools of a process, and their state file. Pools are shared by
 * every session of a profile in one process (the dashboard's conversations,
 * a gateway's chats), so a key one session found rate limited rests for the
 * others too. Each change worth keeping (a failure, a cooldown, a cooldown
 * that ended early) is written to `auth_state.json` in the profile home,
 * under a lock and atomically; a pool created later starts from what that
 * file says, so a new process does not walk into a known cooldown.
 *
 * @module
 */

import { join } from "node:path";
import {
  KEY_STATE_FILE,
  type KeyStateFile,
  type KeyStateStore,
  parseKeyState,
  recordedStatus,
  withKeyStatus,
} from "../../core/models/key_state.ts";
import type { RouteSpec } from "../../core/models/fallback.ts";
import { KeyPool } from "../../core/models/key_pool.ts";
import { readTextOrEmpty, updateTextFile } from "../fs/mod.ts";

/**
 * The state file of the profile home `home`.
 *
 * @example
 * ```ts
 * const state = await openKeyStateStore(paths.home).read();
 * ```
 */
export function openKeyStateStore(home: string): KeyStateStore {
  const path = join(home, KEY_STATE_FILE);
  return {
    path,
    read: async () => parseKeyState(await readTextOrEmpty(path)),
    update: async (change) => {
      await updateTextFile(
        path,
        (text) => `${JSON.stringify(change(parseKeyState(text)), null, 2)}\n`,
        { mode: 0o600 },
      );
    },
  };
}

/** The pools of one profile home in this process. */
export class KeyPoolRegistry {
  readonly #store: KeyStateStore;
  readonly #pools = new Map<string, KeyPool>();
  readonly #writes = new Set<Promise<void>>();
  #snapshot: KeyStateFile | undefined;

  /** A registry over `store`; use {@link keyPoolRegistry} for the process-wide one. */
  constructor(store: KeyStateStore) {
    this.#store = store;
  }

  /** Reads the state file again; pools created after this start from it. */
  async load(): Promise<void> {
    this.#snapshot = await this.#store.read().catch(() => undefined);
  }

  /**
   * The pool of `route`'s provider and endpoint, with the route's keys (a
   * pool that exists keeps what it knows of keys that did not change).
   */
  pool(route: RouteSpec): KeyPool {
    const { provider, baseUrl } = route.settings;
    const id = `${provider}\0${baseUrl ?? ""}\0${route.keyEnv}`;
    const existing = this.#pools.get(id);
    if (existing) {
      existing.setKeys(route.keys);
      return existing;
    }
    const pool = new KeyPool(provider, route.keys);
    if (this.#snapshot) {
      for (const key of route.keys) {
        const status = recordedStatus(this.#snapshot, provider, key);
        if (status) pool.restore(key.source, status);
      }
    }
    pool.onChange((changed, key, status) => {
      const now = Date.now();
      this.#track(
        this.#store.update((state) => withKeyStatus(state, changed.provider, key, status, now)),
      );
    });
    this.#pools.set(id, pool);
    return pool;
  }

  /** Waits for the state writes under way. */
  async flush(): Promise<void> {
    while (this.#writes.size > 0) await Promise.all([...this.#writes]);
  }

  #track(write: Promise<void>): void {
    // The state file is a convenience: a home that cannot be written does not stop a turn.
    const settled = write.catch(() => {}).finally(() => this.#writes.delete(settled));
    this.#writes.add(settled);
  }
}

const registries = new Map<string, KeyPoolRegistry>();

/**
 * The process-wide pool registry of the profile home `home`.
 *
 * @example
 * ```ts
 * const registry = keyPoolRegistry(paths.home);
 * await registry.load();
 * const pool = registry.pool(route);
 * ```
 */
export function keyPoolRegistry(home: string): KeyPoolRegistry {
  let registry = registries.get(home);
  if (!registry) {
    registry = new KeyPoolRegistry(openKeyStateStore(home));
    registries.set(home, registry);
  }
  return registry;
}

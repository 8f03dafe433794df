/**
 * Agent runtimes shared by the conversations of one gateway platform: the
 * first conversation opens the runtime (config, model clients, the state
 * database connection, the skill catalog), later ones lease the same one,
 * and the last to close closes it. Opening a runtime per chat would hold one
 * database connection and one of everything else per open chat.
 *
 * A runtime serves new conversations for {@link RUNTIME_FRESH_MS} at most:
 * after that the next conversation opens a fresh one (today's date, the
 * current memory, SOUL.md and config.yaml), while the older conversations
 * keep theirs until they close, and the last one to close it closes it.
 *
 * @module
 */

import type { AgentRuntime } from "./agent_runtime.ts";

/** How long a runtime is handed to new conversations (ms). */
export const RUNTIME_FRESH_MS = 10 * 60 * 1000;

interface Entry {
  runtime: Promise<AgentRuntime>;
  users: number;
  openedAt: number;
}

/** Runtimes by key, each open while some conversation leases it. */
export class SharedRuntimes {
  readonly #entries = new Map<string, Entry>();
  readonly #open: (key: string) => Promise<AgentRuntime>;
  readonly #now: () => number;
  readonly #freshMs: number;

  /**
   * `open` creates the runtime of a key when nobody holds a fresh one;
   * `now` is the clock, `freshMs` how long a runtime serves new leases.
   */
  constructor(
    open: (key: string) => Promise<AgentRuntime>,
    options: { now?: () => number; freshMs?: number } = {},
  ) {
    this.#open = open;
    this.#now = options.now ?? Date.now;
    this.#freshMs = options.freshMs ?? RUNTIME_FRESH_MS;
  }

  /** Runtimes handed to new leases now (retired ones still held are not counted). */
  get size(): number {
    return this.#entries.size;
  }

  /**
   * The runtime of `key`, opened when nobody holds it. The lease's `close`
   * gives it back (once; later calls do nothing); the last one back closes
   * the runtime.
   *
   * @throws whatever opening the runtime throws (the next lease tries again).
   */
  async lease(key: string): Promise<AgentRuntime> {
    let entry = this.#entries.get(key);
    if (entry && this.#now() - entry.openedAt >= this.#freshMs) {
      // Retired: its conversations keep it; the last to close closes it.
      this.#entries.delete(key);
      entry = undefined;
    }
    if (!entry) {
      const created: Entry = { runtime: this.#open(key), users: 0, openedAt: this.#now() };
      this.#entries.set(key, created);
      created.runtime.catch(() => {
        if (this.#entries.get(key) === created) this.#entries.delete(key);
      });
      entry = created;
    }
    const held = entry;
    held.users++;
    let runtime: AgentRuntime;
    try {
      runtime = await held.runtime;
    } catch (error) {
      held.users--;
      throw error;
    }
    let returned = false;
    return {
      ...runtime,
      close: async () => {
        if (returned) return;
        returned = true;
        held.users--;
        if (held.users > 0) return;
        if (this.#entries.get(key) === held) this.#entries.delete(key);
        await runtime.close();
      },
    };
  }
}

/**
 * Agent runtimes shared by the conversations of one gateway platform: the
 * first conversation opens the runtime (config, model clients, the state
 * database connection, the skill catalog), later ones lease the same one,
 * and the last to close closes it. Opening a runtime per chat would hold one
 * database connection and one of everything else per open chat.
 *
 * A changed config.yaml reaches the platform's conversations once all of
 * them have closed (idle chats are closed past the gateway's bound) or the
 * gateway restarts.
 *
 * @module
 */

import type { AgentRuntime } from "./agent_runtime.ts";

interface Entry {
  runtime: Promise<AgentRuntime>;
  users: number;
}

/** Runtimes by key, each open while some conversation leases it. */
export class SharedRuntimes {
  readonly #entries = new Map<string, Entry>();
  readonly #open: (key: string) => Promise<AgentRuntime>;

  /** `open` creates the runtime of a key when nobody holds one. */
  constructor(open: (key: string) => Promise<AgentRuntime>) {
    this.#open = open;
  }

  /** Runtimes open now. */
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
    if (!entry) {
      const created: Entry = { runtime: this.#open(key), users: 0 };
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

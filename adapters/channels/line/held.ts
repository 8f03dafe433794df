/**
 * LINE answers held behind a "Get answer" button, kept on disk until they
 * are delivered (by a tap, or pushed when they expire untapped): the
 * gateway counts a held answer as delivered, so without this file a
 * restart between the hold and the tap would lose it. At the next start the
 * channel pushes whatever the file still holds (the old buttons cannot be
 * answered by a new process). One JSON file in the channel's data folder,
 * replaced atomically, 0600; writes are serialised.
 *
 * @module
 */

import { join } from "node:path";
import type { ChatAddress, OutboundReply } from "../../../core/channels/contract.ts";
import { writeFileAtomic } from "../../fs/atomic.ts";
import { readTextOrEmpty } from "../../fs/read.ts";
import { errorText } from "../../../core/errors.ts";

/** The file's name in the channel's data folder. */
export const HELD_FILE = "held_answers.json";

/** One held answer. */
export interface HeldAnswer {
  /** The slow-response request (its button) the answer waits behind. */
  requestId: string;
  chat: ChatAddress;
  reply: OutboundReply;
  /** When it was held (ms since the epoch). */
  heldAt: number;
}

/** The held answers of one LINE channel, on disk. */
export class HeldAnswers {
  readonly #path: string;
  readonly #log: (line: string) => void;
  #writes: Promise<unknown> = Promise.resolve();

  /** Keeps the file in `dataDir`; `log` takes a line when the file cannot be used. */
  constructor(dataDir: string, log: (line: string) => void) {
    this.#path = join(dataDir, HELD_FILE);
    this.#log = log;
  }

  /** Adds `answer`; resolves once it is on disk (rejects when it cannot be written). */
  add(answer: HeldAnswer): Promise<void> {
    return this.#update((answers) => [...answers, answer]);
  }

  /** Removes the answers of `requestId` (delivered); a failure is logged. */
  async remove(requestId: string): Promise<void> {
    try {
      await this.#update((answers) => answers.filter((answer) => answer.requestId !== requestId));
    } catch (error) {
      this.#log(`line: ${HELD_FILE} could not be updated: ${errorText(error)}`);
    }
  }

  /** Every answer on disk, oldest first; an unreadable file is logged and read as empty. */
  async list(): Promise<HeldAnswer[]> {
    await this.#writes.catch(() => {});
    return await this.#read();
  }

  async #read(): Promise<HeldAnswer[]> {
    const text = await readTextOrEmpty(this.#path);
    if (text.trim() === "") return [];
    try {
      const value = JSON.parse(text);
      if (!Array.isArray(value?.answers)) throw new Error("no answers list");
      return value.answers as HeldAnswer[];
    } catch (error) {
      this.#log(`line: ${this.#path} is not readable (${errorText(error)}); held answers lost`);
      return [];
    }
  }

  #update(change: (answers: HeldAnswer[]) => HeldAnswer[]): Promise<void> {
    const work = this.#writes.catch(() => {}).then(async () => {
      const answers = change(await this.#read());
      await writeFileAtomic(this.#path, JSON.stringify({ version: 1, answers }) + "\n", {
        mode: 0o600,
      });
    });
    this.#writes = work;
    return work;
  }
}

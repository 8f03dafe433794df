/**
 * The chat prompt's input history: what was submitted, newest last, kept in
 * a file of one JSON string per line (so a multi-line entry stays one line),
 * shared by every `herald chat` of a profile.
 *
 * @example
 * ```ts
 * const history = await History.load("/home/me/.herald/chat_history");
 * await history.add("summarise README.md");
 * history.entries.at(-1); // "summarise README.md"
 * ```
 *
 * @module
 */

import { dirname } from "node:path";
import { withFileLock, writeFileAtomic } from "../../adapters/fs/mod.ts";

/** How many entries a history keeps by default. */
export const DEFAULT_HISTORY_MAX = 1000;

/** Submitted inputs, newest last, optionally backed by a file. */
export class History {
  readonly #path: string | undefined;
  readonly #max: number;
  readonly #entries: string[];

  private constructor(path: string | undefined, max: number, entries: string[]) {
    this.#path = path;
    this.#max = max;
    this.#entries = entries;
  }

  /**
   * Loads up to `max` newest entries from `path`. A missing or unreadable
   * file is an empty history; a line that is not a JSON string is skipped.
   */
  static async load(path: string, max: number = DEFAULT_HISTORY_MAX): Promise<History> {
    const limit = checkMax(max);
    let text = "";
    try {
      text = await Deno.readTextFile(path);
    } catch {
      // Nothing there yet, or not readable: start empty (adding says what is wrong).
    }
    const lines = parseLines(text);
    return new History(path, limit, lines.slice(-limit));
  }

  /** A history kept in memory only (tests, `--no-history`). */
  static memory(entries: readonly string[] = [], max: number = DEFAULT_HISTORY_MAX): History {
    const limit = checkMax(max);
    return new History(undefined, limit, entries.slice(-limit));
  }

  /** The entries, oldest first. */
  get entries(): readonly string[] {
    return this.#entries;
  }

  /**
   * Adds `entry` (skipping a blank one and a repeat of the newest). The
   * in-memory list changes at once, before the returned promise settles;
   * then the entry is appended to the file (created 0600 with its folder)
   * with a single write under the file's lock, and the file is cut back to
   * the newest `max` entries once it holds more than twice that.
   *
   * @throws the file system's error when the file cannot be written (the entry stays in memory).
   */
  async add(entry: string): Promise<void> {
    if (entry.trim() === "" || entry === this.#entries.at(-1)) return;
    this.#entries.push(entry);
    if (this.#entries.length > this.#max) this.#entries.splice(0, this.#entries.length - this.#max);
    const path = this.#path;
    if (path === undefined) return;
    await Deno.mkdir(dirname(path), { recursive: true, mode: 0o700 });
    await withFileLock(path, async () => {
      await appendLine(path, `${JSON.stringify(entry)}\n`);
      // Counted in the file, under the lock: other processes append to it too.
      if (await countLines(path) > 2 * this.#max) await trim(path, this.#max);
    });
  }
}

function checkMax(max: number): number {
  if (!Number.isInteger(max) || max < 1) {
    throw new RangeError(`History size must be a positive whole number, got ${max}`);
  }
  return max;
}

/** The entries of a history file's text, skipping lines that are not JSON strings. */
function parseLines(text: string): string[] {
  const entries: string[] = [];
  for (const line of text.split("\n")) {
    if (line.trim() === "") continue;
    try {
      const value: unknown = JSON.parse(line);
      if (typeof value === "string") entries.push(value);
    } catch {
      // A torn or foreign line: skip it.
    }
  }
  return entries;
}

/** Appends `line` to `path` in one write, creating the file 0600. */
async function appendLine(path: string, line: string): Promise<void> {
  const bytes = new TextEncoder().encode(line);
  const file = await Deno.open(path, { append: true, create: true, mode: 0o600 });
  try {
    let written = 0;
    while (written < bytes.length) written += await file.write(bytes.subarray(written));
  } finally {
    file.close();
  }
  if (Deno.build.os !== "windows") await Deno.chmod(path, 0o600);
}

/** Rewrites `path` with its newest `max` entries; returns how many lines it now has. */
/** The number of lines in the file at `path`. */
async function countLines(path: string): Promise<number> {
  const bytes = await Deno.readFile(path);
  let lines = 0;
  for (const byte of bytes) if (byte === 0x0a) lines++;
  return lines;
}

/** Cuts the file at `path` back to its newest `max` entries. */
async function trim(path: string, max: number): Promise<void> {
  const kept = parseLines(await Deno.readTextFile(path)).slice(-max);
  const text = kept.map((entry) => `${JSON.stringify(entry)}\n`).join("");
  await writeFileAtomic(path, text, { mode: 0o600, forceMode: true });
}

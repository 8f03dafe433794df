/**
 * The `memory` tool: small persistent notes kept in the profile home,
 * `memories/MEMORY.md` (the agent's own notes) and `memories/USER.md` (what
 * it knows about the user). Entries are separated by a line holding only
 * `§`. Each file has a character budget; the system prompt carries a
 * snapshot taken at session start ({@link readMemorySnapshot}). When an
 * entry does not fit, the oldest entries move to `memories/ARCHIVE.jsonl`
 * (one JSON object a line) to make room, and the result names them.
 *
 * @module
 */

import { join } from "node:path";
import { z } from "zod";
import { defineTypedTool, ToolError, type TypedTool } from "../../core/tools/types.ts";
import { readTextOrEmpty } from "../fs/read.ts";
import { updateTextFile } from "../fs/text_file.ts";

/** Which memory file an action targets. */
export type MemoryTarget = "memory" | "user";

/** Character budgets of the two files (counted in Unicode characters, delimiters included). */
export const MEMORY_LIMITS: Readonly<Record<MemoryTarget, number>> = { memory: 2200, user: 1375 };

/** The line separating entries. */
export const MEMORY_DELIMITER = "§";

const FILE_NAMES: Record<MemoryTarget, string> = { memory: "MEMORY.md", user: "USER.md" };
const LABELS: Record<MemoryTarget, string> = { memory: "Memory", user: "User profile" };
const SEPARATOR = `\n${MEMORY_DELIMITER}\n`;
const DELIMITER_LINE = /^[ \t]*§[ \t]*$/m;

const memoryArgs = z.object({
  action: z.enum(["add", "replace", "remove"]).describe(
    "add a new entry, replace the entry containing old_text with content, or remove the entry containing old_text.",
  ),
  target: z.enum(["memory", "user"]).describe(
    "memory: your own notes (environment facts, lessons, conventions); user: facts and preferences about the user.",
  ),
  content: z.string().optional().describe("The entry text, for add and replace. Keep it short."),
  old_text: z.string().optional().describe(
    "A unique piece of the existing entry to replace or remove.",
  ),
});

/** Arguments of the `memory` tool. */
export type MemoryArgs = z.infer<typeof memoryArgs>;

/** Result of the `memory` tool: the live entries and the budget in use. */
export interface MemoryResult {
  target: MemoryTarget;
  entries: string[];
  /** `used/limit chars`, e.g. `412/2200 chars`. */
  usage: string;
  /** The oldest entries moved to the archive to make room; present only when some were. */
  evicted?: string[];
  /** Present when the call changed nothing (an exact duplicate). */
  note?: string;
}

/** One line of `memories/ARCHIVE.jsonl`. */
export interface ArchivedMemory {
  target: MemoryTarget;
  entry: string;
  /** ISO time it was evicted. */
  archived_at: string;
}

/** Options of {@link createMemoryTool}. */
export interface MemoryToolOptions {
  /** Overrides of {@link MEMORY_LIMITS}. */
  limits?: Partial<Record<MemoryTarget, number>>;
}

/** Path of the archive of evicted entries in a profile home. */
export function memoryArchiveFile(home: string): string {
  return join(home, "memories", "ARCHIVE.jsonl");
}

/** Path of a memory file in a profile home. */
export function memoryFile(home: string, target: MemoryTarget): string {
  return join(home, "memories", FILE_NAMES[target]);
}

/**
 * Reads both memory files for the system prompt; a missing or unreadable
 * file reads as "". Entries are joined by the delimiter line.
 *
 * @example
 * ```ts
 * const { memory, user } = await readMemorySnapshot("/home/me/.herald");
 * ```
 */
export async function readMemorySnapshot(home: string): Promise<{ memory: string; user: string }> {
  const [memory, user] = await Promise.all(
    (["memory", "user"] as const).map(async (target) =>
      render(parseEntries(await readTextOrEmpty(memoryFile(home, target)).catch(() => "")))
        .trimEnd()
    ),
  );
  return { memory, user };
}

/**
 * Creates the `memory` tool, working on `<context.home>/memories`.
 *
 * @example
 * ```ts
 * const memory = createMemoryTool();
 * await memory.run({ action: "add", target: "user", content: "Prefers metric units" }, ctx);
 * ```
 */
export function createMemoryTool(
  options: MemoryToolOptions = {},
): TypedTool<MemoryArgs, MemoryResult> {
  const limits = { ...MEMORY_LIMITS, ...options.limits };
  return defineTypedTool({
    name: "memory",
    description:
      "Save durable notes that carry over to future sessions. target memory is for your own notes " +
      "(environment facts, project conventions, lessons learned); target user is for the user's " +
      `preferences and details. Budgets: memory ${limits.memory} chars, user ${limits.user} chars. ` +
      "When a file is full, its oldest entries move to an archive to make room (the result lists " +
      "them as `evicted`). Entries take effect in the system prompt from the next session; " +
      "results show the live state.",
    schema: memoryArgs,
    async run(args, context): Promise<MemoryResult> {
      const path = memoryFile(context.home, args.target);
      // The folder first: the lock file (shared with other processes) lives beside the file.
      await Deno.mkdir(join(context.home, "memories"), { recursive: true });
      let result!: MemoryResult;
      await updateTextFile(path, async (text) => {
        const { next, evicted, note } = applyAction(args, parseEntries(text), limits[args.target]);
        // Archived before the file loses them, so an entry is never in neither place.
        if (evicted.length > 0) await archive(context.home, args.target, evicted);
        result = {
          target: args.target,
          entries: next,
          usage: `${used(next)}/${limits[args.target]} chars`,
          ...(evicted.length > 0 ? { evicted } : {}),
          ...(note !== undefined ? { note } : {}),
        };
        return note === undefined ? render(next) : null;
      });
      return result;
    },
  });
}

/** What an action does to the entries. */
interface Applied {
  next: string[];
  /** Oldest entries pushed out to make room. */
  evicted: string[];
  /** Set when nothing changed. */
  note?: string;
}

async function archive(home: string, target: MemoryTarget, entries: string[]): Promise<void> {
  const archivedAt = new Date().toISOString();
  const lines = entries
    .map((entry) => JSON.stringify({ target, entry, archived_at: archivedAt } as ArchivedMemory))
    .join("\n") + "\n";
  await Deno.writeTextFile(memoryArchiveFile(home), lines, { append: true, mode: 0o600 });
}

function applyAction(args: MemoryArgs, entries: string[], limit: number): Applied {
  const label = LABELS[args.target];
  const content = args.content?.trim() ?? "";
  if (args.action === "add" || args.action === "replace") {
    if (content === "") {
      throw new ToolError("invalid_argument", `content is required to ${args.action} an entry`);
    }
    if (DELIMITER_LINE.test(content)) {
      throw new ToolError(
        "invalid_argument",
        `content must not contain a line holding only "${MEMORY_DELIMITER}" (the entry separator)`,
      );
    }
    if (chars(content) > limit) {
      throw new ToolError(
        "too_long",
        `The entry is ${
          chars(content)
        } chars, more than the whole ${label.toLowerCase()} budget of ${limit}; shorten it`,
      );
    }
  }

  if (args.action === "add") {
    if (entries.includes(content)) {
      return {
        next: entries,
        evicted: [],
        note: `${label} already holds this exact entry; nothing new was added`,
      };
    }
    return makeRoom([...entries, content], entries.length, limit);
  }

  const index = findEntry(entries, args.old_text, label, args.action);
  if (args.action === "remove") {
    return { next: entries.filter((_, i) => i !== index), evicted: [] };
  }
  if (entries.some((entry, i) => i !== index && entry === content)) {
    throw new ToolError("duplicate", `${label} already holds this exact entry elsewhere`);
  }
  return makeRoom(entries.map((entry, i) => (i === index ? content : entry)), index, limit);
}

/**
 * Evicts the oldest entries, never the one at `keep` (the entry just
 * added or replaced), until the rest fits in `limit`.
 */
function makeRoom(entries: string[], keep: number, limit: number): Applied {
  const kept = entries.map((entry, i) => ({ entry, pinned: i === keep }));
  const evicted: string[] = [];
  while (used(kept.map((k) => k.entry)) > limit) {
    const oldest = kept.findIndex((k) => !k.pinned);
    evicted.push(kept[oldest].entry);
    kept.splice(oldest, 1);
  }
  return { next: kept.map((k) => k.entry), evicted };
}

/** Index of the single entry containing `oldText` (an exact entry match wins). */
function findEntry(
  entries: string[],
  oldText: string | undefined,
  label: string,
  action: string,
): number {
  const needle = oldText?.trim() ?? "";
  if (needle === "") {
    throw new ToolError("invalid_argument", `old_text is required to ${action} an entry`);
  }
  const exact = entries.indexOf(needle);
  if (exact >= 0) return exact;
  const hits = entries.flatMap((entry, i) => (entry.includes(needle) ? [i] : []));
  if (hits.length === 0) {
    throw new ToolError(
      "not_found",
      `No ${label.toLowerCase()} entry contains ${JSON.stringify(needle)}`,
    );
  }
  if (hits.length > 1) {
    throw new ToolError(
      "ambiguous",
      `${
        JSON.stringify(needle)
      } appears in ${hits.length} ${label.toLowerCase()} entries; use a longer old_text that matches only one`,
    );
  }
  return hits[0];
}

function parseEntries(text: string): string[] {
  return text.split(new RegExp(DELIMITER_LINE.source, "m")).map((entry) => entry.trim())
    .filter((entry) => entry !== "");
}

function render(entries: string[]): string {
  return entries.length === 0 ? "" : entries.join(SEPARATOR) + "\n";
}

function used(entries: string[]): number {
  return chars(entries.join(SEPARATOR));
}

function chars(text: string): number {
  let count = 0;
  for (const _ of text) count++;
  return count;
}

/**
 * Tab completion for the chat prompt: slash commands, skills and bundles
 * after a leading `/`, and file paths after an `@`. A completer looks at the
 * text and the cursor and proposes what may replace one span of the text.
 *
 * @example
 * ```ts
 * const complete = combineCompleters(
 *   slashCompleter(() => [{ name: "bundles", description: "List skill bundles" }]),
 *   pathCompleter(Deno.cwd()),
 * );
 * complete("/bun", 4); // {start: 0, end: 4, candidates: [{value: "/bundles", description: "List skill bundles"}]}
 * ```
 *
 * @module
 */

/** One proposal: the text that replaces the completed span, and what it is. */
export interface Candidate {
  /** The replacement text (a folder path ends with "/"). */
  value: string;
  /** A short description shown beside the value in the menu. */
  description?: string;
}

/** What may replace `text.slice(start, end)`. */
export interface Completion {
  /** Start of the span to replace. */
  start: number;
  /** End of the span to replace (exclusive). */
  end: number;
  /** The proposals, in the order to show them (may be empty: the completer applies but found nothing). */
  candidates: Candidate[];
}

/** Proposes completions at `cursor` in `text`, or null when it has nothing to say about this spot. */
export type Completer = (text: string, cursor: number) => Completion | null;

/** A command, skill or bundle offered after `/`. */
export interface SlashEntry {
  /** The name without the slash. */
  name: string;
  /** The description shown in the menu. */
  description: string;
}

/** The most paths {@link pathCompleter} offers from one folder. */
export const MAX_PATH_ENTRIES = 200;

/** The most entries of one folder it looks at (a huge folder must not stall a key press). */
const MAX_SCANNED_ENTRIES = 20_000;

/**
 * Completes `/na` at the very start of the input (the cursor still in that
 * first word) with the commands, skills and bundles whose names start with
 * "na", ignoring case, sorted by name; the first entry of a name wins.
 * `entries` is called on every completion, so it sees skills added since.
 */
export function slashCompleter(entries: () => readonly SlashEntry[]): Completer {
  return (text, cursor) => {
    const typed = text.slice(0, cursor);
    if (!/^\/\S*$/.test(typed)) return null;
    const prefix = typed.slice(1).toLowerCase();
    const seen = new Set<string>();
    const matches: SlashEntry[] = [];
    for (const entry of entries()) {
      if (seen.has(entry.name) || !entry.name.toLowerCase().startsWith(prefix)) continue;
      seen.add(entry.name);
      matches.push(entry);
    }
    matches.sort((a, b) => compareNames(a.name, b.name));
    return {
      start: 0,
      end: cursor,
      candidates: matches.map((entry) => ({
        value: `/${entry.name}`,
        description: entry.description,
      })),
    };
  };
}

/**
 * Completes a word starting with `@` (anywhere in the input) with the files
 * and folders its typed part names, relative to `cwd` (or absolute after
 * `@/`); folders end with "/". Names match ignoring case; hidden entries are
 * offered only when the typed name starts with "."; at most
 * {@link MAX_PATH_ENTRIES} matches are offered. A folder that
 * cannot be read yields no candidates.
 */
export function pathCompleter(cwd: string): Completer {
  return (text, cursor) => {
    const start = wordStart(text, cursor);
    if (text[start] !== "@") return null;
    const typed = text.slice(start + 1, cursor);
    const slash = typed.lastIndexOf("/");
    const folderPart = typed.slice(0, slash + 1);
    const namePart = typed.slice(slash + 1).toLowerCase();
    const folder = folderPart.startsWith("/")
      ? folderPart
      : `${cwd.replace(/\/+$/, "")}/${folderPart}`;
    const candidates = listFolder(folder, namePart).map(({ name, isFolder }) => ({
      value: `@${folderPart}${name}${isFolder ? "/" : ""}`,
    }));
    return { start, end: cursor, candidates };
  };
}

/** A completer that asks each of `completers` in turn; the first non-null answer wins. */
export function combineCompleters(...completers: Completer[]): Completer {
  return (text, cursor) => {
    for (const completer of completers) {
      const completion = completer(text, cursor);
      if (completion !== null) return completion;
    }
    return null;
  };
}

/** The entries of `folder` whose names start with `prefix` (lower case), sorted. */
function listFolder(folder: string, prefix: string): { name: string; isFolder: boolean }[] {
  const found: { name: string; isFolder: boolean }[] = [];
  const hidden = prefix.startsWith(".");
  try {
    let read = 0;
    for (const entry of Deno.readDirSync(folder)) {
      if (++read > MAX_SCANNED_ENTRIES) break;
      if (entry.name.startsWith(".") && !hidden) continue;
      if (!entry.name.toLowerCase().startsWith(prefix)) continue;
      found.push({ name: entry.name, isFolder: isFolder(folder, entry) });
      if (found.length >= MAX_PATH_ENTRIES) break;
    }
  } catch {
    return [];
  }
  return found.sort((a, b) => compareNames(a.name, b.name));
}

/** True for a folder, following a symbolic link. */
function isFolder(folder: string, entry: Deno.DirEntry): boolean {
  if (!entry.isSymlink) return entry.isDirectory;
  try {
    return Deno.statSync(`${folder}/${entry.name}`).isDirectory;
  } catch {
    return false;
  }
}

/** Orders names ignoring case, then by their exact spelling. */
function compareNames(a: string, b: string): number {
  const lowerA = a.toLowerCase();
  const lowerB = b.toLowerCase();
  if (lowerA !== lowerB) return lowerA < lowerB ? -1 : 1;
  return a < b ? -1 : a > b ? 1 : 0;
}

/** Where the whitespace-delimited word ending at `cursor` starts. */
function wordStart(text: string, cursor: number): number {
  let start = cursor;
  while (start > 0 && !/\s/.test(text[start - 1])) start--;
  return start;
}

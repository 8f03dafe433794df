/**
 * Language-server diagnostics as the file tools report them: which ones
 * count (errors and warnings, nothing marked unnecessary), which ones an
 * edit introduced (compared with the diagnostics of the text before it,
 * tolerating lines that moved) and the `lsp_diagnostics` text.
 *
 * @module
 */

/** A position in a document: 0-based line and character. */
export interface LspPosition {
  line: number;
  character: number;
}

/** The parts of an LSP `Diagnostic` that Herald reads. */
export interface LspDiagnostic {
  range: { start: LspPosition; end: LspPosition };
  /** 1 error, 2 warning, 3 information, 4 hint; absent is read as an error. */
  severity?: number;
  code?: string | number;
  source?: string;
  message: string;
  /** 1 unnecessary, 2 deprecated. */
  tags?: number[];
}

/** Diagnostic tag: code that is unused or unnecessary (greyed out by editors). */
const TAG_UNNECESSARY = 1;

/** At most this many diagnostics are listed in one result. */
export const MAX_REPORTED_DIAGNOSTICS = 20;

const SEVERITY_WORDS: Record<number, string> = { 1: "ERROR", 2: "WARNING", 3: "INFO", 4: "HINT" };

/**
 * Whether a diagnostic is worth reporting: an error or a warning, and not
 * a warning about unnecessary code.
 *
 * @example
 * ```ts
 * reportable({ range, message: "x", severity: 4, tags: [1] }); // false
 * ```
 */
export function reportable(diagnostic: LspDiagnostic): boolean {
  const severity = diagnostic.severity ?? 1;
  if (severity > 2) return false;
  return severity === 1 || !(diagnostic.tags ?? []).includes(TAG_UNNECESSARY);
}

/**
 * Maps each line of `before` to its line in `after`, or -1 for a line the
 * edit changed: lines above the first difference keep their number, lines
 * below the last one move by the change in line count, and between them a
 * line whose text occurs exactly once on each side is matched to itself.
 *
 * @example
 * ```ts
 * lineShift("a\nb\nc", "a\nx\ny\nb\nc"); // [0, 3, 4]
 * ```
 */
export function lineShift(before: string, after: string): number[] {
  const old = before.split("\n");
  const next = after.split("\n");
  let prefix = 0;
  while (prefix < old.length && prefix < next.length && old[prefix] === next[prefix]) prefix++;
  let suffix = 0;
  while (
    suffix < old.length - prefix && suffix < next.length - prefix &&
    old[old.length - 1 - suffix] === next[next.length - 1 - suffix]
  ) suffix++;
  const delta = next.length - old.length;
  const unique = (lines: string[], from: number, to: number) => {
    const seen = new Map<string, number>();
    for (let line = from; line < to; line++) {
      seen.set(lines[line], seen.has(lines[line]) ? -1 : line);
    }
    return seen;
  };
  const oldUnique = unique(old, prefix, old.length - suffix);
  const newUnique = unique(next, prefix, next.length - suffix);
  return old.map((text, line) => {
    if (line < prefix) return line;
    if (line >= old.length - suffix) return line + delta;
    if (oldUnique.get(text) !== line) return -1;
    return Math.max(newUnique.get(text) ?? -1, -1);
  });
}

function key(diagnostic: LspDiagnostic): string {
  return JSON.stringify([diagnostic.message, diagnostic.code ?? null, diagnostic.severity ?? 1]);
}

/**
 * The reportable diagnostics of `after` that were not already in `before`.
 * Two diagnostics are the same when message, code and severity agree; one
 * at the place its line moved to is matched first, then any other, so a
 * problem that only moved is not reported and a second copy of an old one
 * is.
 *
 * @example
 * ```ts
 * introducedDiagnostics(oldItems, newItems, oldText, newText); // only the new problems
 * ```
 */
export function introducedDiagnostics(
  before: readonly LspDiagnostic[],
  after: readonly LspDiagnostic[],
  beforeText: string,
  afterText: string,
): LspDiagnostic[] {
  const shift = lineShift(beforeText, afterText);
  const candidates = after.filter(reportable);
  const unmatched = new Set(before.filter(reportable));
  const matched = new Set<LspDiagnostic>();
  const take = (item: LspDiagnostic, sameLine: boolean) => {
    for (const old of unmatched) {
      if (key(old) !== key(item)) continue;
      if (sameLine && shift[old.range.start.line] !== item.range.start.line) continue;
      unmatched.delete(old);
      matched.add(item);
      return;
    }
  };
  for (const item of candidates) take(item, true);
  for (const item of candidates) if (!matched.has(item)) take(item, false);
  return candidates.filter((item) => !matched.has(item));
}

/** One line of the report: `ERROR [line:col] message [code] (source)`, 1-based. */
export function formatDiagnostic(diagnostic: LspDiagnostic): string {
  const word = SEVERITY_WORDS[diagnostic.severity ?? 1] ?? "ERROR";
  const { line, character } = diagnostic.range.start;
  const message = diagnostic.message.split("\n").map((part) => part.trim()).filter(Boolean)
    .join("; ");
  const code = diagnostic.code === undefined || diagnostic.code === ""
    ? ""
    : ` [${diagnostic.code}]`;
  const source = diagnostic.source ? ` (${diagnostic.source})` : "";
  return `${word} [${line + 1}:${character + 1}] ${message}${code}${source}`;
}

/**
 * The `lsp_diagnostics` text for `path`, or "" when there is nothing to
 * report. Lists at most {@link MAX_REPORTED_DIAGNOSTICS}, errors first.
 *
 * @example
 * ```ts
 * formatDiagnostics("/w/a.ts", [error]);
 * // 'LSP diagnostics introduced by this edit:\n<diagnostics file="/w/a.ts">\nERROR [1:7] ...\n</diagnostics>'
 * ```
 */
export function formatDiagnostics(path: string, diagnostics: readonly LspDiagnostic[]): string {
  if (diagnostics.length === 0) return "";
  const sorted = [...diagnostics].sort((a, b) =>
    (a.severity ?? 1) - (b.severity ?? 1) || a.range.start.line - b.range.start.line ||
    a.range.start.character - b.range.start.character
  );
  const lines = sorted.slice(0, MAX_REPORTED_DIAGNOSTICS).map(formatDiagnostic);
  if (sorted.length > MAX_REPORTED_DIAGNOSTICS) {
    lines.push(`... and ${sorted.length - MAX_REPORTED_DIAGNOSTICS} more`);
  }
  const file = path.replaceAll("&", "&amp;").replaceAll('"', "&quot;").replaceAll("<", "&lt;");
  return [
    "LSP diagnostics introduced by this edit:",
    `<diagnostics file="${file}">`,
    ...lines,
    "</diagnostics>",
  ].join("\n");
}

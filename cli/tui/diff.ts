/**
 * Line diffs for the TUI: the hunks of core/text/diff.ts (what a patch or a
 * file write changed, with a few lines of context) drawn with "+"/"-"
 * gutters, line numbers and green/red colours.
 *
 * @example
 * ```ts
 * const lines = lineDiff("a\nb\nc\n", "a\nB\nc\n");
 * renderDiff(lines, style, 80); // ["1   a", "2 - b", "2 + B", "3   c"]
 * ```
 *
 * @module
 */

import type { DiffLine } from "../../core/text/diff.ts";
import { sanitizeText, type Style, truncate } from "./style.ts";

export { type DiffLine, lineDiff } from "../../core/text/diff.ts";

/**
 * Draws diff lines: line number, "+"/"-" gutter, the text in green or red,
 * each line cut to `width`; after `maxLines` lines, "… N more lines".
 *
 * @example
 * ```ts
 * renderDiff(lineDiff(before, after), style, 80, 20);
 * ```
 */
export function renderDiff(
  lines: DiffLine[],
  style: Style,
  width: number,
  maxLines = 40,
): string[] {
  const shown = lines.length > maxLines ? lines.slice(0, Math.max(0, maxLines)) : lines;
  // Lines without numbers (a snippet, not a file) get no number column.
  const digits = Math.max(
    0,
    ...shown.map((line) =>
      String(line.kind === "del" ? line.oldNo ?? "" : line.newNo ?? line.oldNo ?? "").length
    ),
  );
  const out = shown.map((line) => {
    if (line.kind === "gap") {
      return style.muted(truncate(`${" ".repeat(Math.max(1, digits))} ⋯ ${line.text}`, width));
    }
    const number = line.kind === "del" ? line.oldNo : line.newNo ?? line.oldNo;
    const sign = line.kind === "add" ? "+" : line.kind === "del" ? "-" : " ";
    const gutter = digits === 0 ? `${sign} ` : `${String(number ?? "").padStart(digits)} ${sign} `;
    const text = sanitizeText(line.text).replaceAll("\n", " ");
    const full = truncate(gutter + text, width);
    if (line.kind === "add") return style.green(full);
    if (line.kind === "del") return style.red(full);
    return style.muted(full.slice(0, gutter.length)) + full.slice(gutter.length);
  });
  if (lines.length > shown.length) {
    const rest = lines.length - shown.length;
    out.push(style.muted(truncate(`… ${rest} more line${rest === 1 ? "" : "s"}`, width)));
  }
  return out;
}

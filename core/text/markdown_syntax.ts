/**
 * The line syntax of Markdown blocks, shared by the terminal and the web
 * app so both agree on what a line is: a code fence and its closer, an ATX
 * heading, a horizontal rule, a list item (with its task box) and the rows
 * of a pipe table. Each function reads one line (without its leading
 * indentation unless it says otherwise) and returns what it found or null.
 *
 * @example
 * ```ts
 * atxHeading("## Setup"); // { level: 2, text: "Setup" }
 * listItem("- [x] done"); // { marker: "-", content: "[x] done", ordered: false }
 * splitRow("| a | `b|c` |"); // ["a", "`b|c`"]
 * ```
 *
 * @module
 */

/** How a table column's cells are aligned. */
export type Align = "left" | "center" | "right";

/** An opening code fence: its character, its length and the info string (the language first). */
export interface Fence {
  char: "`" | "~";
  length: number;
  info: string;
}

/** A list item's marker ("-", "*", "+", "3." or "3)") and the text after it. */
export interface ListItemLine {
  marker: string;
  content: string;
  ordered: boolean;
}

const FENCE = /^(`{3,}|~{3,})[ \t]*(.*)$/;
const HEADING = /^(#{1,6})(?:[ \t]+(.*?))?(?:[ \t]+#+)?[ \t]*$/;
const RULE = /^(?:(?:\*[ \t]*){3,}|(?:-[ \t]*){3,}|(?:_[ \t]*){3,})$/;
const ITEM = /^([-*+]|\d{1,9}[.)])(?:[ \t]+(.*))?$/;
const TASK = /^\[([ xX])\][ \t]+/;
const DELIMITER_CELL = /^:?-+:?$/;

/** The number of spaces a line starts with. */
export function leadingSpaces(line: string): number {
  let n = 0;
  while (line[n] === " ") n++;
  return n;
}

/** The fence a line opens (``` or ~~~, three or more), or null. A backtick fence's info has no backtick. */
export function fenceOpen(text: string): Fence | null {
  const match = FENCE.exec(text);
  if (!match) return null;
  const char = match[1][0] as Fence["char"];
  if (char === "`" && match[2].includes("`")) return null;
  return { char, length: match[1].length, info: match[2] };
}

/** True when `text` (a line without its indentation) closes `fence`: only its character, at least as many. */
export function closesFence(text: string, fence: Pick<Fence, "char" | "length">): boolean {
  const trimmed = text.trimEnd();
  if (trimmed.length < fence.length) return false;
  for (let i = 0; i < trimmed.length; i++) if (trimmed[i] !== fence.char) return false;
  return true;
}

/** The first word of a fence's info string: the code's language ("" when none). */
export function fenceLanguage(info: string): string {
  return info.trim().split(/\s+/)[0] ?? "";
}

/** An ATX heading ("# Title", "## Title ##"): its level and text, or null. */
export function atxHeading(text: string): { level: number; text: string } | null {
  const match = HEADING.exec(text);
  return match ? { level: match[1].length, text: match[2] ?? "" } : null;
}

/** True for a horizontal rule: three or more `*`, `-` or `_`, spaces between allowed. */
export function isRule(text: string): boolean {
  return RULE.test(text);
}

/** A list item line ("- x", "* x", "+ x", "1. x", "1) x"), or null. */
export function listItem(text: string): ListItemLine | null {
  const match = ITEM.exec(text);
  if (!match) return null;
  return { marker: match[1], content: match[2] ?? "", ordered: /\d/.test(match[1]) };
}

/** A task box at the start of an item's content ("[ ] ", "[x] "): whether it is checked and the rest. */
export function taskBox(content: string): { checked: boolean; rest: string } | null {
  const match = TASK.exec(content);
  return match ? { checked: match[1] !== " ", rest: content.slice(match[0].length) } : null;
}

/** Splits a table row into cells at unescaped pipes outside code spans. */
export function splitRow(line: string): string[] {
  let text = line.trim();
  if (text.startsWith("|")) text = text.slice(1);
  if (text.endsWith("|") && !text.endsWith("\\|")) text = text.slice(0, -1);
  const cells: string[] = [];
  let cell = "";
  let inCode = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === "\\" && text[i + 1] === "|") {
      cell += "\\|";
      i++;
    } else if (c === "`") {
      inCode = !inCode;
      cell += c;
    } else if (c === "|" && !inCode) {
      cells.push(cell.trim());
      cell = "";
    } else cell += c;
  }
  cells.push(cell.trim());
  return cells;
}

/** The alignments of a delimiter row ("|---|:-:|") with `columns` cells, or null when the line is none. */
export function delimiterAligns(line: string, columns: number): Align[] | null {
  if (!line.includes("-")) return null;
  const cells = splitRow(line);
  if (cells.length !== columns || !cells.every((cell) => DELIMITER_CELL.test(cell))) return null;
  return cells.map((cell) =>
    cell.startsWith(":") && cell.endsWith(":") ? "center" : cell.endsWith(":") ? "right" : "left"
  );
}

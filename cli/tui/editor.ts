/**
 * The chat prompt's line editor: a multi-line buffer with a cursor, driven by
 * decoded keys, with history recall and a completion menu, rendered as plain
 * rows for the screen to style and draw. Pure: no terminal I/O.
 *
 * @example
 * ```ts
 * const editor = new LineEditor({ history: History.memory() });
 * editor.handle({ kind: "text", text: "hello" });
 * editor.handle({ kind: "enter" }); // {kind: "submit", text: "hello"}
 * ```
 *
 * @module
 */

import type { Candidate, Completer, Completion } from "./complete.ts";
import type { History } from "./history.ts";
import type { Key } from "./keys.ts";
import { displayWidth, truncate } from "./style.ts";

/** What a {@link LineEditor} works with. */
export interface EditorOptions {
  /** Submissions are added here; Up and Down browse it. */
  history: History;
  /** Proposes completions on Tab; without it Tab does nothing. */
  complete?: Completer;
  /** Told when saving a submission to the history file fails (the entry is still kept in memory). */
  onHistoryError?: (error: unknown) => void;
}

/** What the caller should do after a key. */
export type EditorAction =
  | { kind: "none" }
  | { kind: "submit"; text: string }
  | { kind: "interrupt" }
  | { kind: "eof" }
  | { kind: "clear_screen" };

/** The editor drawn as plain text rows (no ANSI); the screen styles and places them. */
export interface EditorView {
  /** The input rows (prompt on the first, continuation rows indented), then the menu rows, if any. */
  lines: string[];
  /** Row of the cursor within `lines`. */
  cursorRow: number;
  /** Display column of the cursor within its row. */
  cursorCol: number;
  /** Index in `lines` of the first completion-menu row, when the menu is open. */
  menuRow?: number;
  /** Index in `lines` of the highlighted menu row, when the menu is open. */
  selectedRow?: number;
}

/** The most candidate rows the completion menu shows at once. */
export const MENU_ROWS = 8;

/** Columns a tab in the buffer takes on screen. */
const TAB_WIDTH = 4;

const NONE: EditorAction = { kind: "none" };

/** An open completion menu. */
interface Menu {
  /** The span of the text the accepted candidate replaces. */
  start: number;
  end: number;
  candidates: Candidate[];
  selected: number;
  /** Index of the first candidate shown. */
  offset: number;
}

/** A multi-line input buffer with cursor, history and completion. */
export class LineEditor {
  readonly #history: History;
  readonly #complete: Completer | undefined;
  readonly #onHistoryError: ((error: unknown) => void) | undefined;
  #text = "";
  #cursor = 0;
  #menu: Menu | undefined;
  /** Position in the history being shown, or undefined when editing the draft. */
  #historyIndex: number | undefined;
  /** The text being written when history browsing started. */
  #draft = "";
  /** Display column kept across consecutive Up/Down moves. */
  #goalColumn: number | undefined;
  /** The text last removed by Ctrl-K, Ctrl-U or Ctrl-W (Ctrl-Y puts it back). */
  #killed = "";

  /** An empty editor over `options.history`. */
  constructor(options: EditorOptions) {
    this.#history = options.history;
    this.#complete = options.complete;
    this.#onHistoryError = options.onHistoryError;
  }

  /** The whole buffer (lines joined by "\n"). */
  get text(): string {
    return this.#text;
  }

  /** The cursor as an offset into {@link LineEditor.text} (UTF-16 code units). */
  get cursor(): number {
    return this.#cursor;
  }

  /** True while the completion menu is open. */
  get menuOpen(): boolean {
    return this.#menu !== undefined;
  }

  /** Replaces the buffer; the cursor goes to `cursor` (clamped) or the end. Closes the menu and leaves history browsing. */
  set(text: string, cursor: number = text.length): void {
    this.#text = text;
    this.#cursor = Math.max(0, Math.min(text.length, Math.trunc(cursor)));
    this.#menu = undefined;
    this.#historyIndex = undefined;
    this.#goalColumn = undefined;
  }

  /** Empties the buffer. */
  clear(): void {
    this.set("");
  }

  /** Applies one key and says what the caller should do about it. */
  handle(key: Key): EditorAction {
    if (
      key.kind !== "up" && key.kind !== "down" &&
      !(key.kind === "ctrl" && (key.key === "p" || key.key === "n"))
    ) {
      this.#goalColumn = undefined;
    }
    if (this.#menu) {
      const handled = this.#handleMenu(key, this.#menu);
      if (handled) return handled;
    }
    switch (key.kind) {
      case "text":
      case "paste":
        this.#insert(key.text);
        return NONE;
      case "newline":
        this.#insert("\n");
        return NONE;
      case "enter":
        return this.#enter();
      case "tab":
        this.#completeAtCursor();
        return NONE;
      case "backspace":
        this.#deleteRange(prevBoundary(this.#text, this.#cursor), this.#cursor);
        return NONE;
      case "delete":
        this.#deleteRange(this.#cursor, nextBoundary(this.#text, this.#cursor));
        return NONE;
      case "left":
        this.#cursor = prevBoundary(this.#text, this.#cursor);
        return NONE;
      case "right":
        this.#cursor = nextBoundary(this.#text, this.#cursor);
        return NONE;
      case "home":
        this.#cursor = lineStart(this.#text, this.#cursor);
        return NONE;
      case "end":
        this.#cursor = lineEnd(this.#text, this.#cursor);
        return NONE;
      case "word_left":
        this.#cursor = wordLeft(this.#text, this.#cursor);
        return NONE;
      case "word_right":
        this.#cursor = wordRight(this.#text, this.#cursor);
        return NONE;
      case "up":
        this.#up();
        return NONE;
      case "down":
        this.#down();
        return NONE;
      case "ctrl":
        return this.#ctrl(key.key);
      case "shift_tab":
      case "escape":
      case "page_up":
      case "page_down":
        return NONE;
    }
  }

  /**
   * The editor as rows `width` columns wide: `prompt` starts the first row,
   * continuation rows are indented to the prompt's width, long lines wrap by
   * display columns (wide characters take 2), and the open completion menu
   * follows as extra rows (value and description, at most {@link MENU_ROWS}
   * candidates and a "… N more" row).
   */
  render(width: number, prompt: string): EditorView {
    const promptWidth = displayWidth(prompt);
    const indent = " ".repeat(promptWidth);
    const room = Math.max(1, Math.floor(width) - promptWidth);
    const { rows, cursorRow, cursorCol } = layout(this.#text, this.#cursor, room);
    const lines = rows.map((row, index) => (index === 0 ? prompt : indent) + row);
    const view: EditorView = { lines, cursorRow, cursorCol: cursorCol + promptWidth };
    if (this.#menu) {
      view.menuRow = lines.length;
      view.selectedRow = lines.length + this.#menu.selected - this.#menu.offset;
      lines.push(...menuRows(this.#menu, indent, Math.max(1, Math.floor(width))));
    }
    return view;
  }

  /** Keys the open menu takes; null lets the key through (after closing the menu). */
  #handleMenu(key: Key, menu: Menu): EditorAction | null {
    switch (key.kind) {
      case "tab":
      case "down":
        this.#select(menu, menu.selected + 1);
        return NONE;
      case "shift_tab":
      case "up":
        this.#select(menu, menu.selected - 1);
        return NONE;
      case "enter":
        this.#menu = undefined;
        this.#replace(menu.start, menu.end, menu.candidates[menu.selected].value);
        return NONE;
      case "escape":
        this.#menu = undefined;
        return NONE;
    }
    this.#menu = undefined;
    return null;
  }

  #select(menu: Menu, index: number): void {
    const count = menu.candidates.length;
    menu.selected = ((index % count) + count) % count;
    if (menu.selected < menu.offset) menu.offset = menu.selected;
    if (menu.selected >= menu.offset + MENU_ROWS) menu.offset = menu.selected - MENU_ROWS + 1;
  }

  #enter(): EditorAction {
    if (this.#text.endsWith("\\")) {
      this.#text = `${this.#text.slice(0, -1)}\n`;
      this.#cursor = this.#text.length;
      return NONE;
    }
    const text = this.#text;
    this.clear();
    if (text.trim() !== "") {
      this.#history.add(text).catch((error) => this.#onHistoryError?.(error));
    }
    return { kind: "submit", text };
  }

  #ctrl(key: string): EditorAction {
    const text = this.#text;
    const cursor = this.#cursor;
    switch (key) {
      case "c":
        this.#menu = undefined;
        return { kind: "interrupt" };
      case "d":
        if (text === "") return { kind: "eof" };
        this.#deleteRange(cursor, nextBoundary(text, cursor));
        return NONE;
      case "l":
        return { kind: "clear_screen" };
      case "a":
        this.#cursor = lineStart(text, cursor);
        return NONE;
      case "e":
        this.#cursor = lineEnd(text, cursor);
        return NONE;
      case "b":
        this.#cursor = prevBoundary(text, cursor);
        return NONE;
      case "f":
        this.#cursor = nextBoundary(text, cursor);
        return NONE;
      case "p":
        this.#up();
        return NONE;
      case "n":
        this.#down();
        return NONE;
      case "k": {
        const end = lineEnd(text, cursor);
        this.#kill(cursor, end === cursor ? Math.min(text.length, end + 1) : end);
        return NONE;
      }
      case "u": {
        const start = lineStart(text, cursor);
        this.#kill(start === cursor ? Math.max(0, start - 1) : start, cursor);
        return NONE;
      }
      case "w":
        this.#kill(unixWordStart(text, cursor), cursor);
        return NONE;
      case "y":
        this.#insert(this.#killed);
        return NONE;
    }
    return NONE;
  }

  #up(): void {
    const text = this.#text;
    const start = lineStart(text, this.#cursor);
    if (start > 0) {
      this.#moveToLine(lineStart(text, start - 1));
      return;
    }
    const entries = this.#history.entries;
    const index = (this.#historyIndex ?? entries.length) - 1;
    if (index < 0 || index >= entries.length) return;
    if (this.#historyIndex === undefined) this.#draft = text;
    this.#show(entries[index], index, "first");
  }

  #down(): void {
    const text = this.#text;
    const end = lineEnd(text, this.#cursor);
    if (end < text.length) {
      this.#moveToLine(end + 1);
      return;
    }
    if (this.#historyIndex === undefined) return;
    const entries = this.#history.entries;
    const index = this.#historyIndex + 1;
    if (index >= entries.length) this.#show(this.#draft, undefined, "last");
    else this.#show(entries[index], index, "last");
  }

  /**
   * Shows a history entry (or the draft): coming from below, the cursor ends
   * the entry's first line, so Up again goes on to the older entry; coming
   * from above it ends the last line, so Down goes on to the newer one.
   */
  #show(text: string, index: number | undefined, line: "first" | "last"): void {
    this.#text = text;
    this.#cursor = line === "first" ? lineEnd(text, 0) : text.length;
    this.#historyIndex = index;
    this.#goalColumn = undefined;
  }

  /** Moves the cursor to the line starting at `start`, keeping the display column. */
  #moveToLine(start: number): void {
    const text = this.#text;
    this.#goalColumn ??= bufferWidth(text.slice(lineStart(text, this.#cursor), this.#cursor));
    const end = lineEnd(text, start);
    let position = start;
    let column = 0;
    while (position < end) {
      const next = nextBoundary(text, position);
      const width = clusterWidth(text, position, next);
      if (column + width > this.#goalColumn) break;
      column += width;
      position = next;
    }
    this.#cursor = position;
  }

  #completeAtCursor(): void {
    const completion = this.#complete?.(this.#text, this.#cursor);
    if (!completion || !validSpan(completion, this.#text, this.#cursor)) return;
    const { start, end, candidates } = completion;
    if (candidates.length === 0) return;
    if (candidates.length === 1) {
      this.#replace(start, end, candidates[0].value);
      return;
    }
    const typed = this.#text.slice(start, end);
    const prefix = commonPrefix(candidates.map((candidate) => candidate.value));
    const inserted = prefix.length >= typed.length ? prefix : typed;
    this.#text = this.#text.slice(0, start) + inserted + this.#text.slice(end);
    this.#cursor = start + inserted.length;
    this.#menu = { start, end: start + inserted.length, candidates, selected: 0, offset: 0 };
  }

  /**
   * Puts a chosen completion in place of `text[start, end)`, followed by a
   * space unless it is a folder (ends with "/") or a space already follows.
   */
  #replace(start: number, end: number, value: string): void {
    const before = this.#text.slice(0, start);
    const after = this.#text.slice(end);
    const folder = value.endsWith("/");
    const spaceFollows = /^\s/.test(after);
    const inserted = folder || spaceFollows ? value : `${value} `;
    this.#text = before + inserted + after;
    this.#cursor = start + inserted.length + (!folder && after.startsWith(" ") ? 1 : 0);
  }

  #insert(text: string): void {
    if (text === "") return;
    this.#text = this.#text.slice(0, this.#cursor) + text + this.#text.slice(this.#cursor);
    this.#cursor += text.length;
  }

  #deleteRange(start: number, end: number): void {
    if (start >= end) return;
    this.#text = this.#text.slice(0, start) + this.#text.slice(end);
    this.#cursor = start;
  }

  #kill(start: number, end: number): void {
    if (start >= end) return;
    this.#killed = this.#text.slice(start, end);
    this.#deleteRange(start, end);
  }
}

/** True when a completer's span is inside the text and holds the cursor's side. */
function validSpan(completion: Completion, text: string, cursor: number): boolean {
  const { start, end } = completion;
  return Number.isInteger(start) && Number.isInteger(end) && start >= 0 && start <= end &&
    end <= text.length && start <= cursor;
}

/** The longest common prefix of `values`. */
function commonPrefix(values: string[]): string {
  let prefix = values[0] ?? "";
  for (const value of values.slice(1)) {
    let n = 0;
    while (n < prefix.length && n < value.length && prefix[n] === value[n]) n++;
    prefix = prefix.slice(0, n);
  }
  // Never end between the two halves of a surrogate pair.
  return /[\ud800-\udbff]$/.test(prefix) ? prefix.slice(0, -1) : prefix;
}

/** The menu rows: value padded, description, then "… N more" when some are not shown. */
function menuRows(menu: Menu, indent: string, width: number): string[] {
  const shown = menu.candidates.slice(menu.offset, menu.offset + MENU_ROWS);
  const valueWidth = Math.max(...shown.map((candidate) => displayWidth(candidate.value)));
  const rows = shown.map((candidate) => {
    const value = candidate.value + " ".repeat(valueWidth - displayWidth(candidate.value));
    const row = candidate.description
      ? `${indent}${value}  ${candidate.description}`
      : indent + candidate.value;
    return truncate(flatten(row), width);
  });
  const hidden = menu.candidates.length - shown.length;
  if (hidden > 0) rows.push(truncate(`${indent}… ${hidden} more`, width));
  return rows;
}

/** `text` on one row: line breaks and tabs become spaces. */
function flatten(text: string): string {
  return text.replace(/[\t\n\r]/g, " ");
}

/** Rows of a laid-out buffer and where the cursor lands among them. */
interface Layout {
  rows: string[];
  cursorRow: number;
  cursorCol: number;
}

/** The buffer laid out in rows of at most `room` columns, and where the cursor lands. */
function layout(text: string, cursor: number, room: number): Layout {
  const out: Layout = { rows: [], cursorRow: -1, cursorCol: 0 };
  for (let start = 0;;) {
    const end = lineEnd(text, start);
    const line = text.slice(start, end);
    const lineCursor = cursor >= start && cursor <= end ? cursor - start : -1;
    if (PLAIN_ASCII.test(line)) layoutAscii(line, lineCursor, room, out);
    else layoutLine(line, lineCursor, room, out);
    if (end >= text.length) break;
    start = end + 1;
  }
  out.cursorRow = Math.max(0, out.cursorRow);
  return out;
}

const PLAIN_ASCII = /^[\x20-\x7e]*$/;

/** Lays out a line of printable ASCII (one column per character) into `out`. */
function layoutAscii(line: string, cursor: number, room: number, out: Layout): void {
  const first = out.rows.length;
  for (let i = 0; i < line.length; i += room) out.rows.push(line.slice(i, i + room));
  if (line === "") out.rows.push("");
  if (cursor < 0) return;
  out.cursorRow = first + Math.floor(cursor / room);
  out.cursorCol = cursor % room;
  if (out.cursorRow === out.rows.length) out.rows.push(""); // at the end of a full row
}

/** Lays out any line cluster by cluster (wide characters, marks, tabs, controls) into `out`. */
function layoutLine(line: string, cursor: number, room: number, out: Layout): void {
  let rowStart = 0;
  let used = 0;
  for (let i = 0; i < line.length;) {
    const next = nextBoundary(line, i);
    const width = clusterWidth(line, i, next);
    if (used + width > room && used > 0) {
      out.rows.push(display(line.slice(rowStart, i)));
      rowStart = i;
      used = 0;
    }
    if (cursor >= i && cursor < next) {
      out.cursorRow = out.rows.length;
      out.cursorCol = used;
    }
    used += width;
    i = next;
  }
  if (cursor === line.length) {
    if (used >= room) {
      out.rows.push(display(line.slice(rowStart)));
      rowStart = line.length;
      used = 0;
    }
    out.cursorRow = out.rows.length;
    out.cursorCol = used;
  }
  out.rows.push(display(line.slice(rowStart)));
}

// deno-lint-ignore no-control-regex
const SHOWN_DIFFERENTLY = /[\x00-\x1f\x7f]/g;

/** `text` as it looks on screen: tabs as spaces, other control characters as ^X. */
function display(text: string): string {
  return text.replace(SHOWN_DIFFERENTLY, (char) => clusterText(char, 0, 1));
}

/** What the cluster `text[start, end)` looks like on screen (tabs as spaces, controls as ^X). */
function clusterText(text: string, start: number, end: number): string {
  const code = text.charCodeAt(start);
  if (code === 0x09) return " ".repeat(TAB_WIDTH);
  if (code < 0x20 || code === 0x7f) {
    return `^${String.fromCharCode(code === 0x7f ? 0x3f : code + 0x40)}`;
  }
  return text.slice(start, end);
}

/** Display columns of the cluster `text[i, next)` (a tab takes {@link TAB_WIDTH}, a control character 2). */
function clusterWidth(text: string, i: number, next: number): number {
  const code = text.charCodeAt(i);
  if (code === 0x09) return TAB_WIDTH;
  if (code < 0x20 || code === 0x7f) return 2;
  if (code < 0x7f && next === i + 1) return 1;
  return displayWidth(text.slice(i, next));
}

/** Display columns of buffer text as the editor shows it (tabs and control characters included). */
function bufferWidth(text: string): number {
  let width = 0;
  for (let i = 0; i < text.length;) {
    const next = nextBoundary(text, i);
    width += clusterWidth(text, i, next);
    i = next;
  }
  return width;
}

/** Code points from U+0300 on that take no column of their own, as far as seen: true or false. */
const joinedCache = new Map<number, boolean>();

/**
 * True for a code point drawn as part of the one before it: a combining
 * mark, ZWJ, a variation selector, a skin-tone modifier (whatever the
 * screen's width rule gives no column of its own).
 */
function isJoined(codePoint: number): boolean {
  if (codePoint < 0x300) return false;
  let joined = joinedCache.get(codePoint);
  if (joined === undefined) {
    joined = displayWidth(String.fromCodePoint(codePoint)) === 0;
    joinedCache.set(codePoint, joined);
  }
  return joined;
}

const ZWJ = 0x200d;

/** True for a regional indicator (two of them make a flag). */
function isRegional(codePoint: number | undefined): boolean {
  return codePoint !== undefined && codePoint >= 0x1f1e6 && codePoint <= 0x1f1ff;
}

/** Offset after the cluster at `i` (a code point plus the marks and joined characters after it, or a flag). */
function nextBoundary(text: string, i: number): number {
  if (i >= text.length) return text.length;
  const first = text.codePointAt(i)!;
  let j = i + codePointLength(first);
  if (isRegional(first) && isRegional(text.codePointAt(j))) j += 2;
  while (j < text.length) {
    const code = text.codePointAt(j)!;
    if (!isJoined(code) && text.codePointAt(j - 1) !== ZWJ) break;
    j += codePointLength(code);
  }
  return j;
}

/** Offset of the cluster before `i`. */
function prevBoundary(text: string, i: number): number {
  if (i <= 0) return 0;
  let j = codePointStartBefore(text, i);
  while (j > 0) {
    const before = codePointStartBefore(text, j);
    if (!isJoined(text.codePointAt(j)!) && text.codePointAt(before) !== ZWJ) break;
    j = before;
  }
  if (isRegional(text.codePointAt(j))) {
    // Regional indicators pair up from the start of their run: find which half `j` is.
    let run = 0;
    for (let k = j; k > 0 && isRegional(text.codePointAt(codePointStartBefore(text, k)));) {
      k = codePointStartBefore(text, k);
      run++;
    }
    if (run % 2 === 1) j -= 2;
  }
  return j;
}

function codePointLength(codePoint: number): number {
  return codePoint > 0xffff ? 2 : 1;
}

/** Start of the code point that ends at `i`. */
function codePointStartBefore(text: string, i: number): number {
  const low = text.charCodeAt(i - 1);
  if (i >= 2 && low >= 0xdc00 && low <= 0xdfff) {
    const high = text.charCodeAt(i - 2);
    if (high >= 0xd800 && high <= 0xdbff) return i - 2;
  }
  return i - 1;
}

/** Start of the line holding `i`. */
function lineStart(text: string, i: number): number {
  return text.lastIndexOf("\n", i - 1) + 1;
}

/** End of the line holding `i` (the offset of its "\n", or the text's end). */
function lineEnd(text: string, i: number): number {
  const newline = text.indexOf("\n", i);
  return newline === -1 ? text.length : newline;
}

const WORD = /[\p{L}\p{N}_]/u;

function isWordAt(text: string, i: number): boolean {
  return WORD.test(String.fromCodePoint(text.codePointAt(i)!));
}

/** Start of the word before `i` (skipping non-word characters first). */
function wordLeft(text: string, i: number): number {
  let j = i;
  while (j > 0 && !isWordAt(text, codePointStartBefore(text, j))) j = codePointStartBefore(text, j);
  while (j > 0 && isWordAt(text, codePointStartBefore(text, j))) j = codePointStartBefore(text, j);
  return j;
}

/** End of the word after `i` (skipping non-word characters first). */
function wordRight(text: string, i: number): number {
  let j = i;
  while (j < text.length && !isWordAt(text, j)) j += codePointLength(text.codePointAt(j)!);
  while (j < text.length && isWordAt(text, j)) j += codePointLength(text.codePointAt(j)!);
  return j;
}

/** Start of the whitespace-delimited word before `i` (Ctrl-W). */
function unixWordStart(text: string, i: number): number {
  let j = i;
  while (j > 0 && /\s/.test(text[j - 1])) j--;
  while (j > 0 && !/\s/.test(text[j - 1])) j--;
  return j;
}

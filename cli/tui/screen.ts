/**
 * The TUI's screen model: what is finished scrolls up as ordinary terminal
 * output (so the terminal's own scrollback, search and copy work), and a
 * small live region at the bottom (the streaming tail of the answer, the
 * spinner, the input box, the status line) is redrawn in place.
 *
 * Every line handed in must fit the terminal's width (the renderers wrap);
 * a line that does not is cut, so the terminal never wraps one on its own
 * and the region's height is always known.
 *
 * @module
 */

import { displayWidth, truncate } from "./style.ts";
import { ansi, type TuiTerminal } from "./terminal.ts";

/** The escape character and the control ranges; the patterns are built from them (lint forbids them in literals). */
const BEL = String.fromCharCode(0x07);
const C0 = `${String.fromCharCode(0x00)}-${String.fromCharCode(0x1f)}`;
const C1 = `${String.fromCharCode(0x7f)}-${String.fromCharCode(0x9f)}`;
const ESC = String.fromCharCode(0x1b);
/** A colour (SGR) sequence: the one escape sequence the screen lets through. */
const SGR = new RegExp(`${ESC}\\[[0-9;:]*m`, "g");
/** Any other escape sequence (CSI, OSC, two-byte) or control character. */
const CONTROL = new RegExp(
  `${ESC}(?:\\[[0-?]*[ -/]*[@-~]|\\][^${BEL}${ESC}]*(?:${BEL}|${ESC}\\\\)?|.)?|[${C0}${C1}]`,
  "g",
);

/**
 * `line` with nothing but colours and text: any other escape sequence or
 * control character (a cursor move, a carriage return, a newline) is
 * removed, so whatever a renderer let through cannot move the cursor or
 * break the region's row count.
 */
export function safeLine(line: string): string {
  let out = "";
  let last = 0;
  for (const match of line.matchAll(SGR)) {
    out += line.slice(last, match.index).replace(CONTROL, "") + match[0];
    last = match.index + match[0].length;
  }
  return out + line.slice(last).replace(CONTROL, "");
}

/** Where the cursor goes in the live region: a row of it and a column. */
export interface CursorSpot {
  row: number;
  col: number;
}

/** The scrolling output above and the live region below. */
export class LiveScreen {
  readonly #terminal: TuiTerminal;
  #live: string[] = [];
  #cursor: CursorSpot | undefined;
  /** The row of the live region the terminal's cursor is on now. */
  #cursorRow = 0;
  /** Rows of the live region on the screen now. */
  #drawn = 0;
  /** The display width of each line drawn, the cursor's column, and the window's width then. */
  #drawnWidths: number[] = [];
  #cursorCol = 0;
  #drawnColumns = 0;

  /** A screen drawing on `terminal`. */
  constructor(terminal: TuiTerminal) {
    this.#terminal = terminal;
  }

  /** The terminal's width in cells. */
  get columns(): number {
    return Math.max(20, this.#terminal.size().columns);
  }

  /**
   * Adds finished lines above the live region (they scroll with the
   * terminal); with `live`, the region below them is replaced in the same frame.
   */
  print(lines: readonly string[], live?: readonly string[], cursor?: CursorSpot): void {
    if (live) {
      this.#live = [...live];
      this.#cursor = cursor;
    }
    if (lines.length === 0 && !live) return;
    const width = this.columns;
    const text = lines.map((line) => `${truncate(safeLine(line), width)}\r\n`).join("");
    this.#terminal.write(
      ansi.beginFrame + ansi.hideCursor + this.#erase() + text + this.#draw() + ansi.endFrame,
    );
  }

  /** Replaces the live region; the cursor goes to `cursor` (hidden when absent). */
  render(live: readonly string[], cursor?: CursorSpot): void {
    this.#live = [...live];
    this.#cursor = cursor;
    this.#terminal.write(
      ansi.beginFrame + ansi.hideCursor + this.#erase() + this.#draw() + ansi.endFrame,
    );
  }

  /** Clears the screen and its scrollback, then draws the live region again at the top. */
  clear(): void {
    this.#drawn = 0;
    this.#cursorRow = 0;
    this.#terminal.write(ansi.clearScreen + this.#draw());
  }

  /** Removes the live region and leaves the cursor at the start of a fresh line. */
  close(): void {
    this.#live = [];
    this.#cursor = undefined;
    this.#terminal.write(this.#erase() + ansi.showCursor);
    this.#drawn = 0;
  }

  /** Moves the cursor to the region's first row and clears everything below it. */
  #erase(): string {
    if (this.#drawn === 0) return "\r";
    const sequence = ansi.up(this.#rowsAboveCursor()) + "\r" + ansi.clearDown;
    this.#drawn = 0;
    this.#cursorRow = 0;
    return sequence;
  }

  /**
   * Screen rows between the region's first row and the cursor's. The same
   * as the cursor's row in the region, unless the window got narrower since
   * the region was drawn: terminals then rewrap the lines that no longer
   * fit, and each takes as many rows as it now needs.
   */
  #rowsAboveCursor(): number {
    const columns = this.columns;
    if (columns >= this.#drawnColumns) return this.#cursorRow;
    const rowsOf = (cells: number) => Math.max(1, Math.ceil(cells / columns));
    let rows = 0;
    for (let i = 0; i < this.#cursorRow; i++) rows += rowsOf(this.#drawnWidths[i]);
    return rows + Math.floor(this.#cursorCol / columns);
  }

  /** Draws the region from the cursor's row (the region's first) and places the cursor. */
  #draw(): string {
    const { rows } = this.#terminal.size();
    const width = this.columns;
    // Never taller than the window: a region that scrolls could not be found again.
    const keep = Math.max(1, rows - 1);
    const skipped = Math.max(0, this.#live.length - keep);
    const lines = this.#live.slice(skipped).map((line) => truncate(safeLine(line), width));
    if (lines.length === 0) return "";
    let text = lines.join("\r\n");
    const last = lines.length - 1;
    const cursor = this.#cursor;
    let row = last;
    let col = displayWidth(lines[last]);
    if (cursor) {
      row = Math.min(last, Math.max(0, cursor.row - skipped));
      col = Math.min(cursor.col, width - 1);
      text += ansi.up(last - row) + ansi.column(col) + ansi.showCursor;
    }
    this.#drawn = lines.length;
    this.#cursorRow = row;
    this.#cursorCol = col;
    this.#drawnWidths = lines.map(displayWidth);
    this.#drawnColumns = width;
    return text;
  }
}

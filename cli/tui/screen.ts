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

import { truncate } from "./style.ts";
import { ansi, type TuiTerminal } from "./terminal.ts";

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
    const text = lines.map((line) => `${truncate(line, width)}\r\n`).join("");
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
    const sequence = ansi.up(this.#cursorRow) + "\r" + ansi.clearDown;
    this.#drawn = 0;
    this.#cursorRow = 0;
    return sequence;
  }

  /** Draws the region from the cursor's row (the region's first) and places the cursor. */
  #draw(): string {
    const { rows } = this.#terminal.size();
    const width = this.columns;
    // Never taller than the window: a region that scrolls could not be found again.
    const keep = Math.max(1, rows - 1);
    const skipped = Math.max(0, this.#live.length - keep);
    const lines = this.#live.slice(skipped).map((line) => truncate(line, width));
    if (lines.length === 0) return "";
    let text = lines.join("\r\n");
    const last = lines.length - 1;
    const cursor = this.#cursor;
    let row = last;
    if (cursor) {
      row = Math.min(last, Math.max(0, cursor.row - skipped));
      text += ansi.up(last - row) + ansi.column(Math.min(cursor.col, width - 1)) + ansi.showCursor;
    }
    this.#drawn = lines.length;
    this.#cursorRow = row;
    return text;
  }
}

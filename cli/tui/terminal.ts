/**
 * The terminal the TUI draws on: raw keyboard input, synchronous output,
 * the window size and its changes. {@link processTerminal} is the real one;
 * tests drive the TUI through a real pseudo-terminal instead of faking this.
 *
 * @module
 */

/** What the TUI needs of a terminal. */
export interface TuiTerminal {
  /** Writes `text` now (synchronously, so output keeps its order). */
  write(text: string): void;
  /** The window's width and height in cells. */
  size(): { columns: number; rows: number };
  /** Calls `listener` when the window is resized; returns a function that stops it. */
  onResize(listener: () => void): () => void;
  /**
   * Calls `listener` when the process is told to end (SIGTERM, SIGHUP), in
   * place of dying at once; returns a function that stops it.
   */
  onTerminate?(listener: () => void): () => void;
  /** Raw key bytes. */
  readonly input: ReadableStream<Uint8Array>;
  /** Turns raw mode (no echo, no line buffering, Ctrl-C as a byte) on or off. */
  setRaw(raw: boolean): void;
}

const encoder = new TextEncoder();

/** Writes all of `bytes` to standard output, however many calls it takes. */
function writeAll(bytes: Uint8Array): void {
  let offset = 0;
  while (offset < bytes.length) offset += Deno.stdout.writeSync(bytes.subarray(offset));
}

/** The process's own terminal: standard input and output. */
export function processTerminal(input: ReadableStream<Uint8Array>): TuiTerminal {
  return {
    write: (text) => writeAll(encoder.encode(text)),
    size() {
      try {
        return Deno.consoleSize();
      } catch {
        return { columns: 80, rows: 24 };
      }
    },
    onResize(listener) {
      try {
        Deno.addSignalListener("SIGWINCH", listener);
      } catch {
        return () => {};
      }
      return () => Deno.removeSignalListener("SIGWINCH", listener);
    },
    onTerminate(listener) {
      const signals: Deno.Signal[] = ["SIGTERM", "SIGHUP"];
      for (const signal of signals) Deno.addSignalListener(signal, listener);
      return () => {
        for (const signal of signals) Deno.removeSignalListener(signal, listener);
      };
    },
    input,
    setRaw(raw) {
      try {
        Deno.stdin.setRaw(raw);
      } catch {
        // Not a terminal after all (closed, redirected): nothing to switch.
      }
    },
  };
}

/** Control sequences the TUI writes. */
export const ansi = {
  /** Moves the cursor up `n` rows (nothing for 0). */
  up: (n: number) => n > 0 ? `\x1b[${n}A` : "",
  /** Moves the cursor to column `n` (0-based) of its row. */
  column: (n: number) => `\r${n > 0 ? `\x1b[${n}C` : ""}`,
  /** Clears from the cursor to the end of the screen. */
  clearDown: "\x1b[J",
  /** Clears the whole screen and the scrollback, and homes the cursor. */
  clearScreen: "\x1b[2J\x1b[3J\x1b[H",
  hideCursor: "\x1b[?25l",
  showCursor: "\x1b[?25h",
  /** Asks the terminal to mark pasted text (ESC[200~ … ESC[201~). */
  bracketedPasteOn: "\x1b[?2004h",
  bracketedPasteOff: "\x1b[?2004l",
  /** Synchronised output: the terminal shows the frame once it is complete. */
  beginFrame: "\x1b[?2026h",
  endFrame: "\x1b[?2026l",
} as const;

/**
 * The pseudo-terminal harness for terminal UI tests, for callers outside
 * tests/tui/ (bench/tui_startup.ts): see tests/tui/_pty.ts.
 *
 * @module
 */

export {
  type CursorPosition,
  findChromium,
  keyBytes,
  type KeyName,
  type PtyExit,
  type PtyOptions,
  PtyScreen,
  renderPng,
  type Snapshot,
} from "./_pty.ts";

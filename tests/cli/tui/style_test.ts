/**
 * cli/tui/style.ts: colours that switch off, display widths of wide and
 * zero-width characters, ANSI-safe truncation and sanitising.
 */

import assert from "node:assert/strict";
import {
  ansiParts,
  colorEnabled,
  createStyle,
  displayWidth,
  sanitizeText,
  SGR_RESET,
  SgrState,
  stripAnsi,
  truncate,
} from "../../../cli/tui/style.ts";

const ESC = "\x1b";

Deno.test("a disabled style returns every text unchanged, without an escape byte", () => {
  const style = createStyle(false);
  assert.equal(style.enabled, false);
  for (const [name, paint] of Object.entries(style)) {
    if (typeof paint !== "function") continue;
    assert.equal(paint("text"), "text", name);
  }
});

Deno.test("an enabled style wraps text in SGR codes that stripAnsi removes", () => {
  const style = createStyle(true);
  for (const [name, paint] of Object.entries(style)) {
    if (typeof paint !== "function") continue;
    const painted = paint("text");
    assert.ok(painted.includes(ESC), name);
    assert.equal(stripAnsi(painted), "text", name);
  }
  assert.equal(style.red(""), "");
});

/** The SGR sequence that re-opens the attributes in force where `text` ends. */
function stateAt(text: string): string {
  const state = new SgrState();
  for (const part of ansiParts(text)) if (part.escape) state.apply(part.text);
  return state.open();
}

Deno.test("a nested span that closes the same attribute re-opens the outer one", () => {
  const style = createStyle(true);
  const text = style.red(`a${style.green("b")}c`);
  assert.equal(stateAt(text.slice(0, text.indexOf("c"))), `${ESC}[31m`);
  const bold = style.bold(`x${style.dim("y")}z`);
  assert.equal(stateAt(bold.slice(0, bold.indexOf("z"))), `${ESC}[1m`);
  assert.equal(stateAt(bold), "");
});

Deno.test("colours are on for a terminal unless a flag, NO_COLOR or TERM=dumb turns them off", () => {
  const tty = { isTerminal: true };
  assert.equal(colorEnabled({}, tty), true);
  assert.equal(colorEnabled({}, { isTerminal: false }), false);
  assert.equal(colorEnabled({ NO_COLOR: "1" }, tty), false);
  assert.equal(colorEnabled({ NO_COLOR: "" }, tty), true);
  assert.equal(colorEnabled({ TERM: "dumb" }, tty), false);
  assert.equal(colorEnabled({}, { isTerminal: true, noColorFlag: true }), false);
  assert.equal(colorEnabled({ FORCE_COLOR: "1" }, { isTerminal: false }), true);
  assert.equal(colorEnabled({ FORCE_COLOR: "1", NO_COLOR: "1", TERM: "dumb" }, tty), true);
  assert.equal(colorEnabled({ FORCE_COLOR: "0" }, tty), false);
  assert.equal(
    colorEnabled({ FORCE_COLOR: "1" }, { isTerminal: true, noColorFlag: true }),
    false,
  );
});

Deno.test("stripAnsi removes colour, cursor and OSC sequences and keeps the text", () => {
  assert.equal(stripAnsi(`${ESC}[1;31mred${ESC}[0m plain`), "red plain");
  assert.equal(stripAnsi(`a${ESC}[2Jb${ESC}[10;5Hc`), "abc");
  assert.equal(stripAnsi(`${ESC}]8;;https://x.dev${ESC}\\link${ESC}]8;;${ESC}\\`), "link");
  assert.equal(stripAnsi(`${ESC}]0;title\x07text`), "text");
  assert.equal(stripAnsi("no escapes"), "no escapes");
});

Deno.test("display width counts wide characters and emoji as two, marks and escapes as none", () => {
  assert.equal(displayWidth("hello"), 5);
  assert.equal(displayWidth(createStyle(true).bold("hello")), 5);
  assert.equal(displayWidth("漢字"), 4);
  assert.equal(displayWidth("한국어"), 6);
  assert.equal(displayWidth("ｆｕｌｌ"), 8);
  assert.equal(displayWidth("🎉"), 2);
  assert.equal(displayWidth("👍🏽"), 2);
  assert.equal(displayWidth("👨‍👩‍👧"), 2);
  assert.equal(displayWidth("🇯🇵"), 2);
  assert.equal(displayWidth("❤️"), 2);
  assert.equal(displayWidth("e\u0301"), 1);
  assert.equal(displayWidth("é"), 1);
  assert.equal(displayWidth("a\u200bb"), 2);
  assert.equal(displayWidth("•✓…─│"), 5);
  assert.equal(displayWidth(""), 0);
});

Deno.test("truncate keeps text that fits and cuts the rest with an ellipsis", () => {
  assert.equal(truncate("hello", 5), "hello");
  assert.equal(truncate("hello world", 8), "hello w…");
  assert.equal(truncate("hello", 1), "…");
  assert.equal(truncate("hello", 0), "");
  const wide = truncate("漢字漢字", 6);
  assert.equal(wide, "漢字…");
  assert.ok(displayWidth(truncate("漢字漢字", 4)) <= 4);
  assert.equal(stripAnsi(truncate("漢字漢字", 4)), "漢…");
});

Deno.test("truncate keeps escape sequences before the cut and resets a style left open", () => {
  const style = createStyle(true);
  const cut = truncate(style.bold("hello world"), 6);
  assert.equal(stripAnsi(cut), "hello…");
  assert.ok(cut.startsWith(`${ESC}[1m`));
  assert.ok(cut.endsWith(SGR_RESET));
  assert.equal(displayWidth(cut), 6);
  const closed = truncate(`${style.red("ab")}cdefgh`, 5);
  assert.equal(stripAnsi(closed), "abcd…");
  assert.ok(!closed.endsWith(SGR_RESET));
});

Deno.test("sanitizeText drops escape sequences and control characters and expands tabs", () => {
  assert.equal(sanitizeText(`a\tb${ESC}[2J\r\nc\x07d`), "a   b\ncd");
  assert.equal(sanitizeText("\tx\n12\ty"), "    x\n12  y");
  assert.ok(!sanitizeText(`${ESC}]0;evil${ESC}\\ok${ESC}`).includes(ESC));
});

Deno.test("SgrState tracks attributes and colours through resets", () => {
  const state = new SgrState();
  state.apply(`${ESC}[1m`);
  state.apply(`${ESC}[38;5;208m`);
  assert.equal(state.open(), `${ESC}[1;38;5;208m`);
  state.apply(`${ESC}[22m`);
  assert.equal(state.open(), `${ESC}[38;5;208m`);
  const copy = state.clone();
  state.apply(`${ESC}[0m`);
  assert.equal(state.active, false);
  assert.equal(state.open(), "");
  assert.equal(copy.active, true);
});

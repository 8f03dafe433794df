/**
 * cli/tui/wrap.ts: word wrapping of styled text within a width, with
 * prefixes, broken long words and styles carried across breaks.
 */

import assert from "node:assert/strict";
import { createStyle, displayWidth, SGR_RESET, stripAnsi } from "../../../cli/tui/style.ts";
import { wrap, wrapHard } from "../../../cli/tui/wrap.ts";

const ESC = "\x1b";
const style = createStyle(true);

/** A small deterministic random generator (mulberry32). */
function random(seed: number): () => number {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const WORDS = [
  "a",
  "word",
  "longer",
  "terminal",
  "漢字",
  "🎉",
  "e\u0301t\u00e9",
  "x",
  "supercalifragilistic",
];

function randomText(next: () => number, paint: boolean): { text: string; plain: string } {
  const count = 1 + Math.floor(next() * 30);
  let text = "";
  let plain = "";
  for (let i = 0; i < count; i++) {
    const word = WORDS[Math.floor(next() * WORDS.length)];
    const gap = i === 0 ? "" : next() < 0.1 ? "\n" : " ";
    const painted = paint && next() < 0.3
      ? (next() < 0.5 ? style.bold(word) : style.red(word))
      : word;
    text += gap + painted;
    plain += gap + word;
  }
  return { text, plain };
}

Deno.test("wrap breaks at spaces so each line fits the width", () => {
  assert.deepEqual(wrap("one two three four", 9), ["one two", "three", "four"]);
  assert.deepEqual(wrap("fits", 10), ["fits"]);
  assert.deepEqual(wrap("", 10), [""]);
});

Deno.test("wrap starts a new line at each newline and keeps empty lines", () => {
  assert.deepEqual(wrap("a\n\nb", 10), ["a", "", "b"]);
});

Deno.test("wrap breaks a word longer than the line", () => {
  assert.deepEqual(wrap("abcdefghij xy", 4), ["abcd", "efgh", "ij", "xy"]);
  assert.deepEqual(wrap("see https://example.com/a/long/path", 12), [
    "see",
    "https://exam",
    "ple.com/a/lo",
    "ng/path",
  ]);
});

Deno.test("wrap puts the indent before the first line and the hanging indent before the rest", () => {
  assert.deepEqual(wrap("alpha beta gamma delta", 12, { indent: "• ", hangingIndent: "  " }), [
    "• alpha beta",
    "  gamma",
    "  delta",
  ]);
  assert.deepEqual(wrap("alpha beta\ngamma", 12, { indent: "> " }), ["> alpha beta", "> gamma"]);
});

Deno.test("wrap keeps the leading spaces of a source line", () => {
  assert.deepEqual(wrap("    indented text", 40), ["    indented text"]);
  assert.deepEqual(wrap("  a b", 3), ["  a", "b"]);
});

Deno.test("wrap counts wide characters as two columns", () => {
  const lines = wrap("漢字漢字 漢字", 6);
  assert.deepEqual(lines, ["漢字漢", "字", "漢字"]);
  for (const line of lines) assert.ok(displayWidth(line) <= 6);
});

Deno.test("a style open at a break is closed at the line end and re-opened on the next line", () => {
  const lines = wrap(`plain ${style.bold("bold words that wrap")} end`, 12);
  assert.deepEqual(lines.map(stripAnsi), ["plain bold", "words that", "wrap end"]);
  assert.ok(lines[0].endsWith(SGR_RESET));
  assert.ok(lines[1].startsWith(`${ESC}[1m`));
  assert.ok(lines[1].endsWith(SGR_RESET));
  assert.ok(lines[2].startsWith(`${ESC}[1m`));
  assert.ok(!lines[2].endsWith(SGR_RESET), "the span closes itself on the last line");
});

Deno.test("a style starting a word moves with the word to the next line", () => {
  const lines = wrap(`aaaa ${style.red("bbbb")}`, 6);
  assert.equal(lines[0], "aaaa");
  assert.equal(lines[1], style.red("bbbb"));
});

Deno.test("wrapped random styled text fits every width and keeps every character", () => {
  const next = random(7);
  for (let round = 0; round < 300; round++) {
    const { text, plain } = randomText(next, true);
    const width = 4 + Math.floor(next() * 40);
    const lines = wrap(text, width, { indent: "> ", hangingIndent: "  " });
    for (const line of lines) {
      assert.ok(displayWidth(line) <= width, `${JSON.stringify(line)} fits ${width}`);
    }
    const words = (value: string) => value.split(/\s+/).filter(Boolean).join("");
    const joined = lines.map((line) => stripAnsi(line).slice(2)).join("");
    assert.equal(words(joined), words(plain));
  }
});

Deno.test("wrapHard breaks at exactly the width and keeps spaces", () => {
  assert.deepEqual(wrapHard("ab  cd  ef", 4), ["ab  ", "cd  ", "ef"]);
  assert.deepEqual(wrapHard("abcdef", 4, { indent: "│ ", hangingIndent: "┆ " }), [
    "│ ab",
    "┆ cd",
    "┆ ef",
  ]);
  const painted = wrapHard(style.green('"a long string"'), 6);
  assert.deepEqual(painted.map(stripAnsi), ['"a lon', "g stri", 'ng"']);
  assert.ok(painted[1].startsWith(`${ESC}[32m`));
  for (const line of painted) assert.ok(displayWidth(line) <= 6);
});

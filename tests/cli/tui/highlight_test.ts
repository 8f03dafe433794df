/**
 * cli/tui/highlight.ts: per-line code highlighting that never changes the
 * visible text and carries multi-line comments and strings across lines.
 */

import assert from "node:assert/strict";
import { CodeHighlighter, highlightCode } from "../../../cli/tui/highlight.ts";
import { createStyle, stripAnsi } from "../../../cli/tui/style.ts";

const style = createStyle(true);
const KEYWORD = "\x1b[35m";
const STRING = "\x1b[32m";
const NUMBER = "\x1b[33m";
const COMMENT = "\x1b[90m";

/** The visible text painted with `code` in a highlighted line. */
function painted(line: string, code: string): string[] {
  const spans: string[] = [];
  let at = line.indexOf(code);
  while (at >= 0) {
    const end = line.indexOf("\x1b[39m", at);
    spans.push(line.slice(at + code.length, end));
    at = line.indexOf(code, end);
  }
  return spans;
}

const SAMPLES: Record<string, string> = {
  ts:
    'import { x } from "./x.ts";\nconst n: number = 0x1f + 2.5e3; // note\n/* a\n b */ export class A {}\nconst t = `multi\nline ${n}`;',
  python: 'def f(x):\n    """doc\n    string"""\n    return None  # done\nprint(f"{x}", 1_000)',
  rust: "fn main() {\n    let s: &'static str = \"hi\";\n    let c = 'x';\n}",
  go: "package main\nfunc main() {\n\ts := `raw\nstring`\n}",
  sh: 'export PATH="$HOME/bin:$PATH" # path\necho ${USER} $1 foo#bar',
  json: '{\n  "name": "herald",\n  "n": 12,\n  "ok": true\n}',
  yaml: "name: herald # comment\nlist:\n  - key: 'v'\n    n: 3",
  sql: "SELECT id, name FROM users WHERE id = 3; -- one",
  diff: "--- a\n+++ b\n@@ -1 +1 @@\n-old\n+new",
  mystery: 'call("x", 42) // trailing\nfoo # hash',
};

Deno.test("highlighting keeps each line's visible text and the line count", () => {
  for (const [language, code] of Object.entries(SAMPLES)) {
    const lines = highlightCode(code, language, style);
    assert.deepEqual(lines.map(stripAnsi), code.split("\n"), language);
  }
  assert.deepEqual(highlightCode("", "ts", style), [""]);
});

Deno.test("a disabled style returns the code unchanged", () => {
  for (const [language, code] of Object.entries(SAMPLES)) {
    assert.deepEqual(highlightCode(code, language, createStyle(false)), code.split("\n"));
  }
});

Deno.test("keywords, strings, numbers and comments get their colours", () => {
  const [imports, numbers] = highlightCode(SAMPLES.ts, "typescript", style);
  assert.deepEqual(painted(imports, KEYWORD), ["import", "from"]);
  assert.deepEqual(painted(imports, STRING), ['"./x.ts"']);
  assert.deepEqual(painted(numbers, NUMBER), ["0x1f", "2.5e3"]);
  assert.deepEqual(painted(numbers, COMMENT), ["// note"]);
  const [sql] = highlightCode(SAMPLES.sql, "sql", style);
  assert.deepEqual(painted(sql, KEYWORD), ["SELECT", "FROM", "WHERE"]);
  assert.deepEqual(painted(sql, COMMENT), ["-- one"]);
});

Deno.test("a block comment and a template literal carry over to the next lines", () => {
  const lines = highlightCode(SAMPLES.ts, "ts", style);
  assert.deepEqual(painted(lines[2], COMMENT), ["/* a"]);
  assert.deepEqual(painted(lines[3], COMMENT), [" b */"]);
  assert.deepEqual(painted(lines[3], KEYWORD), ["export", "class"]);
  assert.deepEqual(painted(lines[4], STRING), ["`multi"]);
  assert.deepEqual(painted(lines[5], STRING), ["line ${n}`"]);
});

Deno.test("Python triple-quoted strings span lines and # starts a comment", () => {
  const lines = highlightCode(SAMPLES.python, "py", style);
  assert.deepEqual(painted(lines[1], STRING), ['"""doc']);
  assert.deepEqual(painted(lines[2], STRING), ['    string"""']);
  assert.deepEqual(painted(lines[3], COMMENT), ["# done"]);
  assert.deepEqual(painted(lines[3], NUMBER), ["None"]);
});

Deno.test("shell comments start only at a word and variables are marked", () => {
  const lines = highlightCode(SAMPLES.sh, "bash", style);
  assert.deepEqual(painted(lines[0], COMMENT), ["# path"]);
  assert.deepEqual(painted(lines[1], COMMENT), []);
  assert.ok(lines[1].includes("\x1b[36m${USER}"));
});

Deno.test("JSON keys and values are told apart", () => {
  const lines = highlightCode(SAMPLES.json, "json", style);
  assert.ok(lines[1].includes('\x1b[36m"name"'));
  assert.deepEqual(painted(lines[1], STRING), ['"herald"']);
  assert.deepEqual(painted(lines[3], NUMBER), ["true"]);
});

Deno.test("an unknown language gets the generic rules: strings, numbers, comments, no keywords", () => {
  const lines = highlightCode(SAMPLES.mystery, "mystery", style);
  assert.deepEqual(painted(lines[0], STRING), ['"x"']);
  assert.deepEqual(painted(lines[0], NUMBER), ["42"]);
  assert.deepEqual(painted(lines[0], COMMENT), ["// trailing"]);
  const [url] = highlightCode("see https://example.com/x", undefined, style);
  assert.deepEqual(painted(url, COMMENT), [], "the // of a URL is no comment");
  const [prose] = highlightCode("don't stop", "text", style);
  assert.equal(prose, "don't stop");
});

Deno.test("an unclosed quote on a line does not paint the rest of the block", () => {
  const lines = highlightCode("it's here\nnext = 1", undefined, style);
  assert.equal(stripAnsi(lines[0]), "it's here");
  assert.deepEqual(painted(lines[0], STRING), []);
  assert.deepEqual(painted(lines[1], NUMBER), ["1"]);
});

Deno.test("peek highlights a line without advancing, and clone copies the open state", () => {
  const highlighter = new CodeHighlighter("ts", style);
  highlighter.line("/* open");
  const copy = highlighter.clone();
  assert.deepEqual(painted(highlighter.peek("still */ const x"), COMMENT), ["still */"]);
  assert.deepEqual(painted(highlighter.peek("still */ const x"), COMMENT), ["still */"]);
  highlighter.line("done */");
  assert.deepEqual(painted(highlighter.line("const y"), KEYWORD), ["const"]);
  assert.deepEqual(painted(copy.line("x */"), COMMENT), ["x */"]);
});

Deno.test("a fence's info string picks the language by its first word", () => {
  const [line] = highlightCode("const x = 1", "ts title=demo.ts", style);
  assert.deepEqual(painted(line, KEYWORD), ["const"]);
  const [braced] = highlightCode("def f(): pass", "{.python}", style);
  assert.deepEqual(painted(braced, KEYWORD), ["def", "pass"]);
});

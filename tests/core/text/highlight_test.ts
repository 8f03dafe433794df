/**
 * core/text/highlight.ts: the tokenizer behind both highlighters. Tokens
 * always join back to the line, kinds follow the language's rules, and
 * comments and strings that span lines carry over.
 */

import assert from "node:assert/strict";
import { CodeTokenizer, type Token, tokenizeCode } from "../../../core/text/highlight.ts";

/** The texts of the tokens of `kind` in `lines`. */
function ofKind(lines: Token[][], kind: string): string[] {
  return lines.flat().filter((token) => token.kind === kind).map((token) => token.text);
}

const SAMPLES: Record<string, string> = {
  ts: 'import { x } from "./x.ts";\nconst n: number = 0x1f; // note\n/* a\n b */ class Alpha {}',
  python: 'def f(x):\n    """doc\n    string"""\n    return None  # done',
  sh: 'export PATH="$HOME/bin" # path\necho ${USER} foo#bar',
  json: '{ "name": "herald", "n": 12, "ok": true }',
  yaml: "name: herald # comment\n  - key: 'v'",
  diff: "--- a\n+++ b\n@@ -1 +1 @@\n-old\n+new\n same",
  text: "const x = 1",
  unknown: 'call("x", 42) // trailing',
};

Deno.test("tokens join back to each line, in every language", () => {
  for (const [language, code] of Object.entries(SAMPLES)) {
    const lines = tokenizeCode(code, language);
    assert.deepEqual(
      lines.map((line) => line.map((token) => token.text).join("")),
      code.split("\n"),
      language,
    );
  }
});

Deno.test("keywords, types, strings, numbers, literals and comments get their kinds", () => {
  const lines = tokenizeCode(SAMPLES.ts, "typescript");
  assert.deepEqual(ofKind(lines, "keyword"), ["import", "from", "const", "class"]);
  assert.deepEqual(ofKind(lines, "string"), ['"./x.ts"']);
  assert.deepEqual(ofKind(lines, "number"), ["0x1f"]);
  assert.deepEqual(ofKind(lines, "type"), ["number", "Alpha"]);
  assert.deepEqual(ofKind(lines, "comment"), ["// note", "/* a", " b */"]);
  assert.deepEqual(ofKind(tokenizeCode("x = true", "ts"), "literal"), ["true"]);
  assert.deepEqual(ofKind(tokenizeCode("greet(name)", "ts"), "function"), ["greet"]);
});

Deno.test("shell variables, JSON keys and YAML keys have kinds of their own", () => {
  assert.deepEqual(ofKind(tokenizeCode(SAMPLES.sh, "bash"), "variable"), ["${USER}"]);
  assert.deepEqual(ofKind(tokenizeCode(SAMPLES.json, "json"), "key"), ['"name"', '"n"', '"ok"']);
  assert.deepEqual(ofKind(tokenizeCode(SAMPLES.yaml, "yaml"), "key"), ["name", "key"]);
});

Deno.test("a diff is tokenized by whole lines", () => {
  assert.deepEqual(tokenizeCode(SAMPLES.diff, "diff"), [
    [{ text: "--- a", kind: "meta" }],
    [{ text: "+++ b", kind: "meta" }],
    [{ text: "@@ -1 +1 @@", kind: "hunk" }],
    [{ text: "-old", kind: "removed" }],
    [{ text: "+new", kind: "added" }],
    [{ text: " same" }],
  ]);
});

Deno.test("plain languages give one plain token per line", () => {
  const tokenizer = new CodeTokenizer("text");
  assert.equal(tokenizer.plain, true);
  assert.deepEqual(tokenizer.line("const x = 1"), [{ text: "const x = 1" }]);
  assert.equal(new CodeTokenizer("ts").plain, false);
});

Deno.test("a string open at the end of a line continues on the next; peek and clone leave the state", () => {
  const tokenizer = new CodeTokenizer("ts");
  tokenizer.line("const s = `one");
  assert.deepEqual(tokenizer.peek("two"), [{ text: "two", kind: "string" }]);
  const copy = tokenizer.clone();
  assert.deepEqual(tokenizer.line("two` + 1"), [
    { text: "two`", kind: "string" },
    { text: " + " },
    { text: "1", kind: "number" },
  ]);
  assert.deepEqual(tokenizer.line("x"), [{ text: "x" }]);
  assert.deepEqual(copy.line("still"), [{ text: "still", kind: "string" }]);
});

Deno.test("the language is the first word of the info string, case and braces aside", () => {
  assert.deepEqual(tokenizeCode("let", "{.TS title=x}"), [[{ text: "let", kind: "keyword" }]]);
  assert.deepEqual(tokenizeCode("let", "Rust"), [[{ text: "let", kind: "keyword" }]]);
});

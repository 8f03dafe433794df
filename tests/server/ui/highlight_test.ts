/**
 * server/ui/src/lib/highlight.ts: the on-demand highlighter tokenizes a
 * growing code block once per line and keeps the token lists of finished
 * lines, so their views are skipped.
 */

import assert from "node:assert/strict";
import { tokenizeCode } from "../../../core/text/highlight.ts";
import { LineTokens } from "../../../server/ui/src/lib/highlight.ts";

Deno.test("a growing block gives the tokens of a whole tokenize, line lists kept", () => {
  const code = "const s = `multi\nline` + 1; // c\n/* open\nclose */ let x = 2;";
  const lines = new LineTokens("ts");
  let previous: unknown[] = [];
  for (let at = 1; at <= code.length; at++) {
    const tokens = lines.update(code.slice(0, at));
    assert.deepEqual(tokens, tokenizeCode(code.slice(0, at), "ts"));
    const complete = code.slice(0, at).split("\n").length - 1;
    for (let line = 0; line < Math.min(complete, previous.length - 1); line++) {
      assert.equal(tokens[line], previous[line], `line ${line} kept at ${at}`);
    }
    previous = tokens;
  }
});

Deno.test("a block that changes other than by growing is tokenized again", () => {
  const lines = new LineTokens("py");
  lines.update('s = """open\nstill');
  assert.deepEqual(lines.update("x = 1\ny"), tokenizeCode("x = 1\ny", "py"));
});

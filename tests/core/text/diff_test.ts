/**
 * core/text/diff.ts: the line diff both the terminal and the web app draw.
 * (Its edit script and context are covered by tests/cli/tui/diff_test.ts,
 * through the TUI's re-export.) A gap keeps the lines it hides.
 */

import assert from "node:assert/strict";
import { lineDiff } from "../../../core/text/diff.ts";

const numbered = (count: number) => Array.from({ length: count }, (_, i) => `line ${i + 1}`);

Deno.test("a gap keeps the unchanged lines it stands for, with their numbers", () => {
  const before = numbered(20).join("\n");
  const after = before.replace("line 3\n", "LINE 3\n").replace("line 18", "LINE 18");
  const diff = lineDiff(before, after, 2);
  const gaps = diff.filter((line) => line.kind === "gap");
  assert.equal(gaps.length, 1);
  assert.equal(gaps[0].text, "10 unchanged lines");
  assert.deepEqual(
    gaps[0].hidden?.map((line) => [line.kind, line.text, line.oldNo, line.newNo]),
    numbered(15).slice(5).map((text, i) => ["ctx", text, i + 6, i + 6]),
  );
});

Deno.test("unfolding every gap gives the whole file back, old and new", () => {
  const before = numbered(40);
  const after = before.filter((_, i) => i % 9 !== 4).map((line, i) =>
    i % 11 === 0 ? line + "!" : line
  );
  const lines = lineDiff(before.join("\n"), after.join("\n"), 1)
    .flatMap((line) => line.kind === "gap" ? line.hidden ?? [] : [line]);
  assert.deepEqual(lines.filter((line) => line.kind !== "add").map((line) => line.text), before);
  assert.deepEqual(lines.filter((line) => line.kind !== "del").map((line) => line.text), after);
});

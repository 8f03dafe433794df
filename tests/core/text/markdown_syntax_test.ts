/**
 * core/text/markdown_syntax.ts: what a Markdown line is, for the terminal
 * and the web app alike.
 */

import assert from "node:assert/strict";
import {
  atxHeading,
  closesFence,
  delimiterAligns,
  fenceLanguage,
  fenceOpen,
  isRule,
  leadingSpaces,
  listItem,
  splitRow,
  taskBox,
} from "../../../core/text/markdown_syntax.ts";

Deno.test("fences open with three backticks or tildes and close with at least as many", () => {
  assert.deepEqual(fenceOpen("```ts title=a.ts"), { char: "`", length: 3, info: "ts title=a.ts" });
  assert.deepEqual(fenceOpen("~~~~"), { char: "~", length: 4, info: "" });
  assert.equal(fenceOpen("``"), null);
  assert.equal(fenceOpen("``` a`b"), null, "a backtick fence's info has no backtick");
  assert.equal(fenceLanguage(" ts title=a.ts"), "ts");
  assert.equal(closesFence("````  ", { char: "`", length: 3 }), true);
  assert.equal(closesFence("``", { char: "`", length: 3 }), false);
  assert.equal(closesFence("~~~", { char: "`", length: 3 }), false);
  assert.equal(closesFence("``` x", { char: "`", length: 3 }), false);
});

Deno.test("headings, rules, list items and task boxes", () => {
  assert.deepEqual(atxHeading("## Setup ##"), { level: 2, text: "Setup" });
  assert.deepEqual(atxHeading("#"), { level: 1, text: "" });
  assert.equal(atxHeading("#hashtag"), null);
  assert.equal(isRule("- - -"), true);
  assert.equal(isRule("--"), false);
  assert.deepEqual(listItem("12) twelve"), { marker: "12)", content: "twelve", ordered: true });
  assert.deepEqual(listItem("-"), { marker: "-", content: "", ordered: false });
  assert.equal(listItem("-x"), null);
  assert.deepEqual(taskBox("[X] done"), { checked: true, rest: "done" });
  assert.deepEqual(taskBox("[ ] open"), { checked: false, rest: "open" });
  assert.equal(taskBox("[x]no space"), null);
  assert.equal(leadingSpaces("   x"), 3);
});

Deno.test("table rows split at pipes outside code, and delimiter rows give alignments", () => {
  assert.deepEqual(splitRow("| a | `b|c` | d \\| e |"), ["a", "`b|c`", "d \\| e"]);
  assert.deepEqual(delimiterAligns("|:--|:-:|--:|---|", 4), ["left", "center", "right", "left"]);
  assert.equal(delimiterAligns("|---|---|", 3), null);
  assert.equal(delimiterAligns("| a | b |", 2), null);
});

/**
 * cli/tui/diff.ts: minimal line diffs with context and gaps, a bounded
 * fallback for big inputs, and their rendering with gutters and colours.
 */

import assert from "node:assert/strict";
import { type DiffLine, lineDiff, renderDiff } from "../../../cli/tui/diff.ts";
import { createStyle, displayWidth, stripAnsi } from "../../../cli/tui/style.ts";

const plain = createStyle(false);
const color = createStyle(true);

function random(seed: number): () => number {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** The old and new texts a full diff (no gaps) stands for. */
function sides(lines: DiffLine[]): { before: string[]; after: string[] } {
  return {
    before: lines.filter((line) => line.kind !== "add").map((line) => line.text),
    after: lines.filter((line) => line.kind !== "del").map((line) => line.text),
  };
}

function lcsLength(a: string[], b: string[]): number {
  const row = new Array(b.length + 1).fill(0);
  for (let i = 1; i <= a.length; i++) {
    let diagonal = 0;
    for (let j = 1; j <= b.length; j++) {
      const above = row[j];
      row[j] = a[i - 1] === b[j - 1] ? diagonal + 1 : Math.max(row[j], row[j - 1]);
      diagonal = above;
    }
  }
  return row[b.length];
}

Deno.test("equal texts have an empty diff", () => {
  assert.deepEqual(lineDiff("a\nb\n", "a\nb\n"), []);
  assert.deepEqual(lineDiff("", ""), []);
});

Deno.test("a changed line is a deletion and an addition with their line numbers", () => {
  assert.deepEqual(lineDiff("a\nb\nc\n", "a\nB\nc\n"), [
    { kind: "ctx", text: "a", oldNo: 1, newNo: 1 },
    { kind: "del", text: "b", oldNo: 2 },
    { kind: "add", text: "B", newNo: 2 },
    { kind: "ctx", text: "c", oldNo: 3, newNo: 3 },
  ]);
});

Deno.test("additions to an empty text and deletion of everything", () => {
  assert.deepEqual(lineDiff("", "x\ny"), [
    { kind: "add", text: "x", newNo: 1 },
    { kind: "add", text: "y", newNo: 2 },
  ]);
  assert.deepEqual(lineDiff("x\ny\n", ""), [
    { kind: "del", text: "x", oldNo: 1 },
    { kind: "del", text: "y", oldNo: 2 },
  ]);
});

Deno.test("unchanged runs beyond the context become gap lines", () => {
  const before = Array.from({ length: 30 }, (_, i) => `line ${i + 1}`).join("\n");
  const after = before.replace("line 15", "LINE 15");
  const diff = lineDiff(before, after, 2);
  assert.deepEqual(diff.map((line) => line.kind), [
    "gap",
    "ctx",
    "ctx",
    "del",
    "add",
    "ctx",
    "ctx",
    "gap",
  ]);
  assert.equal(diff[0].text, "12 unchanged lines");
  assert.equal(diff[1].newNo, 13);
  assert.equal(diff[7].text, "13 unchanged lines");
  assert.equal(lineDiff(before, after, 0).length, 4);
});

Deno.test("random edits give a minimal diff that rebuilds both texts", () => {
  const next = random(11);
  for (let round = 0; round < 200; round++) {
    const alphabet = ["a", "b", "c", "d", "e"];
    const make = () =>
      Array.from({ length: Math.floor(next() * 25) }, () => alphabet[Math.floor(next() * 5)]);
    const a = make();
    const b = next() < 0.5 ? make() : a.filter(() => next() < 0.8).concat(make().slice(0, 3));
    const diff = lineDiff(a.join("\n"), b.join("\n"), Infinity);
    if (a.join() === b.join()) {
      assert.deepEqual(diff, []);
      continue;
    }
    assert.deepEqual(sides(diff), { before: a, after: b });
    assert.equal(diff.filter((line) => line.kind === "ctx").length, lcsLength(a, b));
  }
});

Deno.test("big inputs are diffed within bounds and still rebuild both texts", () => {
  const next = random(3);
  const a = Array.from({ length: 3000 }, (_, i) => `row ${i} ${Math.floor(next() * 1e6)}`);
  const b = a.map((line, i) => (i % 3 === 0 ? `${line} changed` : line));
  const diff = lineDiff(a.join("\n"), b.join("\n"), Infinity);
  assert.deepEqual(sides(diff), { before: a, after: b });
  const tail = lineDiff([...a, "end"].join("\n"), [...a, "END"].join("\n"));
  assert.deepEqual(tail.map((line) => line.kind), ["gap", "ctx", "ctx", "ctx", "del", "add"]);
  assert.equal(tail[4].oldNo, 3001);
});

Deno.test("rendering shows line numbers and +/- gutters", () => {
  const lines = renderDiff(lineDiff("a\nb\nc\n", "a\nB\nc\nd\n"), plain, 40);
  assert.deepEqual(lines, ["1   a", "2 - b", "2 + B", "3   c", "4 + d"]);
});

Deno.test("added lines are green and deleted lines red", () => {
  const [, del, add] = renderDiff(lineDiff("a\nb", "a\nc"), color, 40);
  assert.equal(del, color.red("2 - b"));
  assert.equal(add, color.green("2 + c"));
});

Deno.test("rendering stops after maxLines with a count of the rest", () => {
  const diff = lineDiff("", Array.from({ length: 50 }, (_, i) => `n${i}`).join("\n"));
  const lines = renderDiff(diff, plain, 40, 10);
  assert.equal(lines.length, 11);
  assert.equal(lines[10], "… 40 more lines");
  assert.equal(renderDiff(diff, plain, 40).at(-1), "… 10 more lines");
});

Deno.test("rendered lines fit the width and carry no escape byte without colour", () => {
  const before = "short\n" + "x".repeat(200) + "\n\tindented\x1b[2J\n";
  const after = "short\n" + "y".repeat(200) + "\n\tindented\n漢字".repeat(30);
  for (const style of [plain, color]) {
    for (const line of renderDiff(lineDiff(before, after), style, 30)) {
      assert.ok(displayWidth(line) <= 30, line);
      if (!style.enabled) assert.ok(!line.includes("\x1b"), line);
      assert.ok(!stripAnsi(line).includes("\t"));
    }
  }
});

Deno.test("a gap renders as a dim count of unchanged lines", () => {
  const [gap] = renderDiff([{ kind: "gap", text: "7 unchanged lines" }], plain, 40);
  assert.equal(gap, "  ⋯ 7 unchanged lines");
});

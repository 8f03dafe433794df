/**
 * server/ui/src/lib/markdown.ts: Markdown text to the web app's blocks.
 * Structure (paragraphs across lines, nested and task lists, quotes,
 * tables, fences), streaming (a parse that reuses the previous one gives
 * the same blocks as a fresh parse, keeps finished blocks' identity, and
 * holds back what may still change) and hostile inputs that must not hang.
 */

import assert from "node:assert/strict";
import {
  type Block,
  type ParsedMarkdown,
  parseMarkdown,
} from "../../../server/ui/src/lib/markdown.ts";

const blocks = (text: string, streaming = false): readonly Block[] =>
  parseMarkdown(text, { streaming }).blocks;

const paragraph = (text: string, partial?: boolean): Block => ({
  type: "paragraph",
  content: partial ? { text, partial } : { text },
});

Deno.test("paragraphs join their lines; headings, rules and setext headings end them", () => {
  assert.deepEqual(blocks("# Title\none\n  two\n\n---\nthree\n===\n"), [
    { type: "heading", level: 1, content: { text: "Title" } },
    paragraph("one\ntwo"),
    { type: "rule" },
    { type: "heading", level: 1, content: { text: "three" } },
  ]);
});

Deno.test("lists nest, carry task boxes and lazy lines, and know tight from loose", () => {
  assert.deepEqual(blocks("- a\nlazy\n  - [x] b\n1. c"), [
    {
      type: "list",
      ordered: false,
      start: 1,
      tight: true,
      items: [{
        task: null,
        blocks: [paragraph("a\nlazy"), {
          type: "list",
          ordered: false,
          start: 1,
          tight: true,
          items: [{ task: true, blocks: [paragraph("b")] }],
        }],
      }],
    },
    {
      type: "list",
      ordered: true,
      start: 1,
      tight: true,
      items: [{ task: null, blocks: [paragraph("c")] }],
    },
  ]);
  const loose = blocks("3. one\n\n4. two")[0];
  assert.equal(loose.type === "list" && loose.tight, false);
  assert.equal(loose.type === "list" && loose.start, 3);
  assert.equal((blocks("Text:\n- item")[1] as Block).type, "list", "a bullet ends a paragraph");
  assert.deepEqual(blocks("In\n2024. it rained"), [paragraph("In\n2024. it rained")]);
});

Deno.test("a list item nested two columns in under a numbered item still nests", () => {
  const [list] = blocks("1. parent\n  - child");
  assert.equal(list.type, "list");
  const inner = list.type === "list" ? list.items[0].blocks[1] : undefined;
  assert.equal(inner?.type, "list");
});

Deno.test("quotes hold blocks; tables read alignments and keep extra cells", () => {
  assert.deepEqual(blocks("> # H\n> text\nlazy"), [{
    type: "quote",
    blocks: [{ type: "heading", level: 1, content: { text: "H" } }, paragraph("text\nlazy")],
  }]);
  assert.deepEqual(blocks("| a | b |\n|:-:|--:|\n| 1 | 2 | 3 |\n| 4 |\nafter"), [
    {
      type: "table",
      aligns: ["center", "right"],
      header: [{ text: "a" }, { text: "b" }],
      rows: [[{ text: "1" }, { text: "2 | 3" }], [{ text: "4" }, { text: "" }]],
    },
    paragraph("after"),
  ]);
});

Deno.test("fenced code keeps its text; an unclosed fence is a block in progress", () => {
  assert.deepEqual(blocks("```ts title=x\n  const a = 1;\n\n```\n~~~\nopen"), [
    { type: "code", language: "ts", code: "  const a = 1;\n", open: false },
    { type: "code", language: "", code: "open", open: true },
  ]);
  assert.deepEqual(blocks("- item\n  ```sh\n  ls\n  ```"), [{
    type: "list",
    ordered: false,
    start: 1,
    tight: true,
    items: [{
      task: null,
      blocks: [paragraph("item"), { type: "code", language: "sh", code: "ls", open: false }],
    }],
  }]);
});

Deno.test("a streamed end holds back what may still become a list item, a fence, a table or a row", () => {
  assert.deepEqual(blocks("Intro\n-", true), [paragraph("Intro", true)]);
  assert.deepEqual(blocks("Intro\n\n1", true), [paragraph("Intro", true)]);
  assert.deepEqual(blocks("Intro\n| a | b |\n", true), [paragraph("Intro", true)]);
  assert.deepEqual(blocks("Intro\n| a | b |\n|--", true), [paragraph("Intro", true)]);
  assert.deepEqual(blocks("Text\n\n```t", true), [paragraph("Text", true)]);
  assert.deepEqual(blocks("```ts\nconst a\n``", true), [
    { type: "code", language: "ts", code: "const a", open: true },
  ]);
  // A table's row shows once its line is complete.
  assert.deepEqual(blocks("| a | b |\n|---|---|\n| 1 | 2 |\n| 3", true), [{
    type: "table",
    aligns: ["left", "left"],
    header: [{ text: "a" }, { text: "b" }],
    rows: [[{ text: "1" }, { text: "2", partial: true }]],
  }]);
  // The same text, finished, shows everything.
  assert.deepEqual(blocks("Intro\n| a | b |\n"), [paragraph("Intro\n| a | b |")]);
});

const CORPUS = [
  "# Notes\n\nSome **bold** and `code`.\n\n- one\n- two\n  - three\n\n1. a\n2. b\n\n> quote\n> more\n\n" +
  "| x | y |\n|---|---|\n| 1 | 2 |\n\n```ts\nconst a = 1;\n\nlet b;\n```\n\nEnd *here*.",
  "- [ ] task\n- [x] done\n\n    indented\n\n---\nText\n---\n> - quoted list\ncontinued\n\n```\nopen",
  "a\n\n\n\nb\n| not | table\n\n~~~py\nx\n~~~\n* star\n+ plus\n\n2) two\n3) three\n\t- tabbed",
];

Deno.test("reusing the previous parse gives the same blocks as parsing from scratch, delta by delta", () => {
  for (const [index, doc] of CORPUS.entries()) {
    for (const step of [1, 3, 7]) {
      let previous: ParsedMarkdown | undefined;
      for (let at = step; at < doc.length + step; at += step) {
        const text = doc.slice(0, at);
        previous = parseMarkdown(text, { streaming: true, previous });
        assert.deepEqual(
          previous.blocks,
          blocks(text, true),
          `doc ${index}, ${JSON.stringify(text)}`,
        );
      }
      assert.deepEqual(
        parseMarkdown(doc, { previous }).blocks,
        blocks(doc),
        `doc ${index} finished`,
      );
    }
  }
});

Deno.test("blocks that can no longer change keep their identity as the text grows", () => {
  const start = "# Title\n\nOne paragraph.\n\n- two\n\nThree\n\nFour";
  const first = parseMarkdown(start, { streaming: true });
  const next = parseMarkdown(start + " and more\n\nFive", { streaming: true, previous: first });
  assert.equal(next.blocks[0], first.blocks[0]);
  assert.equal(next.blocks[1], first.blocks[1]);
  assert.deepEqual(next.blocks.slice(-2), [paragraph("Four and more"), paragraph("Five", true)]);
  assert.equal(parseMarkdown(next.text, { streaming: true, previous: next }), next);
});

Deno.test("hostile inputs parse without hanging", () => {
  const inputs = [
    "    > indented quote marker",
    ">".repeat(2000),
    "- ".repeat(2000) + "deep",
    "|\n".repeat(2000),
    "```\n".repeat(2001),
    "> - > - > - x\n".repeat(500),
    "\t\t>\t-\t[ ]\t",
  ];
  for (const input of inputs) {
    assert.ok(Array.isArray(parseMarkdown(input).blocks));
    assert.ok(Array.isArray(parseMarkdown(input, { streaming: true }).blocks));
  }
});

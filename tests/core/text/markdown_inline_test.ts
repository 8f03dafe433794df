/**
 * core/text/markdown_inline.ts: inline Markdown as nodes, for the terminal
 * and the web app. Markers with no partner stay text; a streamed (partial)
 * text closes its open spans at its end and holds back a trailing marker.
 */

import assert from "node:assert/strict";
import { type Inline, inlineText, parseInline } from "../../../core/text/markdown_inline.ts";

const text = (value: string): Inline => ({ kind: "text", text: value });

/** The visible text and every link's destination (which the terminal shows after the label). */
function withUrls(nodes: readonly Inline[]): string {
  return nodes.map((node) =>
    node.kind === "link"
      ? withUrls(node.children) + node.url
      : "children" in node
      ? withUrls(node.children)
      : node.text
  ).join("");
}

Deno.test("emphasis, strike and code spans become nodes, markers hidden", () => {
  assert.deepEqual(parseInline("a **b** *c* ~~d~~ `e`"), [
    text("a "),
    { kind: "strong", children: [text("b")] },
    text(" "),
    { kind: "em", children: [text("c")] },
    text(" "),
    { kind: "strike", children: [text("d")] },
    text(" "),
    { kind: "code", text: "e" },
  ]);
  assert.deepEqual(parseInline("***both***"), [
    { kind: "strong", children: [{ kind: "em", children: [text("both")] }] },
  ]);
});

Deno.test("links, images and autolinks keep their destination and label source", () => {
  assert.deepEqual(parseInline('[the *docs*](https://x.y/a_b "title")'), [{
    kind: "link",
    url: "https://x.y/a_b",
    source: "the *docs*",
    image: false,
    children: [text("the "), { kind: "em", children: [text("docs")] }],
  }]);
  assert.deepEqual(parseInline("![logo](l.png)")[0], {
    kind: "link",
    url: "l.png",
    source: "logo",
    image: true,
    children: [text("logo")],
  });
  assert.deepEqual(parseInline("<https://a.b>"), [{
    kind: "link",
    url: "https://a.b",
    source: "https://a.b",
    image: false,
    children: [text("https://a.b")],
  }]);
});

Deno.test("unmatched markers, intraword underscores and escapes stay as typed", () => {
  assert.deepEqual(parseInline("2 * 3 and snake_case_name"), [text("2 * 3 and snake_case_name")]);
  assert.deepEqual(parseInline("**open and `tick"), [text("**open and `tick")]);
  assert.deepEqual(parseInline("\\*not\\* [x]"), [text("*not* [x]")]);
});

Deno.test("no text is dropped: the visible text and link destinations keep every word", () => {
  const pieces = ["**", "*", "_", "~~", "`", "[", "]", "(", ")", "word", " ", "x_y", "<", ">"];
  let seed = 7;
  const next = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
  for (let n = 0; n < 500; n++) {
    let source = "";
    for (let k = 0; k < 20; k++) source += pieces[Math.floor(next() * pieces.length)];
    const shown = withUrls(parseInline(source));
    const words = source.match(/word/g)?.length ?? 0;
    assert.ok((shown.match(/word/g)?.length ?? 0) >= words, `${source} → ${shown}`);
  }
});

Deno.test("a partial text closes open spans at its end and holds back a trailing marker", () => {
  assert.deepEqual(parseInline("some **bol", { partial: true }), [
    text("some "),
    { kind: "strong", children: [text("bol")] },
  ]);
  assert.deepEqual(parseInline("run `deno", { partial: true }), [
    text("run "),
    { kind: "code", text: "deno" },
  ]);
  assert.deepEqual(parseInline("wait **", { partial: true }), [text("wait ")]);
  assert.deepEqual(parseInline("see [the docs](https://exa", { partial: true }), [
    text("see "),
    { kind: "link", url: "", source: "the docs", image: false, children: [text("the docs")] },
  ]);
  // Finished text is unchanged by the option.
  const done = "a **b** `c` [d](https://e)";
  assert.deepEqual(parseInline(done, { partial: true }), parseInline(done));
});

Deno.test("long runs of unmatched brackets and backticks parse (a line of them is not quadratic)", () => {
  const brackets = "[".repeat(20_000) + "]";
  assert.equal(inlineText(parseInline(brackets)), brackets);
  const ticks = "`` `".repeat(5_000);
  assert.equal(inlineText(parseInline(ticks)).length > 0, true);
});

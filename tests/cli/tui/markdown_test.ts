/**
 * cli/tui/markdown.ts: streamed Markdown rendered line by line for the
 * terminal: markers hidden, text kept, widths respected, streaming equal to
 * rendering at once.
 */

import assert from "node:assert/strict";
import { MarkdownStream, renderMarkdown } from "../../../cli/tui/markdown.ts";
import { createStyle, displayWidth, stripAnsi } from "../../../cli/tui/style.ts";

const plain = createStyle(false);
const color = createStyle(true);

function render(text: string, width = 60): string[] {
  return renderMarkdown(text, plain, width);
}

/** The letters and digits of a text, in order. */
function alnum(text: string): string {
  return text.replace(/[^\p{L}\p{N}]/gu, "");
}

/** True when `needle` is a subsequence of `haystack`. */
function isSubsequence(needle: string, haystack: string): boolean {
  let at = 0;
  for (const char of haystack) {
    if (char === needle[at]) at++;
    if (at === needle.length) return true;
  }
  return at === needle.length;
}

const SAMPLE = `# Release notes for **Herald**

Herald now renders *Markdown* in the terminal, with \`inline code\`, ~~old text~~ and
[links](https://example.com/docs). Snake_case_names and 2 * 3 * 4 stay as they are.

## Lists

- first item with enough words to wrap around a narrow terminal width
- second item
  - nested item
    1. deep numbered item
- [ ] open task
- [x] done task

1. one
2. two
10. ten

> A quote with **bold** text
> > and a nested quote

\`\`\`ts
const answer: number = 42; // the answer
function greet(name: string) { return \`hi \${name}\`; }
\`\`\`

~~~
plain fenced block
~~~

| Tool | Calls | Share |
| :--- | ---: | :---: |
| terminal | 12 | 60% |
| \`patch\` | 8 | 40% |

---

The end, with an unclosed **marker and a lone backtick \` here.
`;

Deno.test("headings, emphasis, code, strike and links lose their markers but keep their text", () => {
  const lines = render(
    "# Title **bold**\nSome *it* and _it2_ and `co*de*` and ~~gone~~ and [docs](https://x.dev/a) end",
    80,
  );
  assert.deepEqual(lines, [
    "Title bold",
    "Some it and it2 and co*de* and gone and docs (https://x.dev/a) end",
  ]);
});

Deno.test("unclosed markers and intraword underscores are shown as typed", () => {
  assert.deepEqual(render("an **unclosed marker and `tick"), ["an **unclosed marker and `tick"]);
  assert.deepEqual(render("snake_case_name and 2 * 3 * 4"), ["snake_case_name and 2 * 3 * 4"]);
  assert.deepEqual(render("escaped \\*stars\\* stay"), ["escaped *stars* stay"]);
  assert.deepEqual(render("***both*** and **nested *inner* text**"), [
    "both and nested inner text",
  ]);
});

Deno.test("inline styles use the style's colours", () => {
  const [line] = renderMarkdown("**b** *i* `c` ~~s~~ [l](u)", color, 80);
  assert.ok(line.includes(color.bold("b")));
  assert.ok(line.includes(color.italic("i")));
  assert.ok(line.includes(color.code("c")));
  assert.ok(line.includes(color.strike("s")));
  assert.ok(line.includes(color.link("l")));
  assert.ok(line.includes(color.muted("(u)")));
});

Deno.test("links show their text and the URL, autolinks and images too", () => {
  assert.deepEqual(render("see <https://a.dev/x> and ![logo](img.png)"), [
    "see https://a.dev/x and image: logo (img.png)",
  ]);
  assert.deepEqual(render("[https://same.dev](https://same.dev)"), ["https://same.dev"]);
  assert.deepEqual(render("[broken](link"), ["[broken](link"]);
});

Deno.test("lists get bullets, numbers, task boxes and hanging indents", () => {
  const lines = render(
    "- first item that wraps here\n  - nested\n    1. deep\n- [ ] open\n- [x] done\n3. three",
    20,
  );
  assert.deepEqual(lines, [
    "• first item that",
    "  wraps here",
    "  ◦ nested",
    "    1. deep",
    "• ☐ open",
    "• ☑ done",
    "3. three",
  ]);
});

Deno.test("a line right after a list item continues it", () => {
  assert.deepEqual(render("- item\n  more text\nlazy text\n\nafter"), [
    "• item",
    "  more text",
    "  lazy text",
    "",
    "after",
  ]);
});

Deno.test("block quotes get a gutter per level", () => {
  assert.deepEqual(render("> quoted **text**\n> > nested\n> - item"), [
    "│ quoted text",
    "│ │ nested",
    "│ • item",
  ]);
});

Deno.test("fenced code blocks are highlighted inside a border and keep their text", () => {
  const lines = render("```ts\nconst x = 1;\n  indented\n\n```\nafter");
  assert.deepEqual(lines, ["╭─ ts", "│ const x = 1;", "│   indented", "│ ", "╰─", "after"]);
  const colored = renderMarkdown("```ts\nconst x = 1;\n```", color, 40);
  assert.ok(colored[1].includes("\x1b[35mconst"));
  assert.deepEqual(render("~~~\n```not a close\n~~~"), ["╭─", "│ ```not a close", "╰─"]);
});

Deno.test("a long code line is wrapped with a continuation gutter, not cut", () => {
  const lines = render("```\nabcdefghijklmnopqrstuvwxyz\n```", 12);
  assert.deepEqual(lines, ["╭─", "│ abcdefghij", "┆ klmnopqrst", "┆ uvwxyz", "╰─"]);
});

Deno.test("an unclosed code block is closed when the answer ends", () => {
  assert.deepEqual(render("```py\nprint(1)"), ["╭─ py", "│ print(1)", "╰─"]);
});

Deno.test("a code block inside a list item keeps the item's indent", () => {
  assert.deepEqual(render("- step:\n\n  ```sh\n  npm test\n  ```\n- next"), [
    "• step:",
    "",
    "  ╭─ sh",
    "  │ npm test",
    "  ╰─",
    "• next",
  ]);
});

Deno.test("pipe tables are aligned when they fit and shown as typed when they do not", () => {
  const table = "| Name | Count |\n| :--- | ---: |\n| a | 1 |\n| long name | 22 |";
  assert.deepEqual(render(table), [
    "Name      │ Count",
    "──────────┼──────",
    "a         │     1",
    "long name │    22",
  ]);
  assert.deepEqual(render(table, 12), [
    "| Name |",
    "  Count |",
    "| :--- |",
    "  ---: |",
    "| a | 1 |",
    "| long name",
    "  | 22 |",
  ]);
  assert.deepEqual(render("a | b\nnot a delimiter"), ["a | b", "not a delimiter"]);
});

Deno.test("horizontal rules span the width and blank lines collapse to one", () => {
  assert.deepEqual(render("a\n\n\n\n---\n\n\nb", 10), ["a", "", "──────────", "", "b"]);
  assert.deepEqual(render("\n\nfirst\n\n"), ["first"]);
});

Deno.test("control characters from the model never reach the terminal", () => {
  const lines = renderMarkdown(
    "evil \x1b[2J\x1b]0;title\x07text\r\n```\n\x1b[31mred\x1b[0m\n```",
    plain,
    40,
  );
  assert.ok(lines.every((line) => !line.includes("\x1b") && !line.includes("\r")));
  assert.equal(lines[0], "evil text");
  assert.equal(lines[2], "│ red");
});

Deno.test("every rendered line fits the width, at any width", () => {
  for (const width of [8, 12, 20, 33, 60, 100]) {
    for (const style of [plain, color]) {
      for (
        const line of renderMarkdown(
          SAMPLE + "\n漢字の説明文がここにあります 🎉 emoji",
          style,
          width,
        )
      ) {
        assert.ok(displayWidth(line) <= width, `${JSON.stringify(line)} fits ${width}`);
      }
    }
  }
});

Deno.test("no source text is lost: every letter and digit appears in order", () => {
  for (const width of [10, 24, 80]) {
    const output = renderMarkdown(SAMPLE, color, width).map(stripAnsi).join("\n");
    // The only letter Markdown itself uses: the x of a checked task box.
    const source = SAMPLE.replace("[x]", "[ ]");
    assert.ok(isSubsequence(alnum(source), alnum(output)), `width ${width}`);
  }
});

Deno.test("the colourless style produces no escape byte", () => {
  for (const line of renderMarkdown(SAMPLE, plain, 50)) assert.ok(!line.includes("\x1b"), line);
});

Deno.test("push returns a line once its newline arrives, and only then", () => {
  const stream = new MarkdownStream(plain, 40);
  assert.deepEqual(stream.push("Hello **wor"), []);
  assert.deepEqual(stream.pending(), ["Hello **wor"]);
  assert.deepEqual(stream.push("ld**"), []);
  assert.deepEqual(stream.pending(), ["Hello world"]);
  assert.deepEqual(stream.push("\nnext"), ["Hello world"]);
  assert.deepEqual(stream.pending(), ["next"]);
  assert.deepEqual(stream.end(), ["next"]);
  assert.deepEqual(stream.pending(), []);
});

Deno.test("the preview of an open code block shows its last line in the gutter", () => {
  const stream = new MarkdownStream(plain, 40);
  assert.deepEqual(stream.push("```ts\nconst a = 1;\nconst b"), ["╭─ ts", "│ const a = 1;"]);
  assert.deepEqual(stream.pending(), ["│ const b"]);
  assert.deepEqual(stream.push(" = 2;\n```\n"), ["│ const b = 2;", "╰─"]);
  assert.deepEqual(stream.pending(), []);
});

Deno.test("a table is previewed while it streams and rendered aligned when it ends", () => {
  const stream = new MarkdownStream(plain, 40);
  assert.deepEqual(stream.push("| a | b |\n"), []);
  assert.deepEqual(stream.pending(), ["| a | b |"]);
  assert.deepEqual(stream.push("|---|---|\n| 1 | 2 |\n"), []);
  assert.deepEqual(stream.pending(), ["a │ b", "──┼──", "1 │ 2"]);
  assert.deepEqual(stream.push("\nafter\n"), ["a │ b", "──┼──", "1 │ 2", "", "after"]);
});

Deno.test("streaming in small deltas gives exactly the lines of rendering at once", () => {
  for (const size of [1, 3, 4, 7, 50]) {
    const stream = new MarkdownStream(color, 44);
    const lines: string[] = [];
    for (let at = 0; at < SAMPLE.length; at += size) {
      lines.push(...stream.push(SAMPLE.slice(at, at + size)));
      stream.pending();
    }
    lines.push(...stream.end());
    assert.deepEqual(lines, renderMarkdown(SAMPLE, color, 44), `deltas of ${size}`);
  }
});

Deno.test("a very long unfinished line is previewed by its start and end, and ends complete", () => {
  const words = Array.from({ length: 3000 }, (_, i) => `w${i}`).join(" ");
  const stream = new MarkdownStream(plain, 80);
  assert.deepEqual(stream.push(`- ${words}`), []);
  const preview = stream.pending();
  const shown = preview.join(" ");
  assert.ok(shown.startsWith("• w0 w1"));
  assert.ok(shown.includes(" … "));
  assert.ok(shown.endsWith("w2999"));
  assert.ok(shown.length < 4096);
  const final = [...stream.push("\n"), ...stream.end()].join(" ").replace(/\s+/g, " ");
  assert.equal(final, `• ${words}`);
});

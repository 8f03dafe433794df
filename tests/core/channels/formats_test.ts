/**
 * core/channels/formats.ts: an answer's Markdown as plain text (LINE) and
 * as Telegram Bot API HTML (only the tags it accepts, everything else
 * escaped, entities nested only as it allows).
 */

import assert from "node:assert/strict";
import {
  escapeTelegramHtml,
  markdownToPlainText,
  markdownToTelegramHtml,
} from "../../../core/channels/formats.ts";

// ---------------------------------------------------------------- plain text

Deno.test("plain text drops Markdown's markers and keeps every word", () => {
  const cases: [string, string][] = [
    ["**bold** and *italic* and _under_ and ~~gone~~", "bold and italic and under and gone"],
    ["***both*** `code` \\*escaped\\*", "both code *escaped*"],
    ["[the docs](https://x.y/a_b)", "the docs (https://x.y/a_b)"],
    ["[https://x.y](https://x.y) and <https://auto.link/a>", "https://x.y and https://auto.link/a"],
    [
      "![a chart](https://img/c.png) ![](https://img/d.png)",
      "a chart (https://img/c.png) https://img/d.png",
    ],
    ["[mail](mailto:a@b.c) [a@b.c](mailto:a@b.c)", "mail (mailto:a@b.c) a@b.c"],
    ["# Title\n## Sub ##\n###### Six", "Title\nSub\nSix"],
    ["Title\n=====\n\nSub\n---", "Title\n\nSub"],
    ["- one\n* two\n+ three", "• one\n• two\n• three"],
    ["1. one\n2) two\n10. ten", "1. one\n2) two\n10. ten"],
    ["- [ ] todo\n- [x] done", "• ☐ todo\n• ☑ done"],
    ["- top\n  - nested **b**\n    - deeper", "• top\n  • nested b\n    • deeper"],
    ["```python\nprint('*not emphasis*')\n```", "print('*not emphasis*')"],
    ["~~~\n  indented\n~~~", "  indented"],
    ["> quoted **text**\n> more\n>> deeper", "│ quoted text\n│ more\n│ │ deeper"],
    ["a\n\n---\n\nb", "a\n\n──────────\n\nb"],
    ["2 * 3 * 4 and a_b_c and **unclosed", "2 * 3 * 4 and a_b_c and **unclosed"],
    ["<b>raw html</b> & stuff", "<b>raw html</b> & stuff"],
    ["中文**粗体**和`代码` 😀🎉", "中文粗体和代码 😀🎉"],
    ["#", "#"],
    ["-", "-"],
    ["a\n\n\n\nb\n\n", "a\n\nb"],
    ["line one\r\nline two", "line one\nline two"],
    ["**bold across\nlines**", "bold across\nlines"],
  ];
  for (const [markdown, plain] of cases) {
    assert.equal(markdownToPlainText(markdown), plain, JSON.stringify(markdown));
  }
});

Deno.test("plain text keeps a table readable, row by row", () => {
  const table = "| Name | **Score** |\n|:-----|------:|\n| Ann | 10 |\n| 李 | `9` |\n| short |";
  assert.equal(markdownToPlainText(table), "Name | Score\nAnn | 10\n李 | 9\nshort |");
  assert.equal(markdownToPlainText("a | b\nnot a table"), "a | b\nnot a table");
});

Deno.test("plain text keeps code exactly, markers and all", () => {
  const code = "if (a < b && *p) {\n  return `x` + [y](z);\n}";
  assert.equal(markdownToPlainText("```c\n" + code + "\n```"), code);
  assert.equal(markdownToPlainText("```\nunclosed **fence**"), "unclosed **fence**");
});

// ------------------------------------------------------------ Telegram HTML

Deno.test("Telegram HTML draws emphasis, code, links and headings with its tags", () => {
  const cases: [string, string][] = [
    ["**b** *i* ~~s~~ `c`", "<b>b</b> <i>i</i> <s>s</s> <code>c</code>"],
    ["***both***", "<b><i>both</i></b>"],
    ["[docs](https://x.y/?a=1&b=2)", '<a href="https://x.y/?a=1&amp;b=2">docs</a>'],
    ['[q](https://x.y/"q")', '<a href="https://x.y/&quot;q&quot;">q</a>'],
    ["<https://auto.link>", '<a href="https://auto.link">https://auto.link</a>'],
    ["![chart](https://img/c.png)", '<a href="https://img/c.png">chart</a>'],
    ["[**bold** link](tg://user?id=1)", '<a href="tg://user?id=1"><b>bold</b> link</a>'],
    ["# Title *x*", "<b>Title <i>x</i></b>"],
    ["- item\n1. first\n- [x] done", "• item\n1. first\n• ☑ done"],
    ["---", "──────────"],
    ["中文**粗体** 😀", "中文<b>粗体</b> 😀"],
  ];
  for (const [markdown, html] of cases) {
    assert.equal(markdownToTelegramHtml(markdown), html, JSON.stringify(markdown));
  }
});

Deno.test("Telegram HTML escapes <, > and & everywhere, code included", () => {
  assert.equal(
    markdownToTelegramHtml("a < b && c > d <b>x</b> &amp;"),
    "a &lt; b &amp;&amp; c &gt; d &lt;b&gt;x&lt;/b&gt; &amp;amp;",
  );
  assert.equal(markdownToTelegramHtml("`<i>&`"), "<code>&lt;i&gt;&amp;</code>");
  assert.equal(
    markdownToTelegramHtml("```html\n<p>a & b</p>\n```"),
    '<pre><code class="language-html">&lt;p&gt;a &amp; b&lt;/p&gt;</code></pre>',
  );
  assert.equal(
    escapeTelegramHtml(`<a href="x">&</a>`),
    "&lt;a href=&quot;x&quot;&gt;&amp;&lt;/a&gt;",
  );
});

Deno.test("a code block's language goes in a code class only when it is a plain word", () => {
  assert.equal(markdownToTelegramHtml("```\nx\n```"), "<pre>x</pre>");
  assert.equal(
    markdownToTelegramHtml("```c++ {.numbered}\nx\n```"),
    '<pre><code class="language-c++">x</code></pre>',
  );
  assert.equal(markdownToTelegramHtml('```"><script>\nx\n```'), "<pre>x</pre>");
  assert.equal(markdownToTelegramHtml("```\n\n```"), "");
});

Deno.test("code inside bold closes and reopens the bold; inside a link it is text", () => {
  assert.equal(
    markdownToTelegramHtml("**see `config.yaml` now**"),
    "<b>see </b><code>config.yaml</code><b> now</b>",
  );
  assert.equal(markdownToTelegramHtml("**`only code`**"), "<code>only code</code>");
  assert.equal(
    markdownToTelegramHtml("_a **b `c` d** e_"),
    "<i>a <b>b </b></i><code>c</code><i><b> d</b> e</i>",
  );
  assert.equal(
    markdownToTelegramHtml("[run `ls`](https://x.y)"),
    '<a href="https://x.y">run ls</a>',
  );
  assert.equal(markdownToTelegramHtml("# The `x` flag"), "<b>The </b><code>x</code><b> flag</b>");
});

Deno.test("links Telegram would refuse are shown as text", () => {
  assert.equal(
    markdownToTelegramHtml("[click](javascript:alert(1)) [rel](docs/a.md) [x]()"),
    "click (javascript:alert(1)) rel (docs/a.md) x",
  );
});

Deno.test("a quote is one blockquote; nested quotes and quoted code are text in it", () => {
  assert.equal(
    markdownToTelegramHtml("> one **b**\n> two\n>> nested\n> ```\n> <code>\n> ```\n\nafter"),
    "<blockquote>one <b>b</b>\ntwo\nnested\n&lt;code&gt;</blockquote>\n\nafter",
  );
});

Deno.test("a table becomes an aligned pre block", () => {
  const html = markdownToTelegramHtml("| a | long header |\n|---|---|\n| 漢字 | <x> |");
  assert.equal(html, "<pre>a    | long header\n-----+------------\n漢字 | &lt;x&gt;</pre>");
});

/** Checks a Telegram HTML text: only accepted tags, balanced, code never nested in another entity. */
function assertTelegramHtml(html: string): void {
  const stack: string[] = [];
  const tags = /<(\/?)([a-z]+)([^>]*)>/g;
  const outside = html.replace(tags, "");
  assert.ok(!/[<>]/.test(outside), `a bare < or > in ${JSON.stringify(html)}`);
  assert.ok(!/&(?!(?:amp|lt|gt|quot);)/.test(outside), `a bare & in ${JSON.stringify(html)}`);
  for (const match of html.matchAll(tags)) {
    const [, closing, name, attributes] = match;
    assert.ok(["b", "i", "s", "code", "pre", "a", "blockquote"].includes(name), name);
    if (closing) {
      assert.equal(stack.pop(), name, `misnested </${name}> in ${JSON.stringify(html)}`);
      continue;
    }
    if (name === "a") assert.match(attributes, /^ href="[^"<>]*"$/);
    else if (name === "code" && stack[stack.length - 1] === "pre") {
      assert.match(attributes, /^( class="language-[\w#+.-]+")?$/);
    } else assert.equal(attributes, "");
    if (name === "code") {
      const fine = (open: string) => open === "pre" || open === "blockquote";
      assert.ok(stack.every(fine), `code inside ${stack} in ${html}`);
    }
    if (name === "blockquote" || name === "pre") assert.ok(!stack.includes(name));
    stack.push(name);
  }
  assert.deepEqual(stack, [], `unclosed tags in ${JSON.stringify(html)}`);
}

Deno.test("Telegram HTML is well formed for awkward Markdown", () => {
  const corpus = [
    "**bold `code` *it `x` al* end**",
    "[a **b `c`**](https://x.y) <b> & </b>",
    "**unclosed `code** and *lonely",
    "> quote with `code` and [link](https://q.z) and **bold**\n>> deeper",
    "- item `a<b`\n  1. **n** [l](ftp://f.g)\n\n| `t` | **u** |\n|---|---|\n| <v> | & |",
    "```\nunclosed fence <with> &",
    "# `code` heading **b**\nSetext *i*\n---",
    "Emoji 😀 **中文 `日本語` 한국어** ~~strike `c`~~",
    "***",
    "![img `x`](https://i.j/k.png) [](https://empty.label)",
  ];
  for (const markdown of corpus) assertTelegramHtml(markdownToTelegramHtml(markdown));
});

/**
 * An answer's Markdown converted to what a chat platform renders. The line
 * syntax (fences, headings, rules, list items, table rows) and the inline
 * parser are core/text's, the same the terminal and the web app use; this
 * module only groups lines into blocks and draws each block for a target:
 *
 * - {@link markdownToPlainText}: platforms that render no Markdown (LINE).
 *   Markers are dropped, links become `label (url)`, bullets become `•`,
 *   code keeps its text, tables become rows of cells joined by ` | `.
 * - {@link markdownToTelegramHtml}: Telegram's `parse_mode: "HTML"`.
 *
 * No text is dropped: a marker with no partner stays as typed.
 *
 * @example
 * ```ts
 * markdownToPlainText("## Setup\n- see [docs](https://x.y)"); // "Setup\n• see docs (https://x.y)"
 * markdownToTelegramHtml("**a** < b"); // "<b>a</b> &lt; b"
 * ```
 *
 * @module
 */

import { type Inline, parseInline } from "../text/markdown_inline.ts";
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
} from "../text/markdown_syntax.ts";

/** How one platform draws each kind of block; every method gets Markdown source. */
interface Target {
  /** A paragraph's lines (joined by "\n"), an item's content. */
  inline(source: string): string;
  heading(source: string): string;
  code(code: string, language: string): string;
  /** The quote's content with one level of `>` removed. */
  quote(inner: string): string;
  table(header: string[], rows: string[][]): string;
  rule: string;
}

const RULE_LINE = "──────────";
const SETEXT_UNDERLINE = /^(?:=+|-+)$/;

/** Converts Markdown to a target's text, block by block. */
function convert(markdown: string, target: Target): string {
  const lines = markdown.replace(/\r\n?/g, "\n").split("\n");
  const out: string[] = [];
  let paragraph: string[] = [];
  const flush = () => {
    if (paragraph.length > 0) out.push(target.inline(paragraph.join("\n")));
    paragraph = [];
  };
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i].trimEnd();
    const indent = leadingSpaces(line);
    const text = line.slice(indent);
    if (text === "") {
      flush();
      out.push("");
      continue;
    }
    const fence = fenceOpen(text);
    if (fence) {
      flush();
      const code: string[] = [];
      let j = i + 1;
      for (; j < lines.length; j++) {
        const spaces = leadingSpaces(lines[j]);
        if (closesFence(lines[j].slice(spaces), fence)) break;
        code.push(lines[j].slice(Math.min(spaces, indent)));
      }
      out.push(target.code(code.join("\n"), fenceLanguage(fence.info)));
      i = j;
      continue;
    }
    const item = listItem(text);
    if (item && item.content.trim() !== "" && !isRule(text)) {
      flush();
      const task = taskBox(item.content);
      const bullet = item.ordered ? item.marker : "•";
      const box = task ? (task.checked ? "☑ " : "☐ ") : "";
      const content = task ? task.rest : item.content;
      out.push(`${" ".repeat(indent)}${bullet} ${box}${target.inline(content)}`);
      continue;
    }
    if (indent >= 4) {
      paragraph.push(line);
      continue;
    }
    if (paragraph.length > 0 && SETEXT_UNDERLINE.test(text)) {
      out.push(target.heading(paragraph.join("\n")));
      paragraph = [];
      continue;
    }
    if (text.startsWith(">")) {
      flush();
      const inner: string[] = [];
      let j = i;
      for (; j < lines.length; j++) {
        const quoted = lines[j].trimStart();
        if (!quoted.startsWith(">") || leadingSpaces(lines[j]) >= 4) break;
        inner.push(quoted.slice(quoted.startsWith("> ") ? 2 : 1));
      }
      out.push(target.quote(inner.join("\n")));
      i = j - 1;
      continue;
    }
    const heading = atxHeading(text);
    if (heading && heading.text.trim() !== "") {
      flush();
      out.push(target.heading(heading.text));
      continue;
    }
    if (isRule(text)) {
      flush();
      out.push(target.rule);
      continue;
    }
    const header = text.includes("|") && i + 1 < lines.length ? splitRow(text) : null;
    const aligns = header ? delimiterAligns(lines[i + 1].trim(), header.length) : null;
    if (header && aligns) {
      flush();
      const rows: string[][] = [];
      let j = i + 2;
      for (; j < lines.length && lines[j].trim() !== "" && lines[j].includes("|"); j++) {
        const cells = splitRow(lines[j]);
        rows.push(header.map((_, k) => cells[k] ?? ""));
      }
      out.push(target.table(header, rows));
      i = j - 1;
      continue;
    }
    paragraph.push(line);
  }
  flush();
  return tidy(out);
}

/** Joins output lines: blank runs become one blank line, none at either end. */
function tidy(lines: string[]): string {
  const kept: string[] = [];
  for (const line of lines) {
    if (line.trim() === "" && (kept.length === 0 || kept[kept.length - 1] === "")) continue;
    kept.push(line.trim() === "" ? "" : line);
  }
  while (kept.length > 0 && kept[kept.length - 1] === "") kept.pop();
  return kept.join("\n");
}

// ---------------------------------------------------------------- plain text

/** Inline nodes as plain text: markers dropped, links as `label (url)`. */
function plainInline(nodes: readonly Inline[]): string {
  let out = "";
  for (const node of nodes) {
    if (node.kind === "text" || node.kind === "code") out += node.text;
    else if (node.kind === "link") out += linkText(plainInline(node.children), node.url);
    else out += plainInline(node.children);
  }
  return out;
}

/** A link as text: the label, then the destination in parentheses unless it says the same. */
function linkText(label: string, url: string): string {
  if (url === "" || label === url || `mailto:${label}` === url) return label || url;
  return label.trim() === "" ? url : `${label} (${url})`;
}

const PLAIN: Target = {
  inline: (source) => plainInline(parseInline(source)),
  heading: (source) => plainInline(parseInline(source)),
  code: (code) => code,
  quote: (inner) => {
    const text = convert(inner, PLAIN);
    return text === "" ? "" : text.split("\n").map((line) => `│ ${line}`.trimEnd()).join("\n");
  },
  table: (header, rows) =>
    [header, ...rows].map((row) => row.map((cell) => PLAIN.inline(cell)).join(" | ").trimEnd())
      .join("\n"),
  rule: RULE_LINE,
};

/**
 * Markdown as plain text, for platforms that render no Markdown (LINE):
 * `[label](url)` becomes `label (url)`, emphasis markers and heading hashes
 * are dropped, list bullets become `•` (numbers and task boxes `☐`/`☑`
 * kept), code fences are dropped but their code kept, quotes are prefixed
 * with `│`, and a table's rows are its cells joined by ` | `.
 *
 * @example
 * ```ts
 * markdownToPlainText("# Title\n**bold** [docs](https://x.y)"); // "Title\nbold docs (https://x.y)"
 * ```
 */
export function markdownToPlainText(markdown: string): string {
  return convert(markdown, PLAIN);
}

// ------------------------------------------------------------ Telegram HTML

/** A tag open around the text being drawn: what opens it and what closes it. */
interface OpenTag {
  open: string;
  close: string;
}

/** Link schemes Telegram opens; any other destination is shown as text. */
const TELEGRAM_LINK = /^(?:https?|tg|mailto|ftp):/i;
const LANGUAGE = /^[\w#+.-]+$/;
const EMPTY_TAG = /<(b|i|s)><\/\1>|<a href="[^"]*"><\/a>/g;
const BOLD: OpenTag = { open: "<b>", close: "</b>" };

/**
 * Escapes text for Telegram's HTML parse mode: `&`, `<` and `>` become
 * entities (the only three it requires), `"` too so the text is also safe
 * inside an attribute.
 */
export function escapeTelegramHtml(text: string): string {
  return text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(
    /"/g,
    "&quot;",
  );
}

/**
 * Inline nodes as Telegram HTML. `code` may not nest in other entities, so
 * the open tags are closed before it and reopened after it; inside a link a
 * code span is plain text (so the link stays one link).
 */
function htmlInline(nodes: readonly Inline[], open: readonly OpenTag[], inLink: boolean): string {
  let out = "";
  for (const node of nodes) {
    if (node.kind === "text") {
      out += escapeTelegramHtml(node.text);
    } else if (node.kind === "code") {
      const code = escapeTelegramHtml(node.text);
      if (inLink) out += code;
      else {
        const close = open.map((tag) => tag.close).reverse().join("");
        const reopen = open.map((tag) => tag.open).join("");
        out += `${close}<code>${code}</code>${reopen}`;
      }
    } else if (node.kind === "link") {
      const url = node.url.trim();
      if (inLink || !TELEGRAM_LINK.test(url)) {
        out += escapeTelegramHtml(linkText(plainInline(node.children), url));
      } else {
        const tag = { open: `<a href="${escapeTelegramHtml(url)}">`, close: "</a>" };
        const label = node.children.length > 0 && plainInline(node.children).trim() !== ""
          ? htmlInline(node.children, [...open, tag], true)
          : escapeTelegramHtml(url);
        out += `${tag.open}${label}${tag.close}`;
      }
    } else {
      const name = node.kind === "strong" ? "b" : node.kind === "em" ? "i" : "s";
      const tag = { open: `<${name}>`, close: `</${name}>` };
      out += `${tag.open}${htmlInline(node.children, [...open, tag], inLink)}${tag.close}`;
    }
  }
  return out;
}

/** Removes tag pairs with nothing between them (left where a code span closed and reopened tags). */
function dropEmptyTags(html: string): string {
  let out = html;
  for (let before = ""; before !== out;) {
    before = out;
    out = out.replace(EMPTY_TAG, "");
  }
  return out;
}

/** Inline Markdown as Telegram HTML inside `open` tags. */
function telegramInline(source: string, open: readonly OpenTag[] = []): string {
  return dropEmptyTags(htmlInline(parseInline(source), open, false));
}

/** The display width of a cell: East Asian wide characters and emoji take two columns. */
function cellWidth(text: string): number {
  let width = 0;
  for (const char of text) {
    width +=
      /[\u1100-\u115F\u2E80-\uA4CF\uAC00-\uD7A3\uF900-\uFAFF\uFE30-\uFE4F\uFF00-\uFF60\uFFE0-\uFFE6\u{20000}-\u{3FFFD}]|\p{Extended_Pictographic}/u
          .test(char)
        ? 2
        : /\p{M}|\u200D|\uFE0F/u.test(char)
        ? 0
        : 1;
  }
  return width;
}

/** A table as aligned columns of plain cell text (Telegram draws `pre` in a fixed-width font). */
function alignedTable(header: string[], rows: string[][]): string {
  const cells = [header, ...rows].map((row) => row.map((cell) => plainInline(parseInline(cell))));
  const widths = header.map((_, k) => Math.max(...cells.map((row) => cellWidth(row[k]))));
  const line = (row: string[]) =>
    row.map((cell, k) => cell + " ".repeat(widths[k] - cellWidth(cell))).join(" | ").trimEnd();
  const rule = widths.map((width) => "-".repeat(width)).join("-+-");
  return [line(cells[0]), rule, ...cells.slice(1).map(line)].join("\n");
}

const TELEGRAM: Target = {
  inline: (source) => telegramInline(source),
  heading: (source) => dropEmptyTags(`<b>${telegramInline(source, [BOLD])}</b>`),
  code: (code, language) => {
    if (code.trim() === "") return "";
    const escaped = escapeTelegramHtml(code);
    return LANGUAGE.test(language)
      ? `<pre><code class="language-${language}">${escaped}</code></pre>`
      : `<pre>${escaped}</pre>`;
  },
  quote: (inner) => {
    const text = convert(inner, TELEGRAM_QUOTED);
    return text === "" ? "" : `<blockquote>${text}</blockquote>`;
  },
  table: (header, rows) => `<pre>${escapeTelegramHtml(alignedTable(header, rows))}</pre>`,
  rule: RULE_LINE,
};

/** Inside a blockquote: quotes cannot nest and `pre` cannot be quoted, so both become text. */
const TELEGRAM_QUOTED: Target = {
  ...TELEGRAM,
  code: (code) => escapeTelegramHtml(code),
  quote: (inner) => convert(inner, TELEGRAM_QUOTED),
  table: (header, rows) => escapeTelegramHtml(alignedTable(header, rows)),
};

/**
 * Markdown as Telegram Bot API HTML (`parse_mode: "HTML"`). The rules it
 * follows, from https://core.telegram.org/bots/api#html-style :
 *
 * - only the tags listed there are accepted; this uses `b`, `i`, `s`,
 *   `code`, `pre` (with `<code class="language-x">` inside for the
 *   language), `a href` and `blockquote`;
 * - every `<`, `>` and `&` that is not part of a tag or an entity must be
 *   written `&lt;`, `&gt;`, `&amp;` (the named entities accepted are those
 *   three and `&quot;`), code included;
 * - entities nest only when one holds the other whole; bold, italic and
 *   strikethrough may hold and be held by any entity but `pre` and `code`;
 *   blockquotes cannot nest ("Message entities can be nested, providing
 *   following restrictions are met"). So a code span inside bold closes
 *   and reopens the bold around it, code inside a link is plain text, and
 *   a quote is one blockquote whose code blocks and nested quotes are
 *   plain text (its inline code and links stay: Telegram's own clients
 *   put them in quotes).
 *
 * Headings become bold lines, list bullets `•`, tables an aligned `pre`
 * block. Link destinations other than http(s), tg, mailto and ftp are not
 * links (Telegram refuses them) and are shown as `label (url)`.
 *
 * @example
 * ```ts
 * markdownToTelegramHtml("**see `x`** [a&b](https://x.y?a=1&b=2)");
 * // '<b>see </b><code>x</code> <a href="https://x.y?a=1&amp;b=2">a&amp;b</a>'
 * ```
 */
export function markdownToTelegramHtml(markdown: string): string {
  return convert(markdown, TELEGRAM);
}

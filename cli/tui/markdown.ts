/**
 * Streaming Markdown for the terminal. The model's answer arrives in small
 * deltas; {@link MarkdownStream} renders each source line once, when its
 * newline arrives, and hands back lines that never change (the TUI prints
 * them into the scrollback). The unfinished tail is rendered on demand as a
 * preview ({@link MarkdownStream.pending}), so the cost of a delta is the
 * cost of its own line, never of the whole answer.
 *
 * Supported: ATX headings, paragraphs (one source line at a time, wrapped),
 * bullet, numbered, nested and task lists with hanging indents, block
 * quotes, fenced code blocks (``` and ~~~) highlighted by
 * {@link CodeHighlighter} inside a dim border, horizontal rules, pipe
 * tables (aligned when they fit, else shown as typed) and the inline forms
 * of `_inline.ts`. No source text is dropped: only markers are hidden.
 *
 * @example
 * ```ts
 * const stream = new MarkdownStream(style, 80);
 * print(stream.push("# Title\nSome **bold"));
 * preview(stream.pending());
 * print(stream.push(" text**\n"));
 * print(stream.end());
 * ```
 *
 * @module
 */

import {
  atxHeading,
  closesFence,
  delimiterAligns,
  fenceOpen,
  isRule,
  leadingSpaces,
  listItem,
  splitRow,
  taskBox,
} from "../../core/text/markdown_syntax.ts";
import { renderInline } from "./_inline.ts";
import { renderTable, type Table } from "./_table.ts";
import { CodeHighlighter } from "./highlight.ts";
import { displayWidth, sanitizeText, type Style, truncate } from "./style.ts";
import { wrap, wrapHard } from "./wrap.ts";

/** An open list item: where its marker and its content sit, in the source and on screen. */
interface ListFrame {
  /** Source column of the marker. */
  indent: number;
  /** Source column of the content. */
  contentCol: number;
  /** Screen column of the content (the hanging indent). */
  outCol: number;
}

interface CodeFence {
  char: "`" | "~";
  length: number;
  /** Source indentation removed from each code line. */
  indent: number;
  /** Screen indentation (inside a list item). */
  prefix: string;
  highlighter: CodeHighlighter;
}

const BULLETS = ["•", "◦", "▪"];

/**
 * The block state of a Markdown answer read one source line at a time.
 * Cloned to render a preview of the unfinished tail without touching it.
 */
class BlockRenderer {
  readonly #style: Style;
  readonly #width: number;
  #lists: ListFrame[] = [];
  #code: CodeFence | null = null;
  #table: Table | null = null;
  /** A line that starts a table if the next line is a delimiter row. */
  #held: string | null = null;
  /** A blank line is owed before the next output. */
  #blank = false;
  /** Something was output (no blank line before the first block). */
  #started = false;
  /** The previous source line was blank. */
  #afterBlank = false;

  constructor(style: Style, width: number) {
    this.#style = style;
    this.#width = width;
  }

  clone(): BlockRenderer {
    const copy = new BlockRenderer(this.#style, this.#width);
    copy.#lists = this.#lists.slice();
    copy.#code = this.#code ? { ...this.#code, highlighter: this.#code.highlighter.clone() } : null;
    copy.#table = this.#table
      ? { ...this.#table, rows: this.#table.rows.slice(), source: this.#table.source.slice() }
      : null;
    copy.#held = this.#held;
    copy.#blank = this.#blank;
    copy.#started = this.#started;
    copy.#afterBlank = this.#afterBlank;
    return copy;
  }

  /** Reads one complete source line; returns the lines it made final. */
  line(raw: string): string[] {
    const out: string[] = [];
    const line = sanitizeText(raw);
    if (this.#code) {
      this.#codeLine(line, out);
      return out;
    }
    if (this.#table) {
      if (line.trim() !== "" && line.includes("|")) {
        this.#table.rows.push(splitRow(line));
        this.#table.source.push(line);
        return out;
      }
      this.#flushTable(out);
    }
    if (this.#held !== null) {
      const held = this.#held;
      this.#held = null;
      const header = splitRow(held);
      const aligns = delimiterAligns(line, header.length);
      if (aligns) {
        this.#table = { header, aligns, rows: [], source: [held, line] };
        return out;
      }
      this.#paragraph(held, out);
    }
    this.#block(line, out);
    return out;
  }

  /** The input ended: flushes what waits for more lines. `closeCode` draws an open block's border. */
  finish(closeCode: boolean): string[] {
    const out: string[] = [];
    if (this.#held !== null) {
      this.#paragraph(this.#held, out);
      this.#held = null;
    }
    if (this.#table) this.#flushTable(out);
    if (this.#code && closeCode) {
      this.#emit(out, [truncate(this.#code.prefix + this.#style.muted("╰─"), this.#width)]);
      this.#code = null;
    }
    return out;
  }

  /** Appends lines, after the blank line owed to the previous block. */
  #emit(out: string[], lines: string[]): void {
    if (this.#blank && this.#started) out.push("");
    this.#blank = false;
    this.#started = true;
    out.push(...lines);
  }

  #wrap(text: string, first: string, hanging: string): string[] {
    return wrap(text, this.#width, { indent: first, hangingIndent: hanging });
  }

  #block(line: string, out: string[]): void {
    const s = this.#style;
    if (line.trim() === "") {
      this.#blank = true;
      this.#afterBlank = true;
      return;
    }
    const indent = leadingSpaces(line);
    const text = line.slice(indent);
    const fence = fenceOpen(text);
    if (fence) {
      const frame = this.#frameAt(indent);
      const prefix = frame ? " ".repeat(frame.outCol) : "";
      const language = fence.info.trim();
      this.#code = {
        char: fence.char,
        length: fence.length,
        indent,
        prefix,
        highlighter: new CodeHighlighter(language || undefined, s),
      };
      const top = s.muted(language ? `╭─ ${language}` : "╭─");
      this.#emit(out, [truncate(prefix + top, this.#width)]);
      this.#afterBlank = false;
      return;
    }
    const heading = indent < 4 ? atxHeading(text) : null;
    if (heading) {
      this.#lists = [];
      const level = heading.level;
      const body = renderInline(heading.text, s);
      const painted = level === 1
        ? s.underline(s.heading(body))
        : level === 2
        ? s.heading(body)
        : s.bold(body);
      this.#emit(out, this.#wrap(painted, "", ""));
      this.#afterBlank = false;
      return;
    }
    if (isRule(text)) {
      this.#lists = [];
      this.#emit(out, [s.muted("─".repeat(Math.min(this.#width, 80)))]);
      this.#afterBlank = false;
      return;
    }
    if (text.startsWith(">")) {
      this.#quote(indent, text, out);
      this.#afterBlank = false;
      return;
    }
    const item = listItem(text);
    if (item) {
      this.#item(indent, item.marker, item.content, out);
      this.#afterBlank = false;
      return;
    }
    if (text.includes("|") && !this.#afterList()) {
      this.#held = line;
      this.#afterBlank = false;
      return;
    }
    this.#paragraph(line, out);
  }

  /** True when the line would continue a list item rather than start a table. */
  #afterList(): boolean {
    return this.#lists.length > 0 && !this.#afterBlank;
  }

  /**
   * The list item a non-item line at `indent` belongs to, trimming deeper
   * items; null (and the lists end) when it belongs to none.
   */
  #frameAt(indent: number): ListFrame | null {
    if (this.#lists.length === 0) return null;
    for (let k = this.#lists.length - 1; k >= 0; k--) {
      if (indent >= this.#lists[k].contentCol - 1 && indent > 0) {
        this.#lists.length = k + 1;
        return this.#lists[k];
      }
    }
    this.#lists = [];
    return null;
  }

  #paragraph(line: string, out: string[]): void {
    const indent = leadingSpaces(line);
    const lazy = this.#lists.length > 0 && !this.#afterBlank;
    const frame = lazy ? this.#lists[this.#lists.length - 1] : this.#frameAt(indent);
    const prefix = frame ? " ".repeat(frame.outCol) : "";
    this.#emit(out, this.#wrap(renderInline(line.slice(indent), this.#style), prefix, prefix));
    this.#afterBlank = false;
  }

  #item(indent: number, marker: string, content: string, out: string[]): void {
    const s = this.#style;
    let keep = 0;
    for (let k = this.#lists.length - 1; k >= 0; k--) {
      if (indent >= this.#lists[k].indent + 2) {
        keep = k + 1;
        break;
      }
    }
    this.#lists.length = keep;
    const parent = this.#lists[keep - 1];
    const outIndent = parent ? parent.outCol : 0;
    const ordered = /\d/.test(marker);
    const bullet = ordered ? marker : BULLETS[keep % BULLETS.length];
    let body = content;
    let box = "";
    const task = taskBox(content);
    if (task) {
      body = task.rest;
      box = task.checked ? s.success("☑") + " " : "☐ ";
    }
    const head = " ".repeat(outIndent) + s.accent(bullet) + " " + box;
    const outCol = outIndent + displayWidth(bullet) + 1 + displayWidth(box);
    this.#lists.push({ indent, contentCol: indent + marker.length + 1, outCol });
    this.#emit(out, this.#wrap(renderInline(body, s), head, " ".repeat(outCol)));
  }

  #quote(indent: number, text: string, out: string[]): void {
    const s = this.#style;
    const frame = indent > 0 ? this.#frameAt(indent) : null;
    if (indent === 0) this.#lists = [];
    let depth = 0;
    let inner = text;
    while (inner.startsWith(">")) {
      depth++;
      inner = inner.slice(1);
      if (inner.startsWith(" ")) inner = inner.slice(1);
      inner = inner.trimStart().startsWith(">") ? inner.trimStart() : inner;
    }
    const prefix = (frame ? " ".repeat(frame.outCol) : "") + s.muted("│ ".repeat(depth));
    const heading = atxHeading(inner);
    const item = listItem(inner);
    if (heading) {
      this.#emit(out, this.#wrap(s.bold(renderInline(heading.text, s)), prefix, prefix));
    } else if (item) {
      const bullet = item.ordered ? item.marker : BULLETS[0];
      const hanging = prefix + " ".repeat(displayWidth(bullet) + 1);
      const body = renderInline(item.content, s);
      this.#emit(out, this.#wrap(body, prefix + s.accent(bullet) + " ", hanging));
    } else {
      this.#emit(out, this.#wrap(s.italic(renderInline(inner, s)), prefix, prefix));
    }
  }

  #codeLine(line: string, out: string[]): void {
    const code = this.#code!;
    const s = this.#style;
    const indent = leadingSpaces(line);
    if (closesFence(line.slice(indent), code)) {
      this.#emit(out, [truncate(code.prefix + s.muted("╰─"), this.#width)]);
      this.#code = null;
      this.#afterBlank = false;
      return;
    }
    const body = line.slice(Math.min(indent, code.indent));
    this.#emit(
      out,
      wrapHard(code.highlighter.line(body), this.#width, {
        indent: code.prefix + s.muted("│ "),
        hangingIndent: code.prefix + s.muted("┆ "),
      }),
    );
  }

  #flushTable(out: string[]): void {
    const table = this.#table!;
    this.#table = null;
    const s = this.#style;
    const lines = renderTable(table, s, this.#width) ??
      table.source.flatMap((line) => this.#wrap(renderInline(line.trim(), s), "", "  "));
    this.#emit(out, lines);
  }
}

/** An unfinished line longer than this is previewed by its start and its end. */
const PREVIEW_MAX_CHARS = 4096;
const PREVIEW_HEAD_CHARS = 256;
const PREVIEW_TAIL_CHARS = 2048;

/**
 * The text a preview renders: the tail itself, or for a very long one its
 * start (which says what block it is) and its end around " … ", so a
 * preview costs the same however long the line grows. (The TUI shows the
 * last lines of a preview.)
 */
function previewText(tail: string): string {
  if (tail.length <= PREVIEW_MAX_CHARS) return tail;
  const head = tail.slice(0, PREVIEW_HEAD_CHARS);
  const end = tail.slice(-PREVIEW_TAIL_CHARS);
  const cutHead = head.lastIndexOf(" ");
  const cutEnd = end.indexOf(" ");
  return `${cutHead > 0 ? head.slice(0, cutHead) : head} … ${
    cutEnd >= 0 ? end.slice(cutEnd + 1) : end
  }`;
}

/**
 * Renders a Markdown answer as it streams. Lines returned by
 * {@link MarkdownStream.push} and {@link MarkdownStream.end} are final;
 * {@link MarkdownStream.pending} previews the rest. Every line fits
 * `width` display columns.
 */
export class MarkdownStream {
  readonly #blocks: BlockRenderer;
  #tail = "";
  #preview: string[] | null = null;

  /** A stream rendering with `style`, its lines at most `width` columns wide. */
  constructor(style: Style, width: number) {
    this.#blocks = new BlockRenderer(style, Math.max(1, Math.floor(width)));
  }

  /** Feeds a streamed delta; returns lines that are now final (rendered, wrapped) and will never change. */
  push(delta: string): string[] {
    if (delta === "") return [];
    this.#preview = null;
    const newline = delta.indexOf("\n");
    if (newline < 0) {
      this.#tail += delta;
      return [];
    }
    const out: string[] = [];
    const text = this.#tail + delta;
    let from = 0;
    for (let at = this.#tail.length + newline; at >= 0; at = text.indexOf("\n", from)) {
      out.push(...this.#blocks.line(text.slice(from, at)));
      from = at + 1;
    }
    this.#tail = text.slice(from);
    return out;
  }

  /** The rendered preview of the unfinished tail (current paragraph line / open code block's last line), may change. */
  pending(): string[] {
    if (this.#preview) return this.#preview;
    const blocks = this.#blocks.clone();
    const lines = this.#tail === "" ? [] : blocks.line(previewText(this.#tail));
    lines.push(...blocks.finish(false));
    this.#preview = lines;
    return lines;
  }

  /** The answer ended: returns the remaining final lines. */
  end(): string[] {
    const out = this.#tail === "" ? [] : this.#blocks.line(this.#tail);
    this.#tail = "";
    this.#preview = null;
    out.push(...this.#blocks.finish(true));
    return out;
  }
}

/**
 * Renders a whole Markdown text: the same lines as streaming it through
 * {@link MarkdownStream} in one push and ending.
 *
 * @example
 * ```ts
 * renderMarkdown("- **one**\n- two", createStyle(false), 40); // ["• one", "• two"]
 * ```
 */
export function renderMarkdown(text: string, style: Style, width: number): string[] {
  const stream = new MarkdownStream(style, width);
  return [...stream.push(text), ...stream.end()];
}

/**
 * Markdown text to a tree of blocks for the web app's renderer. The line
 * syntax (fences, headings, rules, list items, table rows) and the inline
 * parser are core/text's, shared with the terminal; this module groups
 * lines into the nested blocks a page shows (paragraphs joined across
 * lines, lists holding blocks, quotes, tables).
 *
 * Streaming: parsing a longer text with the previous result reuses every
 * top-level block that can no longer change and parses only the rest, so an
 * answer that grows delta by delta costs the size of its last block per
 * delta, and the reused blocks keep their identity (their views skip
 * rendering). With `streaming`, an unclosed code fence is a code block in
 * progress, the last inline text closes its open spans, and a line that may
 * turn out to start a table or a list is held back until the next line says.
 *
 * @example
 * ```ts
 * let parsed = parseMarkdown("# Title\n\nSome **bo", { streaming: true });
 * parsed = parseMarkdown("# Title\n\nSome **bold** text", { previous: parsed });
 * parsed.blocks; // heading, paragraph
 * ```
 *
 * @module
 */

import {
  type Align,
  atxHeading,
  closesFence,
  delimiterAligns,
  type Fence,
  fenceLanguage,
  fenceOpen,
  isRule,
  leadingSpaces,
  listItem,
  splitRow,
  taskBox,
} from "../../../../core/text/markdown_syntax.ts";

/** A paragraph, heading or table cell's inline source; `partial` when it may still grow. */
export interface InlineSource {
  text: string;
  partial?: boolean;
}

/** One block of a Markdown document. */
export type Block =
  | { type: "heading"; level: number; content: InlineSource }
  | { type: "paragraph"; content: InlineSource }
  /** `open`: the fence is not closed (yet). */
  | { type: "code"; language: string; code: string; open: boolean }
  | { type: "list"; ordered: boolean; start: number; tight: boolean; items: ListItem[] }
  | { type: "quote"; blocks: Block[] }
  | { type: "table"; aligns: Align[]; header: InlineSource[]; rows: InlineSource[][] }
  | { type: "rule" };

/** One item of a list: its task box (null when it has none) and its blocks. */
export interface ListItem {
  task: boolean | null;
  blocks: Block[];
}

/** A parsed text: its blocks and what a later, longer parse needs to reuse them. */
export interface ParsedMarkdown {
  readonly text: string;
  readonly streaming: boolean;
  readonly blocks: readonly Block[];
  /** Per top-level block: the line and the character offset where it starts. */
  readonly starts: readonly { line: number; offset: number }[];
  /** Lines ended by a newline. */
  readonly completeLines: number;
}

/** Options of {@link parseMarkdown}. */
export interface ParseOptions {
  /** The text is an answer still arriving. */
  streaming?: boolean;
  /** The result for a shorter text this one extends (or any earlier result, which is then ignored). */
  previous?: ParsedMarkdown;
}

/**
 * An unfinished line that says too little yet: a lone marker or number, a
 * fence whose info is still arriving, backticks that may become a fence, a
 * table row.
 */
const PENDING_LINE = /^ {0,3}(?:[-*+=_]{1,2}|\d{1,9}[.)]?|`+|~+|`{3,}.*|~{3,}.*)$|^ {0,3}\|/;
const CACHE_SIZE = 256;
/** Whole texts parsed from scratch, most recent last: a view that mounts again parses nothing. */
const cache = new Map<string, ParsedMarkdown>();

/** Parses Markdown into blocks, reusing what `previous` parsed of the same start. */
export function parseMarkdown(text: string, options: ParseOptions = {}): ParsedMarkdown {
  const streaming = options.streaming === true;
  const previous = options.previous;
  if (previous && previous.text === text && previous.streaming === streaming) return previous;
  let reuse = 0;
  if (previous && text.startsWith(previous.text)) {
    // A block is final once the first two lines of the block after it are complete.
    const last = previous.blocks.length - 1;
    while (reuse < last && previous.starts[reuse + 1].line + 2 < previous.completeLines) reuse++;
  }
  if (reuse === 0 && !streaming) {
    const hit = cache.get(text);
    if (hit) {
      cache.delete(text);
      cache.set(text, hit);
      return hit;
    }
  }
  const from = reuse > 0 ? previous!.starts[reuse] : { line: 0, offset: 0 };
  const rest = text.slice(from.offset);
  const raw = rest.split("\n");
  const offsets: number[] = [];
  let at = 0;
  for (const line of raw) {
    offsets.push(at);
    at += line.length + 1;
  }
  const lines = raw.map(expandTabs);
  // The unfinished last line of a stream may still become a list item, a fence or a table row.
  if (streaming && PENDING_LINE.test(lines[lines.length - 1])) lines.pop();
  const startLines: number[] = [];
  const blocks = parseBlocks(lines, startLines);
  if (streaming) holdUnsettled(blocks);
  const parsed: ParsedMarkdown = {
    text,
    streaming,
    blocks: reuse > 0 ? [...previous!.blocks.slice(0, reuse), ...blocks] : blocks,
    starts: [
      ...(reuse > 0 ? previous!.starts.slice(0, reuse) : []),
      ...startLines.map((line) => ({
        line: from.line + line,
        offset: from.offset + offsets[line],
      })),
    ],
    completeLines: from.line + raw.length - 1,
  };
  if (reuse === 0 && !streaming) {
    cache.set(text, parsed);
    if (cache.size > CACHE_SIZE) cache.delete(cache.keys().next().value!);
  }
  return parsed;
}

/** Leading tabs as spaces (to the next multiple of four), so indentation is counted in columns. */
function expandTabs(line: string): string {
  if (!line.startsWith("\t") && !line.startsWith(" \t") && !line.startsWith("  \t")) return line;
  let column = 0;
  let i = 0;
  for (; i < line.length && (line[i] === " " || line[i] === "\t"); i++) {
    column = line[i] === "\t" ? column + 4 - (column % 4) : column + 1;
  }
  return " ".repeat(column) + line.slice(i);
}

function isBlank(line: string): boolean {
  return line.trim() === "";
}

/** True when `lines[i]` (with `lines[i + 1]` after it) is a table's header row. */
function tableStart(lines: readonly string[], i: number): boolean {
  const line = lines[i];
  if (!line.includes("|") || i + 1 >= lines.length) return false;
  return delimiterAligns(lines[i + 1], splitRow(line).length) !== null;
}

/** True when `lines[i]` starts a block other than a paragraph (so it ends one). */
function startsBlock(lines: readonly string[], i: number): boolean {
  const line = lines[i];
  const indent = leadingSpaces(line);
  if (indent >= 4) return false;
  const text = line.slice(indent);
  if (fenceOpen(text) || atxHeading(text) || isRule(text) || text.startsWith(">")) return true;
  const item = listItem(text);
  // Only "1." (or a bullet) with content interrupts a paragraph, so "2024. was" stays text.
  if (item && item.content.trim() !== "" && (!item.ordered || parseInt(item.marker) === 1)) {
    return true;
  }
  return tableStart(lines, i);
}

const SETEXT = /^ {0,3}(=+|-+)[ \t]*$/;

/**
 * Groups lines into blocks; `starts` (when given) receives the index of
 * each block's first line.
 */
function parseBlocks(lines: readonly string[], starts?: number[]): Block[] {
  const blocks: Block[] = [];
  let i = 0;
  while (i < lines.length) {
    const line = lines[i];
    if (isBlank(line)) {
      i++;
      continue;
    }
    starts?.push(i);
    const indent = leadingSpaces(line);
    const text = line.slice(indent);
    const fence = fenceOpen(text);
    if (fence) {
      i = readCode(lines, i, indent, fence, blocks);
      continue;
    }
    const heading = indent < 4 ? atxHeading(text) : null;
    if (heading) {
      blocks.push({ type: "heading", level: heading.level, content: { text: heading.text } });
      i++;
      continue;
    }
    if (isRule(text)) {
      blocks.push({ type: "rule" });
      i++;
      continue;
    }
    if (indent < 4 && text.startsWith(">")) {
      i = readQuote(lines, i, blocks);
      continue;
    }
    if (listItem(text)) {
      i = readList(lines, i, blocks);
      continue;
    }
    if (tableStart(lines, i)) {
      i = readTable(lines, i, blocks);
      continue;
    }
    i = readParagraph(lines, i, blocks);
  }
  return blocks;
}

function readCode(
  lines: readonly string[],
  start: number,
  indent: number,
  fence: Fence,
  blocks: Block[],
): number {
  const code: string[] = [];
  let i = start + 1;
  let open = true;
  for (; i < lines.length; i++) {
    const line = lines[i];
    const spaces = leadingSpaces(line);
    if (closesFence(line.slice(spaces), fence)) {
      open = false;
      i++;
      break;
    }
    code.push(line.slice(Math.min(spaces, indent)));
  }
  blocks.push({ type: "code", language: fenceLanguage(fence.info), code: code.join("\n"), open });
  return i;
}

function readParagraph(lines: readonly string[], start: number, blocks: Block[]): number {
  const text: string[] = [lines[start].trim()];
  let i = start + 1;
  for (; i < lines.length; i++) {
    const line = lines[i];
    if (isBlank(line)) break;
    const setext = SETEXT.exec(line);
    if (setext) {
      const level = setext[1][0] === "=" ? 1 : 2;
      blocks.push({ type: "heading", level, content: { text: text.join("\n") } });
      return i + 1;
    }
    if (startsBlock(lines, i)) break;
    text.push(line.trim());
  }
  blocks.push({ type: "paragraph", content: { text: text.join("\n") } });
  return i;
}

/**
 * Lines collected for a container (a quote, a list item), with what a lazy
 * continuation line needs to know: is a paragraph open at their end (the
 * last line has text and is not inside a code fence)?
 */
class Collected {
  readonly lines: string[] = [];
  #fence: Fence | null = null;
  #paragraph = false;

  push(line: string): void {
    this.lines.push(line);
    const text = line.slice(leadingSpaces(line));
    if (this.#fence) {
      if (closesFence(text, this.#fence)) this.#fence = null;
      this.#paragraph = false;
      return;
    }
    this.#fence = fenceOpen(text);
    this.#paragraph = this.#fence === null && !isBlank(line);
  }

  /** A non-blank line that starts no block continues the open paragraph. */
  get lazyAllowed(): boolean {
    return this.#paragraph;
  }
}

function readQuote(lines: readonly string[], start: number, blocks: Block[]): number {
  const inner = new Collected();
  let i = start;
  for (; i < lines.length; i++) {
    const line = lines[i];
    const indent = leadingSpaces(line);
    if (indent < 4 && line[indent] === ">") {
      let rest = line.slice(indent + 1);
      if (rest.startsWith(" ")) rest = rest.slice(1);
      inner.push(rest);
      continue;
    }
    // A lazy continuation of the quote's paragraph.
    if (!isBlank(line) && inner.lazyAllowed && !startsBlock(lines, i)) {
      inner.push(line);
      continue;
    }
    break;
  }
  blocks.push({ type: "quote", blocks: parseBlocks(inner.lines) });
  return i;
}

/** The column an item's content starts at: after the marker and 1 to 4 spaces. */
function contentColumn(line: string, indent: number, marker: string): number {
  const after = indent + marker.length;
  let spaces = 0;
  while (line[after + spaces] === " ") spaces++;
  if (after + spaces >= line.length || spaces > 4) spaces = 1;
  return after + spaces;
}

function readList(lines: readonly string[], start: number, blocks: Block[]): number {
  const first = listItem(lines[start].slice(leadingSpaces(lines[start])))!;
  const list: Extract<Block, { type: "list" }> = {
    type: "list",
    ordered: first.ordered,
    start: first.ordered ? parseInt(first.marker) : 1,
    tight: true,
    items: [],
  };
  let i = start;
  while (i < lines.length) {
    const line = lines[i];
    const indent = leadingSpaces(line);
    const item = listItem(line.slice(indent))!;
    const column = contentColumn(line, indent, item.marker);
    // Nested content may sit at the content column or, leniently, two columns in.
    const inside = Math.min(column, indent + 2);
    const task = taskBox(item.content);
    const collected = new Collected();
    collected.push(task ? task.rest : item.content);
    let j = i + 1;
    for (; j < lines.length; j++) {
      const next = lines[j];
      if (isBlank(next)) {
        collected.push("");
        continue;
      }
      const spaces = leadingSpaces(next);
      if (spaces >= inside) {
        collected.push(next.slice(Math.min(spaces, column)));
        continue;
      }
      // A lazy continuation of the item's paragraph; any item marker is the next item instead.
      if (collected.lazyAllowed && !startsBlock(lines, j) && !listItem(next.slice(spaces))) {
        collected.push(next.slice(spaces));
        continue;
      }
      break;
    }
    const body = collected.lines;
    let blank = 0;
    while (body.length > 1 && body[body.length - 1] === "") {
      body.pop();
      blank++;
    }
    const itemBlocks = parseBlocks(body);
    if (itemBlocks.length > 1 && hasBlankBetweenBlocks(body)) list.tight = false;
    list.items.push({ task: task ? task.checked : null, blocks: itemBlocks });
    i = j;
    if (i >= lines.length) break;
    const nextIndent = leadingSpaces(lines[i]);
    const nextItem = nextIndent < 4 ? listItem(lines[i].slice(nextIndent)) : null;
    if (!nextItem || nextItem.ordered !== list.ordered) break;
    if (blank > 0) list.tight = false;
  }
  blocks.push(list);
  return i;
}

/** True when a blank line outside code fences separates an item's blocks (a loose list). */
function hasBlankBetweenBlocks(body: readonly string[]): boolean {
  let fence: Fence | null = null;
  for (const line of body) {
    const text = line.slice(leadingSpaces(line));
    if (fence) {
      if (closesFence(text, fence)) fence = null;
    } else if (isBlank(line)) return true;
    else fence = fenceOpen(text);
  }
  return false;
}

function readTable(lines: readonly string[], start: number, blocks: Block[]): number {
  const header = splitRow(lines[start]);
  const columns = header.length;
  const aligns = delimiterAligns(lines[start + 1], columns)!;
  const fit = (cells: string[]): InlineSource[] => {
    const row = cells.slice(0, columns);
    // Extra cells join the last one, so no text is dropped.
    if (cells.length > columns) row[columns - 1] = cells.slice(columns - 1).join(" | ");
    while (row.length < columns) row.push("");
    return row.map((text) => ({ text }));
  };
  const rows: InlineSource[][] = [];
  let i = start + 2;
  for (; i < lines.length; i++) {
    const line = lines[i];
    if (isBlank(line) || !line.includes("|")) break;
    rows.push(fit(splitRow(line)));
  }
  blocks.push({ type: "table", aligns, header: fit(header), rows });
  return i;
}

/** The innermost last block of a block list (into lists and quotes). */
function lastLeaf(blocks: Block[]): { owner: Block[]; block: Block } | null {
  const block = blocks[blocks.length - 1];
  if (!block) return null;
  if (block.type === "quote") return lastLeaf(block.blocks) ?? { owner: blocks, block };
  if (block.type === "list") {
    const item = block.items[block.items.length - 1];
    return (item && lastLeaf(item.blocks)) ?? { owner: blocks, block };
  }
  return { owner: blocks, block };
}

/** A paragraph's last line that may be a table's header (or its header and delimiter). */
const TABLE_LIKE = /^\|/;

/**
 * The end of a streamed answer: the last paragraph drops its last line(s)
 * while they may still turn out to be a table's start, and the last inline
 * text is marked partial.
 */
function holdUnsettled(blocks: Block[]): void {
  const leaf = lastLeaf(blocks);
  if (!leaf) return;
  const { block, owner } = leaf;
  if (block.type === "paragraph") {
    const lines = block.content.text.split("\n");
    for (let held = 0; held < 2 && lines.length > 0; held++) {
      if (!TABLE_LIKE.test(lines[lines.length - 1])) break;
      lines.pop();
    }
    if (lines.length === 0) {
      owner.splice(owner.indexOf(block), 1);
      return;
    }
    block.content = { text: lines.join("\n"), partial: true };
  } else if (block.type === "heading") {
    block.content = { ...block.content, partial: true };
  } else if (block.type === "table") {
    const row = block.rows[block.rows.length - 1];
    if (row) row[row.length - 1] = { ...row[row.length - 1], partial: true };
  }
}

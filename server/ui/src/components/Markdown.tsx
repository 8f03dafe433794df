/**
 * Markdown as Preact elements: headings, paragraphs, emphasis, inline code,
 * fenced code blocks (through {@link CodeBlock}), lists (nested and task
 * lists), quotes, tables, links and rules. Built from parsed nodes only:
 * model output and SKILL.md text never reach innerHTML, and only http(s)
 * and mailto links are clickable (in a new tab, without an opener).
 *
 * Cheap to call on every streamed delta: the parse of the previous text is
 * reused (see lib/markdown.ts), and blocks that did not change keep their
 * identity, so their views are skipped.
 */

import { Component, type ComponentChildren } from "preact";
import { useMemo, useRef } from "preact/hooks";
import { type Inline, parseInline } from "../../../../core/text/markdown_inline.ts";
import {
  type Block,
  type InlineSource,
  type ListItem,
  type ParsedMarkdown,
  parseMarkdown,
} from "../lib/markdown.ts";
import { CodeBlock } from "./CodeBlock.tsx";
import "./render.css";

/**
 * Renders Markdown text. `streaming` says the text is an answer still
 * arriving: unclosed spans close at its end and a line that may yet start a
 * table or a list waits for the next line, so no raw markup flickers.
 */
export function Markdown(props: { text: string; class?: string; streaming?: boolean }) {
  const previous = useRef<ParsedMarkdown | undefined>(undefined);
  const parsed = useMemo(
    () => parseMarkdown(props.text, { streaming: props.streaming, previous: previous.current }),
    [props.text, props.streaming],
  );
  previous.current = parsed;
  return (
    <div class={props.class ? `md ${props.class}` : "md"}>
      <Blocks blocks={parsed.blocks} />
    </div>
  );
}

function Blocks(props: { blocks: readonly Block[] }) {
  return <>{props.blocks.map((block, index) => <BlockView key={index} block={block} />)}</>;
}

/** One block; skipped when the same block object renders again. */
class BlockView extends Component<{ block: Block }> {
  override shouldComponentUpdate(next: { block: Block }): boolean {
    return next.block !== this.props.block;
  }

  override render() {
    return renderBlock(this.props.block);
  }
}

function renderBlock(block: Block): ComponentChildren {
  switch (block.type) {
    case "heading": {
      const Tag = `h${block.level}` as "h1";
      return <Tag class="md-heading">{inline(block.content)}</Tag>;
    }
    case "paragraph": {
      const content = inline(block.content);
      return content.length === 0 ? null : <p>{content}</p>;
    }
    case "code":
      return <CodeBlock code={block.code} language={block.language || undefined} />;
    case "list":
      return <ListView list={block} />;
    case "quote":
      return (
        <blockquote>
          <Blocks blocks={block.blocks} />
        </blockquote>
      );
    case "table":
      return <TableView table={block} />;
    case "rule":
      return <hr />;
  }
}

function ListView(props: { list: Extract<Block, { type: "list" }> }) {
  const { list } = props;
  const items = list.items.map((item, index) => <ItemView key={index} item={item} />);
  const className = list.tight ? "md-list md-tight" : "md-list";
  return list.ordered
    ? <ol class={className} start={list.start === 1 ? undefined : list.start}>{items}</ol>
    : <ul class={className}>{items}</ul>;
}

function ItemView(props: { item: ListItem }) {
  const { item } = props;
  if (item.task === null) {
    return (
      <li>
        <Blocks blocks={item.blocks} />
      </li>
    );
  }
  return (
    <li class="md-task">
      <input
        type="checkbox"
        checked={item.task}
        disabled
        aria-label={item.task ? "Done" : "Not done"}
      />
      <div class="md-task-body">
        <Blocks blocks={item.blocks} />
      </div>
    </li>
  );
}

function TableView(props: { table: Extract<Block, { type: "table" }> }) {
  const { table } = props;
  const align = (column: number) => {
    const value = table.aligns[column];
    return value === "left" ? undefined : { textAlign: value };
  };
  return (
    <div class="md-table" role="region" aria-label="Table" tabIndex={0}>
      <table>
        <thead>
          <tr>
            {table.header.map((cell, c) => <th key={c} style={align(c)}>{inline(cell)}</th>)}
          </tr>
        </thead>
        <tbody>
          {table.rows.map((row, r) => (
            <tr key={r}>
              {row.map((cell, c) => <td key={c} style={align(c)}>{inline(cell)}</td>)}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

function inline(source: InlineSource): ComponentChildren[] {
  return nodes(parseInline(source.text, { partial: source.partial }));
}

function nodes(list: readonly Inline[]): ComponentChildren[] {
  return list.map((node, index) => inlineNode(node, index));
}

function inlineNode(node: Inline, key: number): ComponentChildren {
  switch (node.kind) {
    case "text":
      return node.text;
    case "code":
      return <code key={key}>{node.text}</code>;
    case "strong":
      return <strong key={key}>{nodes(node.children)}</strong>;
    case "em":
      return <em key={key}>{nodes(node.children)}</em>;
    case "strike":
      return <del key={key}>{nodes(node.children)}</del>;
    case "link": {
      const label = node.children.length > 0 ? nodes(node.children) : node.url;
      const shown = node.image ? ["image: ", label] : label;
      const href = safeHref(node.url);
      if (!href) {
        return <span key={key} class="md-link-inert" title={node.url || undefined}>{shown}</span>;
      }
      return (
        <a key={key} href={href} target="_blank" rel="noopener noreferrer">
          {shown}
        </a>
      );
    }
  }
}

/** The URL when it is http(s) or mailto (the only links made clickable), else null. */
function safeHref(url: string): string | null {
  if (!/^(?:https?:\/\/|mailto:)/i.test(url)) return null;
  try {
    const parsed = new URL(url);
    return ["http:", "https:", "mailto:"].includes(parsed.protocol) ? parsed.href : null;
  } catch {
    return null;
  }
}

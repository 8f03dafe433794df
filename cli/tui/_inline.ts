/**
 * Inline Markdown of one line for the terminal: the nodes of
 * core/text/markdown_inline.ts (`code`, **bold**, *italic*, ~~strike~~,
 * links, images, autolinks, escapes) painted with the TUI's style. Markers
 * are hidden; a marker with no partner on the line is shown as typed, so no
 * text is ever dropped.
 *
 * @module
 */

import { type Inline, parseInline } from "../../core/text/markdown_inline.ts";
import type { Style } from "./style.ts";

/** Renders the inline Markdown of one line for the terminal. */
export function renderInline(text: string, style: Style): string {
  return paint(parseInline(text), style);
}

function paint(nodes: readonly Inline[], s: Style): string {
  let out = "";
  for (const node of nodes) {
    switch (node.kind) {
      case "text":
        out += node.text;
        break;
      case "code":
        out += s.code(node.text);
        break;
      case "strong":
        out += s.bold(paint(node.children, s));
        break;
      case "em":
        out += s.italic(paint(node.children, s));
        break;
      case "strike":
        out += s.strike(paint(node.children, s));
        break;
      case "link": {
        const label = paint(node.children, s);
        const shown = node.image ? `image: ${label}` : label;
        out += s.link(shown === "" ? node.url : shown);
        if (node.url !== "" && node.url !== node.source && shown !== "") {
          out += " " + s.muted(`(${node.url})`);
        }
        break;
      }
    }
  }
  return out;
}

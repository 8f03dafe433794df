/**
 * Small text helpers of the Sessions page: times, names, the words of a
 * query and Markdown read as plain text.
 */

import { inlineText, parseInline } from "../../../../../core/text/markdown_inline.ts";
import type { SessionView } from "../../../../../core/sessions/views.ts";

// Formatters are made once: making one per message would cost more than the message.
const dateTime = new Intl.DateTimeFormat(undefined, { dateStyle: "medium", timeStyle: "short" });
const timeOnly = new Intl.DateTimeFormat(undefined, { timeStyle: "short" });
const full = new Intl.DateTimeFormat(undefined, { dateStyle: "full", timeStyle: "medium" });

/** A time as people read it: the clock time today, else the date and time. */
export function formatWhen(time: number | string): string {
  const date = new Date(time);
  if (Number.isNaN(date.getTime())) return String(time);
  return date.toDateString() === new Date().toDateString()
    ? timeOnly.format(date)
    : dateTime.format(date);
}

/** The full date and time, for a tooltip. */
export function formatFull(time: number | string): string {
  const date = new Date(time);
  return Number.isNaN(date.getTime()) ? String(time) : full.format(date);
}

/** What to call a session: its title, else its first words, else its id. */
export function sessionName(session: Pick<SessionView, "id" | "title" | "preview">): string {
  return session.title || session.preview || session.id;
}

/** How a role is labelled on the page. */
export function roleLabel(role: string, toolName?: string | null): string {
  if (role === "user") return "You";
  if (role === "assistant") return "Herald";
  if (role === "tool") return toolName ? `Tool · ${toolName}` : "Tool";
  return "System";
}

/**
 * The words of a search query to mark in results: quoted phrases and bare
 * words, without FTS operators (`OR`, `AND`, `NOT`) and the trailing `*` of
 * a prefix.
 *
 * @example
 * queryTerms('deploy "dry run" OR roll*'); // ["deploy", "dry run", "roll"]
 */
export function queryTerms(query: string): string[] {
  const terms: string[] = [];
  for (const match of query.matchAll(/"([^"]+)"|(\S+)/g)) {
    const phrase = match[1];
    const word = match[2]?.replace(/^[-+(]+|[)*]+$/g, "");
    if (phrase?.trim()) terms.push(phrase.trim());
    else if (word && !/^(OR|AND|NOT|NEAR)$/.test(word)) terms.push(word);
  }
  return terms;
}

/** `text` cut to `max` characters around its first use of one of `terms`. */
export function excerpt(text: string, terms: string[], max: number): string {
  const flat = text.replace(/\s+/g, " ").trim();
  if (flat.length <= max) return flat;
  const lower = flat.toLowerCase();
  const at = terms
    .map((term) => lower.indexOf(term.toLowerCase()))
    .filter((index) => index >= 0)
    .sort((a, b) => a - b)[0] ?? 0;
  const start = Math.max(0, Math.min(at - Math.floor(max / 3), flat.length - max));
  return `${start > 0 ? "…" : ""}${flat.slice(start, start + max)}${
    start + max < flat.length ? "…" : ""
  }`;
}

const FENCE = /^\s{0,3}(```|~~~)/;
const BLOCK_MARKERS = /^\s{0,3}(?:#{1,6}\s+|>\s?)+/;
const LIST_MARKER = /^\s*(?:[-*+]|\d{1,9}[.)])\s+(?:\[[ xX]\]\s+)?/;

/**
 * Markdown as the text it reads as, for a one-line excerpt: the markers of
 * emphasis, code, links, headings, quotes and list items dropped, fence
 * lines left out (the code inside them kept as written).
 *
 * @example
 * plainText("## Plan\n- the **three** `baskets`"); // "Plan\nthe three baskets"
 */
export function plainText(markdown: string): string {
  const lines: string[] = [];
  let fenced = false;
  for (const line of markdown.split(/\r?\n|\r/)) {
    if (FENCE.test(line)) {
      fenced = !fenced;
      continue;
    }
    if (fenced) lines.push(line);
    else {lines.push(
        inlineText(parseInline(line.replace(BLOCK_MARKERS, "").replace(LIST_MARKER, ""))),
      );}
  }
  return lines.join("\n");
}

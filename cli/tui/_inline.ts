/**
 * Inline Markdown of one line: `code`, **bold**, *italic* / _italic_,
 * ~~strike~~, [links](url), ![images](url), <autolinks> and backslash
 * escapes. Markers are hidden; a marker with no partner on the line is
 * shown as typed, so no text is ever dropped.
 *
 * @module
 */

import type { Style } from "./style.ts";

const PUNCTUATION = /[!-/:-@[-`{-~]/;
const ALNUM = /[\p{L}\p{N}]/u;
const SPACE = /\s/;

function isPunct(char: string | undefined): boolean {
  return char !== undefined && PUNCTUATION.test(char);
}

function isSpace(char: string | undefined): boolean {
  return char === undefined || SPACE.test(char);
}

function isAlnum(char: string | undefined): boolean {
  return char !== undefined && ALNUM.test(char);
}

function runLength(text: string, at: number, char: string): number {
  let end = at;
  while (text[end] === char) end++;
  return end - at;
}

/** Renders the inline Markdown of one line for the terminal. */
export function renderInline(text: string, style: Style): string {
  return new InlineParser(text, style).render(0, text.length);
}

class InlineParser {
  readonly #src: string;
  readonly #style: Style;
  /** Delimiters whose search for a closer failed from this index to the end of the line. */
  readonly #noCloser = new Map<string, number>();

  constructor(src: string, style: Style) {
    this.#src = src;
    this.#style = style;
  }

  render(start: number, end: number): string {
    const src = this.#src;
    const s = this.#style;
    let out = "";
    let i = start;
    while (i < end) {
      const c = src[i];
      if (c === "\\" && i + 1 < end && isPunct(src[i + 1])) {
        out += src[i + 1];
        i += 2;
        continue;
      }
      if (c === "`") {
        const run = runLength(src, i, "`");
        const close = this.#codeClose(i + run, end, run);
        if (close < 0) {
          out += src.slice(i, i + run);
          i += run;
          continue;
        }
        let code = src.slice(i + run, close);
        if (code.length > 2 && code.startsWith(" ") && code.endsWith(" ")) code = code.slice(1, -1);
        out += s.code(code);
        i = close + run;
        continue;
      }
      if ((c === "[" || (c === "!" && src[i + 1] === "[")) && i + 1 < end) {
        const image = c === "!";
        const link = this.#link(image ? i + 1 : i, end);
        if (link) {
          const label = this.render(link.textStart, link.textEnd);
          const shown = image ? `image: ${label}` : label;
          const plainLabel = src.slice(link.textStart, link.textEnd);
          out += s.link(shown === "" ? link.url : shown);
          if (link.url !== "" && link.url !== plainLabel && shown !== "") {
            out += " " + s.muted(`(${link.url})`);
          }
          i = link.end;
          continue;
        }
      }
      if (c === "<") {
        const auto = /^<((?:https?|mailto|ftp):[^\s<>]+)>/.exec(
          src.slice(i, Math.min(end, i + 2048)),
        );
        if (auto) {
          out += s.link(auto[1]);
          i += auto[0].length;
          continue;
        }
      }
      if (c === "*" || c === "_" || c === "~") {
        const emphasis = this.#emphasis(i, end);
        if (emphasis) {
          out += emphasis.rendered;
          i = emphasis.end;
          continue;
        }
        const run = runLength(src, i, c);
        out += src.slice(i, Math.min(end, i + run));
        i += run;
        continue;
      }
      let next = i + 1;
      while (next < end && !"\\`[!<*_~".includes(src[next])) next++;
      out += src.slice(i, next);
      i = next;
    }
    return out;
  }

  /** The start of the backtick run of exactly `run` ticks closing a code span, or -1. */
  #codeClose(from: number, end: number, run: number): number {
    const src = this.#src;
    for (let j = src.indexOf("`", from); j >= 0 && j < end; j = src.indexOf("`", j)) {
      const length = runLength(src, j, "`");
      if (length === run && j + length <= end) return j;
      j += length;
    }
    return -1;
  }

  /** After a backtick at `j`: the index past its code span, or j + 1 when it opens none. */
  #skipCode(j: number, end: number): number {
    const run = runLength(this.#src, j, "`");
    const close = this.#codeClose(j + run, end, run);
    return close < 0 ? j + run : close + run;
  }

  #link(
    open: number,
    end: number,
  ): { textStart: number; textEnd: number; url: string; end: number } | null {
    const src = this.#src;
    let depth = 0;
    let j = open;
    for (; j < end; j++) {
      const c = src[j];
      if (c === "\\") j++;
      else if (c === "`") j = this.#skipCode(j, end) - 1;
      else if (c === "[") depth++;
      else if (c === "]" && --depth === 0) break;
    }
    if (j >= end || src[j + 1] !== "(") return null;
    const textEnd = j;
    let parens = 0;
    let k = j + 1;
    for (; k < end; k++) {
      const c = src[k];
      if (c === "\\") k++;
      else if (c === "(") parens++;
      else if (c === ")" && --parens === 0) break;
    }
    if (k >= end) return null;
    const inside = src.slice(textEnd + 2, k).trim();
    const url = (/^<([^>]*)>/.exec(inside)?.[1] ?? inside.split(/\s+/)[0] ?? "").trim();
    const title = inside.slice(inside.indexOf(url) + url.length).trim();
    return {
      textStart: open + 1,
      textEnd,
      url: title === "" || /^(?:".*"|'.*'|\(.*\))$/.test(title) ? url : inside,
      end: k + 1,
    };
  }

  #emphasis(i: number, end: number): { rendered: string; end: number } | null {
    const src = this.#src;
    const s = this.#style;
    const char = src[i];
    const run = Math.min(runLength(src, i, char), end - i);
    if (char === "~") {
      if (run !== 2) return null;
      const close = this.#closer(i, 2, end, "~");
      return close < 0 ? null : { rendered: s.strike(this.render(i + 2, close)), end: close + 2 };
    }
    for (let length = Math.min(run, 3); length >= 1; length--) {
      const before = src[i - 1];
      const after = src[i + length];
      const leftFlanking = !isSpace(after) &&
        (!isPunct(after) || isSpace(before) || isPunct(before));
      if (!leftFlanking || (char === "_" && isAlnum(before))) continue;
      const close = this.#closer(i, length, end, char);
      if (close < 0 || close === i + length) continue;
      const inner = this.render(i + length, close);
      const rendered = length === 3
        ? s.bold(s.italic(inner))
        : length === 2
        ? s.bold(inner)
        : s.italic(inner);
      return { rendered, end: close + length };
    }
    return null;
  }

  /** Where `length` delimiter chars close the span opened at `open`, or -1. */
  #closer(open: number, length: number, end: number, char: string): number {
    const src = this.#src;
    const key = char + length;
    const failedFrom = this.#noCloser.get(key);
    if (end === src.length && failedFrom !== undefined && open >= failedFrom) return -1;
    let j = open + length;
    while (j < end) {
      const c = src[j];
      if (c === "\\") {
        j += 2;
        continue;
      }
      if (c === "`") {
        j = this.#skipCode(j, end);
        continue;
      }
      if (c !== char) {
        j++;
        continue;
      }
      const run = Math.min(runLength(src, j, char), end - j);
      if (run >= length && (char !== "~" || run === length)) {
        const at = j + run - length;
        const before = src[at - 1];
        const after = at + length < end ? src[at + length] : undefined;
        const rightFlanking = !isSpace(before) &&
          (!isPunct(before) || isSpace(after) || isPunct(after));
        if (rightFlanking && at > open + length && !(char === "_" && isAlnum(after))) return at;
      }
      j += run;
    }
    if (end === src.length) {
      this.#noCloser.set(key, Math.min(open, failedFrom ?? open));
    }
    return -1;
  }
}

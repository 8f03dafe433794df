/**
 * Inline Markdown, shared by the terminal and the web app: `code`,
 * **bold**, *italic* / _italic_, ~~strike~~, [links](url), ![images](url),
 * <autolinks> and backslash escapes, parsed into a small tree of
 * {@link Inline} nodes that each surface draws its own way. A marker with
 * no partner is kept as text, so no text is ever dropped.
 *
 * With `partial` (the text is the unfinished end of a streamed answer),
 * openers still waiting for their closer are closed at the end and a
 * trailing marker run is held back, so markup never flashes as typed.
 *
 * @example
 * ```ts
 * parseInline("a **b** `c`");
 * // [{ kind: "text", text: "a " }, { kind: "strong", children: [{ kind: "text", text: "b" }] },
 * //  { kind: "text", text: " " }, { kind: "code", text: "c" }]
 * ```
 *
 * @module
 */

/** One piece of inline Markdown. */
export type Inline =
  | { kind: "text"; text: string }
  | { kind: "code"; text: string }
  | { kind: "strong" | "em" | "strike"; children: Inline[] }
  | {
    kind: "link";
    /** The destination as written ("" while a streamed link is unfinished). */
    url: string;
    /** The label's source text (for an autolink, the URL). */
    source: string;
    /** `![alt](url)`: an image, shown as a link. */
    image: boolean;
    children: Inline[];
  };

/** Options of {@link parseInline}. */
export interface InlineOptions {
  /** The text may still grow (streaming): close open spans at its end, hold back a trailing marker. */
  partial?: boolean;
}

const PUNCTUATION = /[!-/:-@[-`{-~]/;
const ALNUM = /[\p{L}\p{N}]/u;
const SPACE = /\s/;
const AUTOLINK = /^<((?:https?|mailto|ftp):[^\s<>]+)>/;
/** A link's text is looked for this far: a line of brackets costs linear time, not quadratic. */
const MAX_LINK_TEXT = 1000;

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

/** Appends text, joining it to a text node before it. */
function pushText(out: Inline[], text: string): void {
  if (text === "") return;
  const last = out[out.length - 1];
  if (last?.kind === "text") last.text += text;
  else out.push({ kind: "text", text });
}

/**
 * Parses inline Markdown (one line or a paragraph's lines joined by "\n")
 * into nodes. Linear in practice: a failed search for a closing delimiter
 * is remembered, so a line of unmatched markers is not searched again.
 */
export function parseInline(text: string, options: InlineOptions = {}): Inline[] {
  return new InlineParser(text, options.partial === true).parse(0, text.length);
}

/** The visible text of inline nodes (no markers): for labels, titles and tests. */
export function inlineText(nodes: readonly Inline[]): string {
  let out = "";
  for (const node of nodes) out += "children" in node ? inlineText(node.children) : node.text;
  return out;
}

class InlineParser {
  readonly #src: string;
  readonly #partial: boolean;
  /** Delimiters whose search for a closer failed from this index to the end of the text. */
  readonly #noCloser = new Map<string, number>();
  /** Backtick run lengths whose search for a closing run failed from this index to the end. */
  readonly #noCodeClose = new Map<number, number>();

  constructor(src: string, partial: boolean) {
    this.#src = src;
    this.#partial = partial;
  }

  /** True when `end` is the end of a text that may still grow. */
  #growing(end: number): boolean {
    return this.#partial && end === this.#src.length;
  }

  parse(start: number, end: number): Inline[] {
    const src = this.#src;
    const out: Inline[] = [];
    let i = start;
    while (i < end) {
      const c = src[i];
      if (c === "\\" && i + 1 < end && isPunct(src[i + 1])) {
        pushText(out, src[i + 1]);
        i += 2;
        continue;
      }
      if (c === "`") {
        const run = runLength(src, i, "`");
        const close = this.#codeClose(i + run, end, run);
        if (close < 0) {
          if (this.#growing(end)) {
            // An open code span of a streamed answer: code up to the end.
            if (i + run < end) out.push({ kind: "code", text: src.slice(i + run, end) });
            break;
          }
          pushText(out, src.slice(i, i + run));
          i += run;
          continue;
        }
        let code = src.slice(i + run, close);
        if (code.length > 2 && code.startsWith(" ") && code.endsWith(" ")) code = code.slice(1, -1);
        out.push({ kind: "code", text: code });
        i = close + run;
        continue;
      }
      if ((c === "[" || (c === "!" && src[i + 1] === "[")) && i + 1 < end) {
        const image = c === "!";
        const link = this.#link(image ? i + 1 : i, end);
        if (link) {
          out.push({
            kind: "link",
            url: link.url,
            source: src.slice(link.textStart, link.textEnd),
            image,
            children: this.parse(link.textStart, link.textEnd),
          });
          i = link.end;
          continue;
        }
      }
      if (c === "<") {
        const auto = AUTOLINK.exec(src.slice(i, Math.min(end, i + 2048)));
        if (auto) {
          const url = auto[1];
          out.push({
            kind: "link",
            url,
            source: url,
            image: false,
            children: [{ kind: "text", text: url }],
          });
          i += auto[0].length;
          continue;
        }
      }
      if (c === "*" || c === "_" || c === "~") {
        const run = runLength(src, i, c);
        // A streamed answer's trailing marker may open a span: hold it back.
        if (i + run >= end && this.#growing(end)) break;
        const emphasis = this.#emphasis(i, end);
        if (emphasis) {
          out.push(emphasis.node);
          i = emphasis.end;
          continue;
        }
        pushText(out, src.slice(i, Math.min(end, i + run)));
        i += run;
        continue;
      }
      let next = i + 1;
      while (next < end && !"\\`[!<*_~".includes(src[next])) next++;
      pushText(out, src.slice(i, next));
      i = next;
    }
    return out;
  }

  /** The start of the backtick run of exactly `run` ticks closing a code span, or -1. */
  #codeClose(from: number, end: number, run: number): number {
    const src = this.#src;
    const whole = end === src.length;
    const failedFrom = this.#noCodeClose.get(run);
    if (whole && failedFrom !== undefined && from >= failedFrom) return -1;
    for (let j = src.indexOf("`", from); j >= 0 && j < end; j = src.indexOf("`", j)) {
      const length = runLength(src, j, "`");
      if (length === run && j + length <= end) return j;
      j += length;
    }
    if (whole) this.#noCodeClose.set(run, Math.min(from, failedFrom ?? from));
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
    const limit = Math.min(end, open + MAX_LINK_TEXT);
    for (; j < limit; j++) {
      const c = src[j];
      if (c === "\\") j++;
      else if (c === "`") j = this.#skipCode(j, end) - 1;
      else if (c === "[") depth++;
      else if (c === "]" && --depth === 0) break;
    }
    if (j >= limit) return null;
    const growing = this.#growing(end);
    // A streamed "[label]" or "[label](dest" still waiting for the rest: the label, not yet a link.
    const unfinished = { textStart: open + 1, textEnd: j, url: "", end };
    if (src[j + 1] !== "(") return growing && j + 1 === end ? unfinished : null;
    const textEnd = j;
    let parens = 0;
    let k = j + 1;
    for (; k < end; k++) {
      const c = src[k];
      if (c === "\\") k++;
      else if (c === "(") parens++;
      else if (c === ")" && --parens === 0) break;
    }
    if (k >= end) return growing ? unfinished : null;
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

  #emphasis(i: number, end: number): { node: Inline; end: number } | null {
    const src = this.#src;
    const char = src[i];
    const run = Math.min(runLength(src, i, char), end - i);
    if (char === "~") {
      if (run !== 2) return null;
      const close = this.#closer(i, 2, end, "~");
      return close < 0
        ? null
        : { node: { kind: "strike", children: this.parse(i + 2, close) }, end: close + 2 };
    }
    for (let length = Math.min(run, 3); length >= 1; length--) {
      const before = src[i - 1];
      const after = src[i + length];
      const leftFlanking = !isSpace(after) &&
        (!isPunct(after) || isSpace(before) || isPunct(before));
      if (!leftFlanking || (char === "_" && isAlnum(before))) continue;
      const close = this.#closer(i, length, end, char);
      if (close < 0 || close === i + length) continue;
      const inner = this.parse(i + length, close);
      const node: Inline = length === 3
        ? { kind: "strong", children: [{ kind: "em", children: inner }] }
        : length === 2
        ? { kind: "strong", children: inner }
        : { kind: "em", children: inner };
      return { node, end: close + length };
    }
    return null;
  }

  /**
   * Where `length` delimiter chars close the span opened at `open`, or -1.
   * In a growing text a span with no closer closes at the end.
   */
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
    if (this.#growing(end)) return end;
    if (end === src.length) {
      this.#noCloser.set(key, Math.min(open, failedFrom ?? open));
    }
    return -1;
  }
}

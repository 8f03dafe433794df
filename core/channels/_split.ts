/**
 * Splitting text into parts no longer than a platform's limit, for
 * reply.ts: the best boundary that fits (paragraph, line, sentence, word,
 * grapheme), code fences closed and reopened across a cut. Lengths are
 * UTF-16 code units.
 *
 * @module
 */

import { closesFence, fenceOpen, leadingSpaces } from "../text/markdown_syntax.ts";

/** An open code fence at a cut: what reopens it in the next part and what closes it in this one. */
interface OpenFence {
  /** The opening line as written (its indentation removed). */
  opener: string;
  /** Index where the opening line starts. */
  openerStart: number;
  closer: string;
  /** Index where the fence's body starts (after the opening line's break). */
  bodyStart: number;
  /** Index where the closing line starts, or Infinity when it is not in sight. */
  closeStart: number;
  /** Index past the closing line's break. */
  closeEnd: number;
}

/** The fenced code blocks of `text` that start before `end`. */
function fencesBefore(text: string, end: number): OpenFence[] {
  const found: OpenFence[] = [];
  let open: (OpenFence & { char: "`" | "~"; length: number }) | null = null;
  let at = 0;
  while (at < text.length && (at < end || open)) {
    const next = text.indexOf("\n", at);
    const lineEnd = next < 0 ? text.length : next;
    const line = text.slice(at, lineEnd);
    const body = line.slice(leadingSpaces(line));
    if (open) {
      if (closesFence(body, open)) {
        open.closeStart = at;
        open.closeEnd = next < 0 ? text.length : next + 1;
        found.push(open);
        open = null;
      }
    } else {
      const fence = fenceOpen(body);
      if (fence) {
        open = {
          opener: body.trimEnd(),
          openerStart: at,
          closer: fence.char.repeat(fence.length),
          char: fence.char,
          length: fence.length,
          bodyStart: next < 0 ? text.length : next + 1,
          closeStart: Infinity,
          closeEnd: Infinity,
        };
      }
    }
    if (next < 0) break;
    at = next + 1;
    // A fence still open far past the window will be reopened anyway: stop looking.
    if (open && at > end) break;
  }
  if (open) found.push(open);
  return found;
}

/** The fence a part ending at `cut` leaves open, if any. */
function fenceOpenAt(fences: readonly OpenFence[], cut: number): OpenFence | undefined {
  return fences.find((fence) => fence.bodyStart <= cut && cut <= fence.closeStart);
}

type Level = "paragraph" | "line" | "sentence" | "word" | "hard";

const SENTENCE_END = /[.!?…]["'”’)\]]*(?=\s)|[。！？]/g;
const WORD_BREAK = /[ \t]|[，、；：]/g;
const graphemes = new Intl.Segmenter(undefined, { granularity: "grapheme" });

/** Candidate cut positions of one level in `text[0..max]`, best (last) first. */
function candidates(text: string, max: number, level: Exclude<Level, "hard">): number[] {
  const window = text.slice(0, max + 1);
  const found: number[] = [];
  if (level === "paragraph") {
    for (const match of window.matchAll(/\n[ \t]*\n/g)) found.push(match.index);
  } else if (level === "line") {
    for (const match of window.matchAll(/\n/g)) found.push(match.index);
  } else if (level === "sentence") {
    for (const match of window.matchAll(SENTENCE_END)) found.push(match.index + match[0].length);
  } else {
    for (const match of window.matchAll(WORD_BREAK)) {
      found.push(match[0] === " " || match[0] === "\t" ? match.index : match.index + 1);
    }
  }
  return found.filter((cut) => cut > 0 && cut <= max).reverse();
}

/** The last grapheme boundary at or before `max`, else the last code point boundary. */
function hardCut(text: string, max: number): number {
  let best = 0;
  for (const { index } of graphemes.segment(text.slice(0, max + 64))) {
    if (index > max) break;
    best = index;
  }
  if (best > 0) return best;
  let cut = max;
  const code = text.charCodeAt(cut - 1);
  if (code >= 0xd800 && code <= 0xdbff) cut--;
  // Only a limit of 1 against a character outside the BMP: that character alone.
  return cut > 0 ? cut : 2;
}

/** Where to cut `text` so the part has at most `max` units: the best boundary `accept`s. */
function findCut(
  text: string,
  max: number,
  accept: (cut: number) => boolean,
): { cut: number; level: Level } {
  for (const level of ["paragraph", "line", "sentence", "word"] as const) {
    const cut = candidates(text, max, level).find(accept);
    if (cut !== undefined) return { cut, level };
  }
  return { cut: hardCut(text, max), level: "hard" };
}

/** True when the fence's lines leave room for at least as much code in a part. */
function repairable(fence: OpenFence, limit: number): boolean {
  return (fence.opener.length + fence.closer.length + 2) * 2 <= limit;
}

/** Where to cut `text` for a part of at most `max` units, never just after a fence's opening line. */
function cutWithin(
  text: string,
  max: number,
  fences: readonly OpenFence[],
): { cut: number; level: Level } {
  const atOpener = (cut: number) =>
    fences.find((fence) => fence.openerStart < cut && cut <= fence.bodyStart);
  const found = findCut(text, max, (cut) => atOpener(cut) === undefined);
  const opener = found.level === "hard" ? atOpener(found.cut) : undefined;
  return opener && opener.openerStart > 0 ? { cut: opener.openerStart, level: "line" } : found;
}

/** One part off the front of `text` (longer than `limit`) and what remains. */
function cutOnce(text: string, limit: number): { part: string; rest: string } {
  const fences = fencesBefore(text, limit + 1);
  let { cut, level } = cutWithin(text, limit, fences);
  let fence = fenceOpenAt(fences, cut);
  if (fence && repairable(fence, limit)) {
    // Leave room for the closing fence this part will get.
    const closers = Math.max(...fences.map((open) => open.closer.length));
    ({ cut, level } = cutWithin(text, limit - closers - 1, fences));
    fence = fenceOpenAt(fences, cut);
  }
  if (fence && !repairable(fence, limit)) fence = undefined;
  const part = text.slice(0, cut).trimEnd();
  let rest = text.slice(cut).replace(/^\n+/, "");
  if (level === "sentence" || level === "word") rest = rest.replace(/^[ \t]+/, "");
  if (!fence) return { part, rest };
  const closed = `${part}\n${fence.closer}`;
  if (text.length - rest.length >= fence.closeStart) {
    // The cut fell just before the closing line: this part closes the block, the next starts after it.
    return { part: closed, rest: text.slice(fence.closeEnd) };
  }
  return { part: closed, rest: `${fence.opener}\n${rest}` };
}

/**
 * Splits text into parts of at most `limit` UTF-16 code units: at the last
 * paragraph break that fits, else the last line break, else the last
 * sentence end, else the last space (or CJK comma), else at the last
 * grapheme boundary (never inside a surrogate pair). A fenced code block
 * cut in two is closed at the end of one part and reopened with the same
 * fence and language at the start of the next (when the fence lines take
 * at most half the limit). Parts are trimmed at the cut; none is empty.
 *
 * The only part longer than `limit`: with a limit of 1, a character
 * outside the Basic Multilingual Plane (an emoji) is a part of two units.
 *
 * @throws RangeError when `limit` is not a whole number of at least 1.
 *
 * @example
 * ```ts
 * splitText("one\n\ntwo three", 9); // ["one", "two three"]
 * ```
 */
export function splitText(text: string, limit: number): string[] {
  checkLimit(limit);
  const parts: string[] = [];
  let rest = tidy(text.replace(/\r\n?/g, "\n"));
  while (rest !== "") {
    const next = takePart(rest, limit);
    if (next.part.trim() !== "") parts.push(next.part);
    rest = next.rest;
  }
  return parts;
}

/** Throws a RangeError unless `limit` is a whole number of at least 1. */
export function checkLimit(limit: number): void {
  if (!Number.isInteger(limit) || limit < 1) {
    throw new RangeError(`A chunk limit must be a whole number of at least 1, got ${limit}`);
  }
}

/** Text without blank lines in front or whitespace at the end. */
export function tidy(text: string): string {
  return text.replace(/^(?:[ \t]*\n)+/, "").trimEnd();
}

/** The first part (at most `size` units) of tidy text, and the tidy rest. */
export function takePart(text: string, size: number): { part: string; rest: string } {
  if (text.length <= size) return { part: text, rest: "" };
  const next = cutOnce(text, size);
  return { part: next.part, rest: tidy(next.rest) };
}

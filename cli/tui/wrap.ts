/**
 * Word wrapping for styled terminal text: every line fits `width` display
 * columns, a style open at a break is closed at the line end and re-opened
 * on the next line, and a word longer than the line is broken.
 *
 * @example
 * ```ts
 * wrap("one two three", 7); // ["one two", "three"]
 * wrap("- a long item", 8, { hangingIndent: "  " });
 * ```
 *
 * @module
 */

import {
  ANSI_SOURCE,
  ansiParts,
  displayWidth,
  forEachCluster,
  SGR_RESET,
  SgrState,
  truncate,
} from "./style.ts";

/** Prefixes of {@link wrap} and {@link wrapHard}. */
export interface WrapOptions {
  /** Put before the first output line (default ""). */
  indent?: string;
  /** Put before every later output line (default: `indent`). */
  hangingIndent?: string;
}

/** A run of text to append: a word (maybe with escapes inside), spaces or one escape. */
interface Piece {
  text: string;
  width: number;
  /** The text holds escape sequences. */
  escapes: boolean;
}

// Spaces, a run of other characters, or one escape sequence.
const PARTS = new RegExp(`( +)|([^ ${"\x1b"}]+)|(?:${ANSI_SOURCE})`, "g");

/**
 * The words and space runs of a line. A word is every character and
 * escape sequence up to the next space; a style that opens right after a
 * space belongs to the next word, so it moves with the word to the next line.
 */
function words(line: string): { piece: Piece; space: boolean }[] {
  const out: { piece: Piece; space: boolean }[] = [];
  let word: Piece | null = null;
  for (const match of line.matchAll(PARTS)) {
    if (match[1] !== undefined) {
      word = null;
      out.push({ piece: { text: match[0], width: match[0].length, escapes: false }, space: true });
      continue;
    }
    if (word === null) {
      word = { text: "", width: 0, escapes: false };
      out.push({ piece: word, space: false });
    }
    word.text += match[0];
    if (match[2] !== undefined) word.width += displayWidth(match[0]);
    else word.escapes = true;
  }
  return out;
}

/** Fits a prefix into the line, leaving at least one column of text. */
function fitPrefix(prefix: string, width: number): string {
  if (prefix === "" || displayWidth(prefix) < width) return prefix;
  return width <= 1 ? "" : truncate(prefix, width - 1);
}

/** Builds output lines, carrying the SGR state across breaks. */
class LineBuilder {
  readonly lines: string[] = [];
  readonly state: SgrState;
  #text = "";
  #used = 0;
  #room = 0;
  #first: string;
  #hanging: string;
  #width: number;

  constructor(width: number, first: string, hanging: string, state: SgrState) {
    this.#width = width;
    this.#first = fitPrefix(first, width);
    this.#hanging = fitPrefix(hanging, width);
    this.state = state;
  }

  get used(): number {
    return this.#used;
  }

  get room(): number {
    return this.#room;
  }

  /** Starts an output line (the first one gets `indent`). */
  start(): void {
    const prefix = this.lines.length === 0 ? this.#first : this.#hanging;
    this.#text = prefix + this.state.open();
    this.#used = 0;
    this.#room = Math.max(1, this.#width - displayWidth(prefix));
  }

  append(piece: Piece): void {
    this.#text += piece.text;
    this.#used += piece.width;
    if (piece.escapes) {
      for (const part of ansiParts(piece.text)) if (part.escape) this.state.apply(part.text);
    }
  }

  /** Appends only the escapes of a piece (spaces dropped at a break). */
  appendEscapes(piece: Piece): void {
    if (!piece.escapes) return;
    for (const part of ansiParts(piece.text)) {
      if (part.escape) this.append({ text: part.text, width: 0, escapes: true });
    }
  }

  finish(): void {
    this.lines.push(this.#text + (this.state.active ? SGR_RESET : ""));
  }

  /** Ends the line and starts the next. */
  breakLine(): void {
    this.finish();
    this.start();
  }
}

function isPlainAscii(line: string): boolean {
  for (let i = 0; i < line.length; i++) {
    const code = line.charCodeAt(i);
    if (code < 0x20 || code >= 0x7f) return false;
  }
  return true;
}

/**
 * Wraps styled text at word boundaries so that every line, prefix
 * included, is at most `width` columns. A word longer than the line is
 * broken; spaces at a break are dropped; leading spaces of a source line
 * are kept. `\n` starts a new line (which gets `hangingIndent`). (The one
 * exception to the width: a wide character when a line has room for one
 * column only.)
 *
 * @example
 * ```ts
 * wrap("\x1b[1mbold words here\x1b[22m", 10);
 * // ["\x1b[1mbold words\x1b[0m", "\x1b[1mhere\x1b[22m"]
 * ```
 */
export function wrap(text: string, width: number, options: WrapOptions = {}): string[] {
  const limit = Math.max(1, Math.floor(width));
  const indent = options.indent ?? "";
  const builder = new LineBuilder(limit, indent, options.hangingIndent ?? indent, new SgrState());
  for (const source of text.replaceAll("\t", "    ").split("\n")) {
    builder.start();
    if (!builder.state.active && isPlainAscii(source) && source.length <= builder.room) {
      const trimmed = source.trimEnd();
      builder.append({ text: trimmed, width: trimmed.length, escapes: false });
      builder.finish();
      continue;
    }
    wrapSource(source, builder);
    builder.finish();
  }
  return builder.lines;
}

function wrapSource(source: string, builder: LineBuilder): void {
  let pending: Piece | null = null;
  let leading = true;
  for (const { piece: token, space: isSpace } of words(source)) {
    if (isSpace) {
      if (!leading) pending = token;
      else if (token.width <= builder.room) builder.append(token);
      continue;
    }
    if (token.width === 0) {
      builder.append(token);
      continue;
    }
    leading = false;
    const space = pending;
    pending = null;
    const spaceWidth = space && builder.used > 0 ? space.width : 0;
    if (builder.used + spaceWidth + token.width <= builder.room) {
      if (space && spaceWidth > 0) builder.append(space);
      builder.append(token);
      continue;
    }
    if (builder.used > 0) builder.breakLine();
    if (token.width <= builder.room) {
      builder.append(token);
      continue;
    }
    breakWord(token, builder);
  }
}

/** Appends a word longer than the line, cluster by cluster. */
function breakWord(word: Piece, builder: LineBuilder): void {
  for (const part of ansiParts(word.text)) {
    if (part.escape) {
      builder.append({ text: part.text, width: 0, escapes: true });
      continue;
    }
    forEachCluster(part.text, (cluster, width) => {
      if (builder.used > 0 && builder.used + width > builder.room) builder.breakLine();
      builder.append({ text: cluster, width, escapes: false });
    });
  }
}

/**
 * Breaks styled text at exactly the line width, keeping every character
 * (spaces included): for code, where words must not move. `\n` starts a new
 * line; continuation lines get `hangingIndent`.
 *
 * @example
 * ```ts
 * wrapHard("abcdef", 4, { indent: "│ ", hangingIndent: "┆ " }); // ["│ ab", "┆ cd", "┆ ef"]
 * ```
 */
export function wrapHard(text: string, width: number, options: WrapOptions = {}): string[] {
  const limit = Math.max(1, Math.floor(width));
  const indent = options.indent ?? "";
  const builder = new LineBuilder(limit, indent, options.hangingIndent ?? indent, new SgrState());
  for (const source of text.replaceAll("\t", "    ").split("\n")) {
    builder.start();
    for (const part of ansiParts(source)) {
      if (part.escape) {
        builder.append({ text: part.text, width: 0, escapes: true });
        continue;
      }
      forEachCluster(part.text, (cluster, clusterWidth) => {
        if (builder.used > 0 && builder.used + clusterWidth > builder.room) builder.breakLine();
        builder.append({ text: cluster, width: clusterWidth, escapes: false });
      });
    }
    builder.finish();
  }
  return builder.lines;
}

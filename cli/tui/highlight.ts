/**
 * Syntax highlighting for code blocks in the terminal: the tokens of
 * core/text/highlight.ts (keywords, strings, numbers, comments, per
 * language) painted with the TUI's style. State that spans lines (a block
 * comment, a template literal, a Python triple-quoted string) is carried
 * from one line to the next, so a streamed code block is highlighted line
 * by line.
 *
 * @example
 * ```ts
 * highlightCode("const x = 1; // one", "ts", createStyle(true));
 * ```
 *
 * @module
 */

import { CodeTokenizer, type Token, type TokenKind } from "../../core/text/highlight.ts";
import type { Paint, Style } from "./style.ts";

function paletteOf(style: Style): Record<TokenKind, Paint> {
  return {
    keyword: style.magenta,
    string: style.green,
    number: style.yellow,
    literal: style.yellow,
    comment: style.muted,
    type: style.cyan,
    function: style.blue,
    key: style.cyan,
    variable: style.cyan,
    added: style.green,
    removed: style.red,
    hunk: style.cyan,
    meta: style.bold,
  };
}

/**
 * A highlighter for one code block: feed it the block's lines in order.
 *
 * @example
 * ```ts
 * const h = new CodeHighlighter("ts", style);
 * h.line("const s = `a"); // a template literal opens
 * h.line("b` + 1"); // "b`" is still the string
 * ```
 */
export class CodeHighlighter {
  #tokens: CodeTokenizer;
  readonly #style: Style;
  readonly #palette: Record<TokenKind, Paint>;

  /** A highlighter for code in `language` (generic rules when unknown or absent). */
  constructor(language: string | undefined, style: Style) {
    this.#tokens = new CodeTokenizer(language);
    this.#style = style;
    this.#palette = paletteOf(style);
  }

  /** Highlights the next line of the block and advances the state. */
  line(text: string): string {
    if (!this.#style.enabled || this.#tokens.plain) return text;
    return this.#paint(this.#tokens.line(text));
  }

  /** Highlights a line as if it came next, without advancing the state. */
  peek(text: string): string {
    if (!this.#style.enabled || this.#tokens.plain) return text;
    return this.#paint(this.#tokens.peek(text));
  }

  /** An independent copy (same language, same open construct). */
  clone(): CodeHighlighter {
    const copy = new CodeHighlighter(undefined, this.#style);
    copy.#tokens = this.#tokens.clone();
    return copy;
  }

  #paint(tokens: Token[]): string {
    let out = "";
    for (const token of tokens) {
      out += token.kind ? this.#palette[token.kind](token.text) : token.text;
    }
    return out;
  }
}

/**
 * Highlights a whole code block, one output string per input line (the
 * line count and the visible text are unchanged).
 *
 * @example
 * ```ts
 * highlightCode('print("hi")  # greet', "python", style);
 * ```
 */
export function highlightCode(code: string, language: string | undefined, style: Style): string[] {
  const highlighter = new CodeHighlighter(language, style);
  return code.split("\n").map((line) => highlighter.line(line));
}

/**
 * The code highlighter of the web app, loaded on demand: CodeBlock imports
 * this module with a dynamic `import()` the first time a block with a
 * language shows, so the tokenizer (core/text/highlight.ts, shared with
 * the terminal) stays out of the initial bundle.
 *
 * @module
 */

import { CodeTokenizer, type Token } from "../../../../core/text/highlight.ts";

export type { Token, TokenKind } from "../../../../core/text/highlight.ts";

/**
 * The tokens of a code block that may grow (a streamed answer): each update
 * tokenizes only the lines not seen before, and the token lists of lines
 * already complete keep their identity, so their views are skipped.
 *
 * @example
 * ```ts
 * const lines = new LineTokens("ts");
 * lines.update("const a");
 * lines.update("const a = 1;\nlet b"); // the first line is tokenized once, now that it is complete
 * ```
 */
export class LineTokens {
  readonly language: string;
  #tokenizer: CodeTokenizer;
  #done: Token[][] = [];
  /** The complete lines read so far, with their newlines. */
  #read = "";

  /** Tokens of code in `language`. */
  constructor(language: string) {
    this.language = language;
    this.#tokenizer = new CodeTokenizer(language);
  }

  /** The tokens of every line of `code` (split at "\n"). */
  update(code: string): Token[][] {
    if (!code.startsWith(this.#read)) {
      this.#tokenizer = new CodeTokenizer(this.language);
      this.#done = [];
      this.#read = "";
    }
    let from = this.#read.length;
    for (let end = code.indexOf("\n", from); end >= 0; end = code.indexOf("\n", from)) {
      this.#done.push(this.#tokenizer.line(code.slice(from, end)));
      from = end + 1;
    }
    this.#read = code.slice(0, from);
    return [...this.#done, this.#tokenizer.peek(code.slice(from))];
  }
}

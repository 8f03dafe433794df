/**
 * Text shared by the terminal and the web app: Markdown's line syntax and
 * inline parser, the code tokenizer behind highlighting, and line diffs.
 * Pure: no I/O, nothing drawn here.
 *
 * @module
 */

export * from "./diff.ts";
export * from "./highlight.ts";
export * from "./markdown_inline.ts";
export * from "./markdown_syntax.ts";

/**
 * The terminal UI's Markdown rendering cost: a generated answer of about
 * 20,000 tokens (headings, paragraphs, nested lists, code blocks, a table)
 * streamed into `MarkdownStream` in deltas of about 4 characters, as a
 * model streams it, with the preview of the unfinished line rendered after
 * every delta (the worst case: the TUI redraws at most once per frame).
 * Measures the process's CPU time (`Deno.cpuUsage`, else wall time).
 *
 * Run alone: `deno run bench/tui_render.ts`.
 *
 * @module
 */

import { MarkdownStream } from "../cli/tui/markdown.ts";
import { createStyle } from "../cli/tui/style.ts";

/** Figures of one streaming run. */
export interface TuiRenderResult {
  /** Tokens streamed (characters / 4). */
  tokens: number;
  /** CPU milliseconds spent per 1,000 streamed tokens. */
  cpuMsPer1000Tokens: number;
  /** Wall-clock milliseconds of the whole run. */
  wallMs: number;
}

const CHARS_PER_TOKEN = 4;
const WORDS = (
  "the agent reads files runs commands and writes patches while the user watches each step " +
  "streaming output stays responsive because every line is rendered once and never again " +
  "`inline code` **bold text** *emphasis* [a link](https://example.com/docs) ~~old~~ snake_case"
).split(" ");

/** A Markdown answer of about `tokens` tokens, the same for every run. */
export function generatedAnswer(tokens: number): string {
  let seed = 42;
  const next = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
  const sentence = (words: number) =>
    Array.from({ length: words }, () => WORDS[Math.floor(next() * WORDS.length)]).join(" ");
  const parts: string[] = [];
  let length = 0;
  for (let section = 1; length < tokens * CHARS_PER_TOKEN; section++) {
    const block = [
      `## Step ${section}: ${sentence(4)}`,
      "",
      `${sentence(60)}.`,
      "",
      `- ${sentence(14)}`,
      `- ${sentence(10)}`,
      `  - ${sentence(8)}`,
      `  - [x] ${sentence(6)}`,
      `1. ${sentence(12)}`,
      "",
      "```ts",
      `export function step${section}(input: string): number {`,
      `  // ${sentence(6)}`,
      `  const value = input.length * ${section} + 0x1f; /* note */`,
      '  return value > 10 ? value : Number("42");',
      "}",
      "```",
      "",
      section % 5 === 0
        ? `| name | value |\n| --- | ---: |\n| step ${section} | ${
          section * 3
        } |\n| total | ${section} |\n`
        : `> ${sentence(20)}\n`,
      `${sentence(40)}.`,
      "",
    ].join("\n");
    parts.push(block);
    length += block.length;
  }
  return parts.join("\n");
}

function cpuMs(): number {
  const usage = (Deno as { cpuUsage?: () => { user: number; system: number } }).cpuUsage?.();
  return usage ? (usage.user + usage.system) / 1000 : performance.now();
}

/**
 * Streams a ~20,000-token answer into `MarkdownStream` in ~4-character
 * deltas (push, then pending, per delta) and reports the CPU time per
 * 1,000 tokens.
 *
 * @example
 * ```ts
 * const { cpuMsPer1000Tokens } = await benchTuiRender();
 * ```
 */
export async function benchTuiRender(): Promise<TuiRenderResult> {
  const answer = generatedAnswer(20_000);
  const style = createStyle(true);
  // Warm up the code paths once so the figure is the steady state.
  const warm = new MarkdownStream(style, 100);
  warm.push(answer.slice(0, 20_000));
  warm.end();
  await Promise.resolve();
  const wallStart = performance.now();
  const cpuStart = cpuMs();
  const stream = new MarkdownStream(style, 100);
  let lines = 0;
  for (let at = 0; at < answer.length; at += CHARS_PER_TOKEN) {
    lines += stream.push(answer.slice(at, at + CHARS_PER_TOKEN)).length;
    stream.pending();
  }
  lines += stream.end().length;
  const cpu = cpuMs() - cpuStart;
  const wallMs = performance.now() - wallStart;
  if (lines === 0) throw new Error("the answer rendered no lines");
  const tokens = Math.round(answer.length / CHARS_PER_TOKEN);
  return { tokens, cpuMsPer1000Tokens: cpu / (tokens / 1000), wallMs };
}

if (import.meta.main) {
  const result = await benchTuiRender();
  console.log(
    `${result.tokens} tokens: ${result.cpuMsPer1000Tokens.toFixed(2)} ms CPU per 1,000 tokens, ` +
      `${result.wallMs.toFixed(1)} ms wall`,
  );
}

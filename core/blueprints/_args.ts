/**
 * Reading `/blueprint` arguments: a name (one or more words), then
 * `slot=value` pairs whose values may be double- or single-quoted, with
 * `\"` and `\\` escapes inside double quotes.
 *
 * @module
 */

import { BlueprintInvalidError } from "./slots.ts";

/** One word of the arguments: its text, and where its first unquoted `=` is (-1: none). */
interface Token {
  text: string;
  equals: number;
}

/** Splits `args` into words, honouring quotes and escapes. */
function tokens(args: string): Token[] {
  const found: Token[] = [];
  let current: Token | undefined;
  let quote: '"' | "'" | undefined;
  for (let i = 0; i < args.length; i++) {
    const char = args[i];
    if (quote === undefined && /\s/.test(char)) {
      if (current) found.push(current);
      current = undefined;
      continue;
    }
    current ??= { text: "", equals: -1 };
    if (quote === "'") {
      if (char === "'") quote = undefined;
      else current.text += char;
    } else if (char === "\\" && i + 1 < args.length) {
      current.text += args[++i];
    } else if (char === quote) {
      quote = undefined;
    } else if (quote === undefined && (char === '"' || char === "'")) {
      quote = char;
    } else {
      if (quote === undefined && char === "=" && current.equals < 0) {
        current.equals = current.text.length;
      }
      current.text += char;
    }
  }
  if (quote !== undefined) {
    throw new BlueprintInvalidError(
      "arguments",
      `A ${quote === '"' ? "double" : "single"} quote is not closed; close it, as in ` +
        'what="take a break"',
    );
  }
  if (current) found.push(current);
  return found;
}

/** What `/blueprint <args>` asked for. */
export interface BlueprintArgs {
  /** The blueprint's name as typed (words joined by a space). */
  name: string;
  /** The `slot=value` pairs; absent when none was given. */
  values?: Record<string, string>;
}

/**
 * Reads `/blueprint` arguments.
 *
 * @throws BlueprintInvalidError for an unclosed quote, a word after the
 *   pairs that is not `slot=value`, a slot given twice.
 */
export function parseBlueprintArgs(args: string): BlueprintArgs {
  const words = tokens(args);
  const first = words.findIndex((word) => word.equals >= 0);
  const nameWords = first < 0 ? words : words.slice(0, first);
  const name = nameWords.map((word) => word.text).join(" ");
  if (first < 0) return { name };
  const values = new Map<string, string>();
  for (const word of words.slice(first)) {
    if (word.equals < 0) {
      throw new BlueprintInvalidError(
        word.text,
        `"${word.text}" is not slot=value; put slots as name=value and quote values with ` +
          'spaces, as in what="take a break"',
      );
    }
    const slot = word.text.slice(0, word.equals).trim().toLowerCase();
    if (slot === "") {
      throw new BlueprintInvalidError(word.text, `"${word.text}" has no slot name before "="`);
    }
    if (values.has(slot)) {
      throw new BlueprintInvalidError(slot, `Slot "${slot}" is given twice; give it once`);
    }
    values.set(slot, word.text.slice(word.equals + 1));
  }
  // Own properties whatever the name (`__proto__=x` stays a slot, reported as unknown).
  return { name, values: Object.fromEntries(values) };
}

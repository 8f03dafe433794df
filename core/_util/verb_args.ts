/**
 * Reading the words of a command family typed as one line (`/cron …`,
 * `/kanban …`) or as argv (`herald cron …`): splitting a line into words
 * with quotes, and scanning a verb's words and options. Each family keeps
 * its own verbs, option tables and messages; the errors come from it.
 *
 * @module
 */

import { HeraldError } from "../errors.ts";
import { closest } from "./suggest.ts";

/** How an option takes its value: none (`--all`), one (`--name N`), or repeated (`--skill a --skill b`). */
export type OptionKind = "value" | "switch" | "values";

/** What the words after a verb hold: words in order and options by name (a switch holds `yes`). */
export interface ScannedArgs {
  words: string[];
  options: Map<string, string[]>;
}

/** Builds the family's usage error for `message`, naming the `token` at fault. */
export type ArgsFailure = (message: string, token: string) => Error;

/**
 * Splits a typed line into words: whitespace separates, `"…"` and `'…'`
 * quote (a quote opens only at a word's start, so `Don't` stays a word),
 * `\"` and `\\` escape inside double quotes, a backslash escapes a quote,
 * a backslash or a space outside them.
 *
 * @throws what `fail` builds for a quote left open, quoting where it opened.
 */
export function splitArgs(text: string, fail: ArgsFailure): string[] {
  const words: string[] = [];
  let word: string | undefined;
  let quote: '"' | "'" | undefined;
  let opened = 0;
  for (let i = 0; i < text.length; i++) {
    const char = text[i];
    if (quote !== undefined) {
      if (char === quote) quote = undefined;
      else if (quote === '"' && char === "\\" && (text[i + 1] === '"' || text[i + 1] === "\\")) {
        word += text[++i];
      } else word += char;
      continue;
    }
    if (/\s/.test(char)) {
      if (word !== undefined) words.push(word);
      word = undefined;
    } else if (char === "\\" && i + 1 < text.length && /["'\\\s]/.test(text[i + 1])) {
      word = (word ?? "") + text[++i];
    } else if ((char === '"' || char === "'") && word === undefined) {
      quote = char;
      opened = i;
      word = "";
    } else {
      word = (word ?? "") + char;
    }
  }
  if (quote !== undefined) {
    const from = text.slice(opened, opened + 30) + (text.length - opened > 30 ? "..." : "");
    throw fail(`The ${quote === '"' ? "double" : "single"} quote at ${from} is not closed`, from);
  }
  if (word !== undefined) words.push(word);
  return words;
}

/** A command family's words: its error code, its verbs and each verb's synopsis. */
export interface VerbFamily {
  code: string;
  verbs: readonly string[];
  synopses: Readonly<Record<string, string>>;
}

/**
 * The family's usage error: `message`, then the verb's usage line (or the
 * verbs, when none was read), naming the `token` at fault.
 */
export function verbUsageError(
  family: VerbFamily,
  verb: string | undefined,
  message: string,
  prefix: string,
  token?: string,
): HeraldError {
  const usage = verb
    ? `Usage: ${prefix} ${family.synopses[verb]}`
    : `Verbs: ${family.verbs.join(", ")} (${prefix} help explains them)`;
  const stop = /[.?!]$/.test(message) ? "" : ".";
  return new HeraldError(family.code, "usage", `${message}${stop} ${usage}`, {
    details: token === undefined ? {} : { token },
  });
}

/** The last value of option `name`, if given. */
export function lastOption(scanned: ScannedArgs, name: string): string | undefined {
  return scanned.options.get(name)?.at(-1);
}

/** Whether `token` is written as an option (`--name`, `-a`), not a word such as `-5`. */
function looksLikeOption(token: string): boolean {
  return /^--?[a-z]/i.test(token);
}

/**
 * Reads the words and options after `verb` (typed as `prefix verb`),
 * refusing an option the verb does not take (naming the near one), a
 * switch given a value, and a value missing. `--` ends the options.
 */
export function scanVerbArgs(
  verb: string,
  tokens: readonly string[],
  known: Readonly<Record<string, OptionKind>>,
  prefix: string,
  fail: ArgsFailure,
): ScannedArgs {
  const scanned: ScannedArgs = { words: [], options: new Map() };
  for (let i = 0; i < tokens.length; i++) {
    const token = tokens[i];
    if (token === "--") {
      scanned.words.push(...tokens.slice(i + 1));
      break;
    }
    if (!looksLikeOption(token)) {
      scanned.words.push(token);
      continue;
    }
    const equals = token.indexOf("=");
    const typed = equals < 0 ? token : token.slice(0, equals);
    const name = typed.replace(/^--?/, "");
    const kind = known[name];
    if (kind === undefined) {
      const names = Object.keys(known);
      const near = closest(name, names);
      const takes = names.length === 0
        ? `; ${prefix} ${verb} takes no options`
        : near
        ? `; did you mean --${near}?`
        : "";
      throw fail(`Unknown option "${typed}" for ${verb}${takes}`, token);
    }
    if (kind === "switch") {
      if (equals >= 0) throw fail(`Option --${name} takes no value (got "${token}")`, token);
      scanned.options.set(name, ["yes"]);
      continue;
    }
    let value: string;
    if (equals >= 0) value = token.slice(equals + 1);
    else {
      const next = tokens[i + 1];
      const isOption = next !== undefined && next.startsWith("--") &&
        known[next.slice(2).split("=")[0]] !== undefined;
      if (next === undefined || isOption) throw fail(`Option --${name} needs a value`, token);
      value = next;
      i++;
    }
    const earlier = kind === "values" ? scanned.options.get(name) ?? [] : [];
    scanned.options.set(name, [...earlier, value]);
  }
  return scanned;
}

/** The first line of `text`, shortened to `width` characters. */
export function clipLine(text: string, width: number): string {
  const line = text.split("\n")[0];
  return line.length > width ? `${line.slice(0, width - 3)}...` : line;
}

/** Rows as columns padded to their widest cell (the last column unpadded). */
export function textTable(rows: readonly (readonly string[])[]): string[] {
  const widths = rows[0].map((_, column) => Math.max(...rows.map((row) => row[column].length)));
  return rows.map((row) =>
    row.map((cell, column) => column === row.length - 1 ? cell : cell.padEnd(widths[column]))
      .join("  ").trimEnd()
  );
}

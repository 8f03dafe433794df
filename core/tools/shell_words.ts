/**
 * Reading the words of one shell command: the command behind wrappers such
 * as `sudo`, `env`, `nohup` and `xargs`, its options and operands, and the
 * script it runs as code; and {@link walkShell}, the one walk over a command
 * line, its substitutions and those scripts.
 *
 * @module
 */

import { parseShell, type SimpleCommand } from "./shell_lexer.ts";

const KEYWORDS = new Set(["{", "}", "!", "if", "then", "else", "elif", "do", "while", "until"]);

/**
 * The last segment of a slash-separated path: a command's name without its folder.
 *
 * @example
 * ```ts
 * basename("/usr/bin/rm"); // "rm"
 * ```
 */
export function basename(path: string): string {
  return path.slice(path.lastIndexOf("/") + 1);
}

/**
 * Drops keywords, variable assignments and wrapper commands; returns the words of the real command.
 *
 * @example
 * ```ts
 * unwrap(["sudo", "-u", "root", "env", "A=1", "rm", "-r", "x"]); // ["rm", "-r", "x"]
 * ```
 */
export function unwrap(words: string[]): string[] {
  let rest = words;
  for (let guard = 0; guard < 16 && rest.length > 0; guard++) {
    const head = basename(rest[0]);
    if (KEYWORDS.has(rest[0]) || /^[A-Za-z_][A-Za-z0-9_]*=/.test(rest[0])) {
      rest = rest.slice(1);
    } else if (head === "sudo" || head === "doas") {
      rest = skipOptions(rest.slice(1), /^-[ugCDhprtUT]$/);
    } else if (head === "env") {
      rest = skipOptions(rest.slice(1), /^-[uCS]$/);
      while (rest.length > 0 && /^[A-Za-z_][A-Za-z0-9_]*=/.test(rest[0])) rest = rest.slice(1);
    } else if (head === "nice" || head === "ionice" || head === "stdbuf" || head === "chroot") {
      rest = skipOptions(rest.slice(1), /^-[ncpt]$/);
      if (head === "chroot") rest = rest.slice(1);
    } else if (head === "timeout") {
      rest = skipOptions(rest.slice(1), /^-[sk]$/).slice(1);
    } else if (head === "xargs") {
      rest = skipOptions(rest.slice(1), /^-[IiLlnPdsaE]$/);
    } else if (
      ["nohup", "exec", "command", "builtin", "setsid", "time", "busybox"].includes(head)
    ) {
      rest = skipOptions(rest.slice(1), /^$/);
    } else {
      break;
    }
  }
  return rest;
}

/**
 * Skips leading `-x` options; options matching `takesValue` consume the next word too.
 *
 * @example
 * ```ts
 * skipOptions(["-C", "repo", "push", "-f"], /^-C$/); // ["push", "-f"]
 * ```
 */
export function skipOptions(words: string[], takesValue: RegExp): string[] {
  let i = 0;
  while (i < words.length && words[i].startsWith("-") && words[i] !== "-") {
    if (words[i] === "--") return words.slice(i + 1);
    i += takesValue.test(words[i]) ? 2 : 1;
  }
  return words.slice(i);
}

/**
 * Splits arguments into option letters/long names and operands, honouring `--`.
 *
 * @example
 * ```ts
 * parseArgs(["-rf", "--verbose", "a", "--", "-b"]);
 * // { short: "rf", long: ["verbose"], operands: ["a", "-b"] }
 * ```
 */
export function parseArgs(args: string[]): { short: string; long: string[]; operands: string[] } {
  let short = "";
  const long: string[] = [];
  const operands: string[] = [];
  let endOfOptions = false;
  for (const arg of args) {
    if (endOfOptions || !arg.startsWith("-") || arg === "-") operands.push(arg);
    else if (arg === "--") endOfOptions = true;
    else if (arg.startsWith("--")) long.push(arg.slice(2).split("=")[0]);
    else short += arg.slice(1);
  }
  return { short, long, operands };
}

/** Shells whose `-c` argument is a script. */
export const SHELLS: ReadonlySet<string> = new Set([
  "sh",
  "bash",
  "zsh",
  "dash",
  "ksh",
  "mksh",
  "ash",
  "fish",
]);

/**
 * The script a shell runs from its arguments (`bash -lc "..."`), if any.
 *
 * @example
 * ```ts
 * shellScriptArg(["-lc", "cd a && make"]); // "cd a && make"
 * shellScriptArg(["build.sh"]); // undefined
 * ```
 */
export function shellScriptArg(args: string[]): string | undefined {
  for (let i = 0; i < args.length; i++) {
    const arg = args[i];
    if (!arg.startsWith("-") || arg === "-" || arg === "--") return undefined;
    if (/^-[a-zA-Z]*c[a-zA-Z]*$/.test(arg)) return args[i + 1];
  }
  return undefined;
}

/**
 * What a command (its words without wrappers) runs as code: the script of
 * `bash -c` and the other {@link SHELLS}, the arguments of `eval`; else undefined.
 *
 * @example
 * ```ts
 * scriptOf(["bash", "-lc", "make"]); // "make"
 * scriptOf(["eval", "rm", "-r", "x"]); // "rm -r x"
 * scriptOf(["make", "-C", "x"]); // undefined
 * ```
 */
export function scriptOf(command: string[]): string | undefined {
  const name = basename(command[0] ?? "");
  if (name === "eval") return command.slice(1).join(" ");
  return SHELLS.has(name) ? shellScriptArg(command.slice(1)) : undefined;
}

/** A simple command met by {@link walkShell}. */
export interface WalkedCommand {
  /** The pipeline it is part of. */
  pipeline: readonly SimpleCommand[];
  /** Its place in `pipeline`. */
  index: number;
  /** Its words as written, quotes removed. */
  words: string[];
  /** Its words without wrappers ({@link unwrap}). */
  command: string[];
  /** What it runs as code ({@link scriptOf}), walked right after it. */
  script?: string;
}

/** What {@link walkShell} reports, in the order it meets it. */
export interface ShellVisitor {
  /** Each command line walked: the whole one, then each substitution's body and script. */
  line?(text: string): void;
  /**
   * Each simple command, before its script is walked; a function it returns
   * is called once that script has been walked (at once when there is none).
   */
  command?(command: WalkedCommand): void | (() => void);
}

/** How deep scripts and substitutions are followed. */
const MAX_DEPTH = 8;

/**
 * Walks `text` as a shell would run it: each command line, its substitutions
 * (`$(...)`, backticks, `<(...)`) first, then its simple commands in order,
 * each followed by the script it runs ({@link scriptOf}), 8 levels deep.
 * Every visitor sees every step, so several checks share one walk.
 *
 * @example
 * ```ts
 * const names: string[] = [];
 * walkShell('sudo bash -c "rm -r x" && echo $(date)', {
 *   command: (c) => void names.push(c.command[0]),
 * });
 * names; // ["date", "bash", "rm", "echo"]
 * ```
 */
export function walkShell(text: string, ...visitors: ShellVisitor[]): void {
  walk(text, visitors, 0);
}

function walk(text: string, visitors: readonly ShellVisitor[], depth: number): void {
  if (depth > MAX_DEPTH) return;
  for (const visitor of visitors) visitor.line?.(text);
  const { pipelines, subs } = parseShell(text);
  for (const sub of subs) walk(sub, visitors, depth + 1);
  for (const pipeline of pipelines) {
    pipeline.forEach((simple, index) => {
      const words = simple.words.map((word) => word.text);
      const command = unwrap(words);
      const script = scriptOf(command);
      const visited: WalkedCommand = { pipeline, index, words, command, script };
      const after = visitors.map((visitor) => visitor.command?.(visited));
      if (script !== undefined) walk(script, visitors, depth + 1);
      for (const done of after) done?.();
    });
  }
}

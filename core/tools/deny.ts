/**
 * `approvals.deny`: command patterns the user refuses outright. A pattern
 * is a glob (`*` any run of characters, `?` one character), matched without
 * case against the whole command line and against each simple command in
 * it (after `sudo`, `env` and similar wrappers), with runs of whitespace
 * counted as one space. A match blocks the command on every surface, in
 * every approval mode, yolo included.
 *
 * @module
 */

import { parseShell } from "./shell_lexer.ts";
import { basename, SHELLS, shellScriptArg, unwrap } from "./shell_words.ts";

function normal(text: string): string {
  return text.trim().replace(/\s+/g, " ").toLowerCase();
}

function globToRegExp(pattern: string): RegExp {
  let source = "";
  for (const char of normal(pattern)) {
    if (char === "*") source += ".*";
    else if (char === "?") source += ".";
    else source += char.replace(/[.+^${}()|[\]\\]/g, "\\$&");
  }
  return new RegExp(`^${source}$`, "s");
}

/** The command line and each simple command in it, as the patterns see them. */
function candidates(command: string): string[] {
  const found = new Set([normal(command)]);
  const walk = (text: string, depth: number) => {
    if (depth > 8) return;
    const { pipelines, subs } = parseShell(text);
    for (const pipeline of pipelines) {
      for (const simple of pipeline) {
        const words = simple.words.map((word) => word.text);
        const command = unwrap(words);
        found.add(normal(words.join(" ")));
        found.add(normal(command.join(" ")));
        // What a shell or eval runs as code is checked as a command line of its own.
        const name = basename(command[0] ?? "");
        const script = name === "eval"
          ? command.slice(1).join(" ")
          : SHELLS.has(name)
          ? shellScriptArg(command.slice(1))
          : undefined;
        if (script !== undefined) {
          found.add(normal(script));
          walk(script, depth + 1);
        }
      }
    }
    for (const sub of subs) walk(sub, depth + 1);
  };
  walk(command, 0);
  return [...found];
}

/**
 * The first of `patterns` that `command` matches, or undefined.
 *
 * @example
 * ```ts
 * matchDenyPattern("cd app && sudo  git push --force", ["git push *"]); // "git push *"
 * matchDenyPattern("git status", ["git push *"]); // undefined
 * ```
 */
export function matchDenyPattern(
  command: string,
  patterns: readonly string[],
): string | undefined {
  if (patterns.length === 0) return undefined;
  const seen = candidates(command);
  return patterns.find((pattern) => {
    const regex = globToRegExp(pattern);
    return seen.some((candidate) => regex.test(candidate));
  });
}

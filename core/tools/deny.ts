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

import { type ShellVisitor, walkShell } from "./shell_words.ts";

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

/**
 * The deny check as a step of a shared walk ({@link walkShell} over
 * `command`): the visitor gathers the command line and each simple command in
 * it (as written and without wrappers) and each script a shell or eval runs,
 * as the patterns see them; `match()` then gives the first of `patterns`
 * that one of them matches.
 */
export function denyScan(
  command: string,
  patterns: readonly string[],
): { visitor: ShellVisitor; match(): string | undefined } {
  const seen = new Set([normal(command)]);
  return {
    visitor: {
      command({ words, command, script }) {
        seen.add(normal(words.join(" ")));
        seen.add(normal(command.join(" ")));
        // What a shell or eval runs as code is checked as a command line of its own.
        if (script !== undefined) seen.add(normal(script));
      },
    },
    match: () =>
      patterns.find((pattern) => {
        const regex = globToRegExp(pattern);
        return [...seen].some((candidate) => regex.test(candidate));
      }),
  };
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
  const scan = denyScan(command, patterns);
  walkShell(command, scan.visitor);
  return scan.match();
}

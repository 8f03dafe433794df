/**
 * Which commands the terminal tool may run: a hardline match
 * (core/tools/dangerous.ts) is refused outright, then a match of the
 * profile's `approvals.deny` patterns (core/tools/deny.ts); any other
 * dangerous command is asked about; the rest is allowed. One walk of the
 * command line serves both checks.
 *
 * Pure: adapters/tools/terminal.ts acts on the verdict.
 *
 * @module
 */

import { dangerScan } from "./dangerous.ts";
import { denyScan } from "./deny.ts";
import { type ShellVisitor, walkShell } from "./shell_words.ts";

/** What may happen to a command. */
export type CommandVerdict =
  | { kind: "allow" }
  | { kind: "refuse"; code: "blocked"; reason: string }
  | { kind: "ask"; reason: string; ruleKey: string };

/**
 * Judges a command for the terminal tool: refused when a hardline rule or
 * one of `denyPatterns` matches (no answer, "always" rule or yolo mode runs
 * it), asked about when another rule matches, else allowed.
 *
 * @example
 * ```ts
 * judgeCommand("rm -rf ~", []); // { kind: "refuse", code: "blocked", reason: "Blocked: ..." }
 * judgeCommand("git push -f", ["git push *"]); // { kind: "refuse", code: "blocked", ... }
 * judgeCommand("rm -r build", []); // { kind: "ask", reason: "recursive delete (rm -r)", ruleKey: "rm_recursive:build" }
 * judgeCommand("ls", []); // { kind: "allow" }
 * ```
 */
export function judgeCommand(command: string, denyPatterns: readonly string[]): CommandVerdict {
  const danger = dangerScan();
  const deny = denyPatterns.length === 0 ? undefined : denyScan(command, denyPatterns);
  const visitors: ShellVisitor[] = [danger.visitor];
  if (deny) visitors.push(deny.visitor);
  walkShell(command, ...visitors);

  const match = danger.match();
  if (match?.hardline) {
    // Never asked: no answer, "always" rule or yolo mode runs these.
    return {
      kind: "refuse",
      code: "blocked",
      reason: `Blocked: ${match.reason}. Herald never runs this command, even when approved; ` +
        "do not retry it. Ask the user to run it themselves if it is truly intended.",
    };
  }
  const denied = deny?.match();
  if (denied !== undefined) {
    return {
      kind: "refuse",
      code: "blocked",
      reason: `Blocked: the command matches "${denied}" in approvals.deny. Do not retry it or ` +
        "work around it; ask the user.",
    };
  }
  if (match) return { kind: "ask", reason: match.reason, ruleKey: match.ruleKey };
  return { kind: "allow" };
}

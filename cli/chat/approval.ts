/**
 * Answering approval requests for dangerous commands in the terminal. On a
 * terminal the user is asked; otherwise only rules listed in
 * `approvals.allow` pass and everything else is denied.
 *
 * @module
 */

import type { ApprovalChoice, ApprovalHandler } from "../../core/tools/types.ts";
import type { Output } from "../io.ts";
import type { LineReader } from "./lines.ts";

/** How approval requests are answered. */
export interface ApprovalOptions {
  io: Output;
  /** A line source to ask on; absent for non-interactive runs. */
  ask?: LineReader;
  /** Rule keys approved "always" (from config). */
  allowed: ReadonlySet<string>;
  /** Persists an "always" answer (writes `approvals.allow`). */
  persistAlways(ruleKey: string): Promise<void>;
}

const ANSWERS: Record<string, ApprovalChoice> = {
  o: "once",
  once: "once",
  y: "once",
  yes: "once",
  s: "session",
  session: "session",
  a: "always",
  always: "always",
  d: "deny",
  deny: "deny",
  n: "deny",
  no: "deny",
};

/** Builds the approval handler for one chat run. Prompts are asked one at a time. */
export function createApprovalHandler(options: ApprovalOptions): ApprovalHandler {
  let queue: Promise<unknown> = Promise.resolve();
  return (request) => {
    const answer = queue.then(async (): Promise<ApprovalChoice> => {
      if (options.allowed.has(request.ruleKey)) return "always";
      const { io, ask } = options;
      if (!ask) {
        io.err(
          `herald: denied ${request.tool} command (${request.reason}): ${request.command}\n` +
            `herald: non-interactive runs deny dangerous commands; to allow this rule always, add "${request.ruleKey}" to approvals.allow\n`,
        );
        return "deny";
      }
      io.err(
        `\n! ${request.tool} wants to run a dangerous command (${request.reason}):\n  ${request.command}\n`,
      );
      for (;;) {
        io.err("Allow? [o]nce, for this [s]ession, [a]lways, [d]eny: ");
        const line = await ask.next();
        if (line === null) return "deny";
        const choice = ANSWERS[line.trim().toLowerCase()];
        if (choice) {
          if (choice === "always") await options.persistAlways(request.ruleKey);
          return choice;
        }
      }
    });
    queue = answer.catch(() => {});
    return answer;
  };
}

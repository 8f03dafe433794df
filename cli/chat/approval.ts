/**
 * Approval requests for dangerous commands in the terminal: the terminal's
 * {@link ApprovalSurface}. The decision is core's approval policy, made for
 * the profile by the agent runtime (core/agent/approvals.ts) exactly as for
 * the dashboard; this module only asks on the terminal and prints what the
 * policy tells the user (denied without a terminal, denied for silence,
 * "always" not saved).
 *
 * @module
 */

import {
  ApprovalInterruptedError,
  type ApprovalNotice,
  type ApprovalSurface,
  type AskHuman,
  describeTimeout,
} from "../../core/tools/approval_policy.ts";
import type { ApprovalChoice } from "../../core/tools/types.ts";
import type { Output } from "../io.ts";
import type { LineReader } from "./lines.ts";

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

/**
 * How one terminal chat run asks about dangerous commands: on `lines` when
 * the run is interactive (absent: nobody is asked, so the policy denies),
 * with the policy's notices printed on standard error.
 */
export function terminalApprovals(io: Output, lines?: LineReader): ApprovalSurface {
  return {
    ask: lines && askOnTerminal(io, lines),
    onNotice: (notice) => io.err(renderNotice(notice)),
  };
}

function askOnTerminal(io: Output, lines: LineReader): AskHuman {
  return async (request, { timeoutMs, signal }) => {
    io.err(
      `\n! ${request.tool} wants to run a dangerous command (${request.reason}):\n  ${request.command}\n`,
    );
    for (;;) {
      io.err(
        `Allow? [o]nce, for this [s]ession, [a]lways, [d]eny (denied after ${
          describeTimeout(timeoutMs)
        }): `,
      );
      let line: string | null;
      try {
        line = await lines.next(signal);
      } catch (error) {
        if (!signal.aborted) throw error;
        // Withdrawn: expired (the notice says so on a line of its own) or the turn was interrupted.
        if (signal.reason instanceof ApprovalInterruptedError) io.err("\n");
        return "deny";
      }
      if (line === null) return "deny";
      const choice = ANSWERS[line.trim().toLowerCase()];
      if (choice) return choice;
    }
  };
}

function renderNotice(notice: ApprovalNotice): string {
  const { request } = notice;
  switch (notice.code) {
    case "non_interactive":
      return `herald: denied ${request.tool} command (${request.reason}): ${request.command}\n` +
        `herald: non-interactive runs deny dangerous commands; to allow this rule always, add "${request.ruleKey}" to approvals.allow\n`;
    case "expired":
      return `\nherald: ${notice.message}\n`;
    case "not_saved_safe_mode":
    case "save_failed":
      return `herald: ${notice.message}\n`;
  }
}

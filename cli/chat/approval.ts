/**
 * Approval requests for dangerous commands in the terminal. The decision is
 * core's {@link ApprovalPolicy}; this module only asks on the terminal and
 * prints what the policy tells the user (denied without a terminal, denied
 * for silence, "always" not saved).
 *
 * @module
 */

import {
  type AlwaysStore,
  type ApprovalNotice,
  ApprovalPolicy,
  type AskHuman,
  describeTimeout,
} from "../../core/tools/approval_policy.ts";
import type { ApprovalChoice } from "../../core/tools/types.ts";
import type { Output } from "../io.ts";
import type { LineReader } from "./lines.ts";

/** How approval requests are answered in the terminal. */
export interface TerminalApprovalOptions {
  io: Output;
  /** A line source to ask on; absent for non-interactive runs. */
  ask?: LineReader;
  /** Saves "always" answers (config `approvals.allow`). */
  store: AlwaysStore;
  /** Safe mode saves nothing. */
  safeMode?: boolean;
  /** Rules allowed from the start. */
  allowed?: Iterable<string>;
  /** How long a question waits; the policy's default when absent. */
  timeoutMs?: number;
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

/** Builds the approval policy of one terminal chat run. */
export function terminalApprovalPolicy(options: TerminalApprovalOptions): ApprovalPolicy {
  const { io } = options;
  return new ApprovalPolicy({
    ask: options.ask && askOnTerminal(io, options.ask),
    store: options.store,
    safeMode: options.safeMode ?? false,
    allowed: options.allowed,
    timeoutMs: options.timeoutMs,
    onNotice: (notice) => io.err(renderNotice(notice)),
  });
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
        if (signal.aborted) return "deny";
        throw error;
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

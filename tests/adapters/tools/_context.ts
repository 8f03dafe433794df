/**
 * A hand-built ToolContext for tool tests: approvals are recorded and
 * answered by a stub.
 *
 * @module
 */

import type { ApprovalRequest, ToolContext } from "../../../core/tools/types.ts";

/** An approval request as a tool sends it. */
export type SentApproval = Omit<ApprovalRequest, "ruleKey"> & { ruleKey?: string };

/** A ToolContext that records every approval request. */
export interface TestContext extends ToolContext {
  approvals: SentApproval[];
}

/**
 * Builds a context rooted at `cwd`; `approve` answers approval requests
 * (default: deny). The profile home defaults to `<cwd>/.herald-home`, a
 * folder of its own as in real use (the file tools refuse to write a home).
 */
export function toolContext(options: {
  cwd: string;
  home?: string;
  approve?: boolean;
  signal?: AbortSignal;
  sessionId?: string;
}): TestContext {
  const approvals: SentApproval[] = [];
  return {
    sessionId: options.sessionId ?? "ses_test",
    cwd: options.cwd,
    home: options.home ?? `${options.cwd}/.herald-home`,
    signal: options.signal ?? new AbortController().signal,
    approvals,
    approve(request) {
      approvals.push(request);
      return Promise.resolve(options.approve ?? false);
    },
  };
}

/** Whether a process is running (a zombie waiting to be reaped counts as gone). */
export function processAlive(pid: number): boolean {
  if (Deno.build.os === "linux") {
    try {
      const stat = Deno.readTextFileSync(`/proc/${pid}/stat`);
      return stat.slice(stat.lastIndexOf(")") + 2)[0] !== "Z";
    } catch {
      return false;
    }
  }
  try {
    Deno.kill(pid, "SIGCONT");
    return true;
  } catch {
    return false;
  }
}

/** Waits until `path` exists and holds a number; returns it. */
export async function waitForPid(path: string, timeoutMs = 5000): Promise<number> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const text = await Deno.readTextFile(path).catch(() => "");
    if (/^\d+\s*$/.test(text)) return Number(text.trim());
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  throw new Error(`No pid file at ${path} after ${timeoutMs} ms`);
}

/** Polls `check` until it is true or `timeoutMs` passes; returns the last answer. */
export async function eventually(check: () => boolean, timeoutMs = 3000): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) return false;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return true;
}

/**
 * Dangerous-command approvals over the gateway: the dashboard's way to "ask
 * a human" for core's approval policy (core/tools/approval_policy.ts). A
 * question goes out as an `approval.request` notification and waits for an
 * `approval.respond` call with the same id. When the policy's timeout expires
 * the question is withdrawn with `approval.expire`; an interrupted turn or a
 * closed socket mean "deny" (fail closed).
 *
 * @module
 */

import type { AskOptions } from "../../core/tools/approval_policy.ts";
import type { ApprovalChoice, ApprovalRequest } from "../../core/tools/types.ts";

/** Sends a notification to the client. */
export type Notify = (method: string, params: Record<string, unknown>) => void;

interface Pending {
  sessionKey: string;
  resolve(choice: ApprovalChoice): void;
  release(): void;
}

/** The approval requests of one connection waiting for the client's answer. */
export class ApprovalBroker {
  readonly #notify: Notify;
  readonly #pending = new Map<string, Pending>();
  #sequence = 0;

  /** Creates a broker that notifies the client through `notify`. */
  constructor(notify: Notify) {
    this.#notify = notify;
  }

  /**
   * Asks the client about `request` for session `sessionKey`; resolves to its
   * choice, or "deny" when `options.signal` is aborted (the question expired),
   * which also tells the client with `approval.expire`.
   */
  ask(sessionKey: string, request: ApprovalRequest, options: AskOptions): Promise<ApprovalChoice> {
    const id = `apr_${++this.#sequence}_${crypto.randomUUID().slice(0, 8)}`;
    const { signal, timeoutMs } = options;
    return new Promise((resolve) => {
      const onAbort = () => {
        if (this.#settle(id, "deny")) {
          const reason = signal.reason instanceof Error ? signal.reason.message : "expired";
          this.#notify("approval.expire", { id, session_key: sessionKey, reason });
        }
      };
      const release = () => signal.removeEventListener("abort", onAbort);
      this.#pending.set(id, { sessionKey, resolve, release });
      signal.addEventListener("abort", onAbort, { once: true });
      this.#notify("approval.request", {
        id,
        session_key: sessionKey,
        tool: request.tool,
        command: request.command,
        reason: request.reason,
        rule_key: request.ruleKey,
        choices: ["once", "session", "always", "deny"],
        timeout_ms: timeoutMs,
      });
      if (signal.aborted) onAbort();
    });
  }

  /** Answers request `id`; false when it is not pending (answered, expired or cancelled). */
  respond(id: string, choice: ApprovalChoice): boolean {
    return this.#settle(id, choice);
  }

  /** Denies every request of session `sessionKey` (its turn was interrupted or closed). */
  denySession(sessionKey: string): void {
    for (const [id, pending] of this.#pending) {
      if (pending.sessionKey === sessionKey) this.#settle(id, "deny");
    }
  }

  /** Denies every pending request (the socket closed). */
  denyAll(): void {
    for (const id of [...this.#pending.keys()]) this.#settle(id, "deny");
  }

  /** How many requests wait for an answer. */
  get size(): number {
    return this.#pending.size;
  }

  #settle(id: string, choice: ApprovalChoice): boolean {
    const pending = this.#pending.get(id);
    if (!pending) return false;
    this.#pending.delete(id);
    pending.release();
    pending.resolve(choice);
    return true;
  }
}

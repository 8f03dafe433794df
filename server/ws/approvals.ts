/**
 * Dangerous-command approvals over the gateway: a request goes out as an
 * `approval.request` notification and waits for an `approval.respond` call
 * with the same id. No answer within the timeout, an interrupted turn or a
 * closed socket all mean "deny" (fail closed).
 *
 * @module
 */

import type { ApprovalChoice, ApprovalRequest } from "../../core/tools/types.ts";

/** How long an approval request waits for an answer by default. */
export const APPROVAL_TIMEOUT_MS = 120_000;

/** Sends a notification to the client. */
export type Notify = (method: string, params: Record<string, unknown>) => void;

interface Pending {
  sessionKey: string;
  resolve(choice: ApprovalChoice): void;
  timer: ReturnType<typeof setTimeout>;
}

/** The approval requests of one connection waiting for the client's answer. */
export class ApprovalBroker {
  readonly #notify: Notify;
  readonly #timeoutMs: number;
  readonly #pending = new Map<string, Pending>();
  #sequence = 0;

  /** Creates a broker that notifies through `notify` and denies after `timeoutMs`. */
  constructor(notify: Notify, timeoutMs: number = APPROVAL_TIMEOUT_MS) {
    this.#notify = notify;
    this.#timeoutMs = timeoutMs;
  }

  /** Asks the client about `request` for session `sessionKey`; resolves to its choice. */
  ask(sessionKey: string, request: ApprovalRequest): Promise<ApprovalChoice> {
    const id = `apr_${++this.#sequence}_${crypto.randomUUID().slice(0, 8)}`;
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        if (this.#settle(id, "deny")) {
          this.#notify("approval.expire", {
            id,
            session_key: sessionKey,
            reason: `no answer within ${Math.round(this.#timeoutMs / 1000)} s; denied`,
          });
        }
      }, this.#timeoutMs);
      this.#pending.set(id, { sessionKey, resolve, timer });
      this.#notify("approval.request", {
        id,
        session_key: sessionKey,
        tool: request.tool,
        command: request.command,
        reason: request.reason,
        rule_key: request.ruleKey,
        choices: ["once", "session", "always", "deny"],
        timeout_ms: this.#timeoutMs,
      });
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
    clearTimeout(pending.timer);
    pending.resolve(choice);
    return true;
  }
}

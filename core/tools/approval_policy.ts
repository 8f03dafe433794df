/**
 * The approval policy for dangerous actions, the same on every surface. A
 * surface (the terminal, the dashboard) only supplies "ask a human"; this
 * module decides everything else:
 *
 * - A rule in the allow list (config `approvals.allow`, or approved
 *   "always" during this run) passes without asking.
 * - Yolo mode (`--yolo`, `approvals.mode: yolo`) passes everything it is
 *   asked about. Hardline commands and `approvals.deny` never get here:
 *   the tools refuse them first.
 * - Without a way to ask (a non-interactive run) everything else is denied.
 * - Silence is not consent: a question unanswered after the timeout
 *   ({@link APPROVAL_TIMEOUT_MS} by default) is denied.
 * - A question whose turn was interrupted is withdrawn and denied.
 * - "always" is saved through the {@link AlwaysStore} port, except in safe
 *   mode, which never writes: there it holds for the rest of the run only
 *   (answered as "session"). When the save fails the one call the user
 *   approved still runs (answered as "once") and the user is told the rule
 *   was not saved.
 * - Questions are asked one at a time; a queued question's timeout starts
 *   when it is asked, and it passes without asking when the rule was
 *   approved "always" meanwhile.
 *
 * "session" grants are kept by the agent session (core/agent/session.ts).
 *
 * @module
 */

import { HeraldError } from "../errors.ts";
import type { ApprovalChoice, ApprovalRequest } from "./types.ts";

/** The config key the rule keys approved "always" are saved under. */
export const ALLOW_LIST_KEY = "approvals.allow";

/** What a surface tells the user when a run starts in yolo mode. */
export const YOLO_NOTICE = "yolo mode: dangerous commands run without asking; hardline commands " +
  "and approvals.deny are still refused";

/** How long an approval question waits for an answer before it is denied. */
export const APPROVAL_TIMEOUT_MS = 120_000;

/** Where rules approved "always" are kept (config `approvals.allow`). */
export interface AlwaysStore {
  /** Saves `ruleKey` as approved always; rejects when it could not be saved. */
  add(ruleKey: string): Promise<void>;
}

/** What a surface gets to ask a human with. */
export interface AskOptions {
  /** How long the human has; shown to them. */
  timeoutMs: number;
  /** Aborted when the question expired: withdraw it, the answer no longer counts. */
  signal: AbortSignal;
}

/**
 * Asks a human about `request`. Resolves to the answer; "deny" when the
 * question cannot be answered any more (input ended, connection closed).
 */
export type AskHuman = (request: ApprovalRequest, options: AskOptions) => Promise<ApprovalChoice>;

/** Something the user should be told about a decision they did not make by answering. */
export type ApprovalNotice =
  | { code: "non_interactive"; request: ApprovalRequest; message: string }
  | { code: "expired"; request: ApprovalRequest; timeoutMs: number; message: string }
  | { code: "not_saved_safe_mode"; request: ApprovalRequest; message: string }
  | { code: "save_failed"; request: ApprovalRequest; error: string; message: string };

/**
 * All a surface supplies to the policy: a way to ask a human and a place
 * to tell them what was decided without them. The policy itself (rules,
 * saving, safe mode, the timeout) is the same on every surface.
 */
export interface ApprovalSurface {
  /** Asks a human; absent for non-interactive runs, which deny what is not allowed. */
  ask?: AskHuman;
  /** Receives what the user must be told (denied unasked, expired, not saved). */
  onNotice?(notice: ApprovalNotice): void;
  /** How long a question waits; {@link APPROVAL_TIMEOUT_MS} by default. */
  timeoutMs?: number;
}

/**
 * The surface of a run nobody watches (a kanban worker, `herald mcp
 * serve`): nothing is asked, so what the profile does not allow is
 * denied, and each denial is logged with the rule that would allow it:
 * `<prefix>: denied a dangerous <tool> call (<reason>): nobody can approve
 * it <where>; to allow it, run \`herald approvals allow <rule>\``.
 */
export function unattendedSurface(
  log: (line: string) => void,
  prefix: string,
  where: string,
): ApprovalSurface {
  return {
    onNotice(notice) {
      const { tool, reason, ruleKey } = notice.request;
      log(
        `${prefix}: denied a dangerous ${tool} call (${reason}): nobody can approve it ${where}; ` +
          `to allow it, run \`herald approvals allow ${ruleKey}\``,
      );
    },
  };
}

/** Options of {@link ApprovalPolicy}. */
export interface ApprovalPolicyOptions extends ApprovalSurface {
  /** Saves "always" answers. */
  store: AlwaysStore;
  /** Safe mode never saves anything. */
  safeMode: boolean;
  /** Rules allowed from the start (config `approvals.allow`); more with {@link ApprovalPolicy.allow}. */
  allowed?: Iterable<string>;
  /** Yolo mode: every request passes unasked ("once"). */
  yolo?: boolean;
}

/** Options of one {@link ApprovalPolicy.decide} call. */
export interface DecideOptions {
  /**
   * The turn's signal: once aborted, a question not yet asked is denied
   * unasked and one being asked is withdrawn and denied.
   */
  signal?: AbortSignal;
}

/**
 * Decides approval requests for one run (a terminal chat, a dashboard session).
 *
 * @example
 * ```ts
 * const policy = new ApprovalPolicy({ store, safeMode: false, ask: askOnTerminal });
 * policy.allow(config.approvals.allow);
 * const session = AgentSession.start({ ...options, approve: policy.decide });
 * ```
 */
export class ApprovalPolicy {
  readonly #options: ApprovalPolicyOptions;
  readonly #allowed: Set<string>;
  readonly #timeoutMs: number;
  #queue: Promise<unknown> = Promise.resolve();

  /** Creates the policy; nothing is asked until {@link decide} is called. */
  constructor(options: ApprovalPolicyOptions) {
    this.#options = options;
    this.#allowed = new Set(options.allowed ?? []);
    this.#timeoutMs = options.timeoutMs ?? APPROVAL_TIMEOUT_MS;
    if (!(this.#timeoutMs > 0)) {
      throw new RangeError(`Approval timeout must be positive, got ${this.#timeoutMs}`);
    }
  }

  /** Allows `ruleKeys` without asking from now on (for example the config's allow list). */
  allow(ruleKeys: Iterable<string>): void {
    for (const rule of ruleKeys) this.#allowed.add(rule);
  }

  /** True in yolo mode: what is asked about passes unasked. */
  get yolo(): boolean {
    return this.#options.yolo === true;
  }

  /** True when `ruleKey` passes without asking. */
  allows(ruleKey: string): boolean {
    return this.#allowed.has(ruleKey);
  }

  /** Decides one request; pass it as the session's approval handler. */
  readonly decide = (
    request: ApprovalRequest,
    options: DecideOptions = {},
  ): Promise<ApprovalChoice> => {
    const answer = this.#queue.then(() => this.#decideNow(request, options.signal));
    this.#queue = answer.catch(() => {});
    return answer;
  };

  async #decideNow(request: ApprovalRequest, turn?: AbortSignal): Promise<ApprovalChoice> {
    if (this.#allowed.has(request.ruleKey)) return "always";
    if (turn?.aborted) return "deny";
    if (this.#options.yolo) return "once";
    const { ask } = this.#options;
    if (!ask) {
      this.#notice({
        code: "non_interactive",
        request,
        message: `Denied ${request.tool} command (${request.reason}): ${request.command}. ` +
          `Non-interactive runs deny dangerous commands; to allow this rule always, ` +
          `add "${request.ruleKey}" to approvals.allow`,
      });
      return "deny";
    }
    const choice = await this.#askInTime(ask, request, turn);
    return choice === "always" ? await this.#always(request) : choice;
  }

  async #askInTime(
    ask: AskHuman,
    request: ApprovalRequest,
    turn: AbortSignal | undefined,
  ): Promise<ApprovalChoice> {
    const timeoutMs = this.#timeoutMs;
    const controller = new AbortController();
    let timer: ReturnType<typeof setTimeout> | undefined;
    let onInterrupt = () => {};
    const expired = new Promise<"expired">((resolve) => {
      timer = setTimeout(() => resolve("expired"), timeoutMs);
    });
    const interrupted = new Promise<"interrupted">((resolve) => {
      onInterrupt = () => resolve("interrupted");
      turn?.addEventListener("abort", onInterrupt, { once: true });
    });
    let answer: ApprovalChoice | "expired" | "interrupted";
    try {
      answer = await Promise.race([
        ask(request, { timeoutMs, signal: controller.signal }),
        expired,
        interrupted,
      ]);
    } finally {
      clearTimeout(timer);
      turn?.removeEventListener("abort", onInterrupt);
    }
    if (answer === "interrupted") {
      controller.abort(new ApprovalInterruptedError(request));
      return "deny";
    }
    if (answer !== "expired") return answer;
    const message = `Denied ${request.tool} command (${request.reason}): ${request.command}. ` +
      `No answer within ${describeTimeout(timeoutMs)}; silence is not consent`;
    controller.abort(new ApprovalExpiredError(message));
    this.#notice({ code: "expired", request, timeoutMs, message });
    return "deny";
  }

  async #always(request: ApprovalRequest): Promise<ApprovalChoice> {
    if (this.#options.safeMode) {
      this.#allowed.add(request.ruleKey);
      this.#notice({
        code: "not_saved_safe_mode",
        request,
        message: `Safe mode saves nothing: "${request.ruleKey}" is allowed until this run ends, ` +
          `not added to approvals.allow`,
      });
      return "session";
    }
    try {
      await this.#options.store.add(request.ruleKey);
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      this.#notice({
        code: "save_failed",
        request,
        error: reason,
        message: `Could not save "${request.ruleKey}" to approvals.allow (${reason}); ` +
          `allowed this once, you will be asked again next time`,
      });
      return "once";
    }
    this.#allowed.add(request.ruleKey);
    return "always";
  }

  #notice(notice: ApprovalNotice): void {
    this.#options.onNotice?.(notice);
  }
}

/** The reason an expired question's signal is aborted with. */
export class ApprovalExpiredError extends HeraldError {
  /** Creates the error; `message` says what was denied and after how long. */
  constructor(message: string) {
    super("approval_expired", "state", message);
  }
}

/** The reason a question is withdrawn with when its turn was interrupted. */
export class ApprovalInterruptedError extends HeraldError {
  /** Creates the error for the withdrawn `request`. */
  constructor(request: ApprovalRequest) {
    super(
      "approval_interrupted",
      "state",
      `Denied ${request.tool} command (${request.reason}): ${request.command}. The turn was interrupted`,
    );
  }
}

/** A timeout for people: `120 s`, or `250 ms` below a second. */
export function describeTimeout(ms: number): string {
  return ms >= 1000 ? `${Math.round(ms / 1000)} s` : `${ms} ms`;
}

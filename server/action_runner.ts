/**
 * Background actions (update, gateway restart): child processes the
 * dashboard starts and reports on. Starting is serialised: the check for a
 * live action of the same kind and the claim of its slot happen in one
 * synchronous step, so a request made while one is live gets that one back
 * (`reused`) instead of spawning a second.
 *
 * @module
 */

/** The kinds of background action. */
export type ActionKind = "herald-update" | "gateway-restart";

/** Where an action is. */
export type ActionStatus = "starting" | "running" | "succeeded" | "failed";

/** One action, as reported. */
export interface ActionView {
  id: string;
  kind: ActionKind;
  status: ActionStatus;
  /** The command line as run. */
  command: string[];
  pid: number | null;
  exit_code: number | null;
  signal: string | null;
  /** Why it could not start, when it could not. */
  error: string | null;
  started_at: string;
  finished_at: string | null;
  /** The last lines of its combined output. */
  output_tail: string[];
  /** Extra facts about the run (for an update: the branch). */
  details: Record<string, unknown>;
}

/** What a spawn needs, worked out once the slot is claimed. */
export interface ActionPlan {
  command: string[];
  env: Record<string, string>;
  cwd: string;
  details?: Record<string, unknown>;
}

interface ActionRecord {
  id: string;
  kind: ActionKind;
  status: ActionStatus;
  command: string[];
  pid: number | null;
  exitCode: number | null;
  signal: string | null;
  error: string | null;
  startedAt: number;
  finishedAt: number | null;
  output: string;
  details: Record<string, unknown>;
  done: Promise<void>;
}

/** Characters of output kept per action. */
const OUTPUT_LIMIT = 64 * 1024;
/** Finished actions remembered. */
const HISTORY = 50;

/** Starts and tracks background actions. One runner per dashboard app. */
export class ActionRunner {
  readonly #records = new Map<string, ActionRecord>();
  readonly #live = new Map<ActionKind, ActionRecord>();
  readonly #now: () => number;

  /** Creates a runner; `now` is the clock. */
  constructor(now: () => number = Date.now) {
    this.#now = now;
  }

  /**
   * Starts an action of `kind`, or returns the live one of that kind.
   * `plan` runs only when a new action is started.
   */
  start(kind: ActionKind, plan: () => Promise<ActionPlan>): { id: string; reused: boolean } {
    const live = this.#live.get(kind);
    if (live) return { id: live.id, reused: true };
    const record: ActionRecord = {
      id: `act_${crypto.randomUUID().replaceAll("-", "").slice(0, 16)}`,
      kind,
      status: "starting",
      command: [],
      pid: null,
      exitCode: null,
      signal: null,
      error: null,
      startedAt: this.#now(),
      finishedAt: null,
      output: "",
      details: {},
      done: Promise.resolve(),
    };
    this.#live.set(kind, record);
    this.#records.set(record.id, record);
    this.#forgetOld();
    record.done = this.#run(record, plan).finally(() => {
      record.finishedAt = this.#now();
      this.#live.delete(kind);
    });
    return { id: record.id, reused: false };
  }

  /** The action with `id`, or undefined. `lines` caps the output tail. */
  get(id: string, lines = 200): ActionView | undefined {
    const record = this.#records.get(id);
    return record ? this.#view(record, lines) : undefined;
  }

  /** Every remembered action, newest first. */
  list(lines = 20): ActionView[] {
    return [...this.#records.values()].reverse().map((record) => this.#view(record, lines));
  }

  /** Resolves when the action has finished (for tests and shutdown). */
  async settled(id: string): Promise<void> {
    await this.#records.get(id)?.done;
  }

  async #run(record: ActionRecord, plan: () => Promise<ActionPlan>): Promise<void> {
    let child: Deno.ChildProcess;
    try {
      const planned = await plan();
      record.command = planned.command;
      record.details = planned.details ?? {};
      const [program, ...args] = planned.command;
      child = new Deno.Command(program, {
        args,
        env: planned.env,
        cwd: planned.cwd,
        stdin: "null",
        stdout: "piped",
        stderr: "piped",
      }).spawn();
    } catch (error) {
      record.status = "failed";
      record.error = error instanceof Deno.errors.NotFound
        ? `Cannot start "${record.command[0] ?? "?"}": no such program`
        : (error as Error).message;
      return;
    }
    record.pid = child.pid;
    record.status = "running";
    const append = (text: string) => {
      record.output = (record.output + text).slice(-OUTPUT_LIMIT);
    };
    const pump = async (stream: ReadableStream<Uint8Array>) => {
      for await (const chunk of stream.pipeThrough(new TextDecoderStream())) append(chunk);
    };
    const [status] = await Promise.all([
      child.status,
      pump(child.stdout).catch(() => {}),
      pump(child.stderr).catch(() => {}),
    ]);
    record.exitCode = status.code;
    record.signal = status.signal;
    record.status = status.success ? "succeeded" : "failed";
  }

  #forgetOld(): void {
    for (const [id, record] of this.#records) {
      if (this.#records.size <= HISTORY) break;
      if (record.status === "succeeded" || record.status === "failed") this.#records.delete(id);
    }
  }

  #view(record: ActionRecord, lines: number): ActionView {
    const outputLines = record.output.replace(/\n$/, "").split("\n");
    return {
      id: record.id,
      kind: record.kind,
      status: record.status,
      command: record.command,
      pid: record.pid,
      exit_code: record.exitCode,
      signal: record.signal,
      error: record.error,
      started_at: new Date(record.startedAt).toISOString(),
      finished_at: record.finishedAt === null ? null : new Date(record.finishedAt).toISOString(),
      output_tail: record.output === "" ? [] : outputLines.slice(-lines),
      details: record.details,
    };
  }
}

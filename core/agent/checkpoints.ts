/**
 * Checkpoints and `/rollback`. With `checkpoints.enabled`, before a turn's
 * first write to a file (a tool with `mutatedPath`: write_file, patch) the
 * file is read as it is, and once the call has changed it, that copy is
 * kept in a {@link CheckpointStore} (once per file per turn) with what the
 * tool left noted beside it. A call that changed nothing (refused by the
 * write guard, a failed patch) keeps nothing, so a protected file such as
 * `~/.ssh/id_rsa` or a project's `.env` is never copied. One turn makes at
 * most one checkpoint; the oldest beyond `checkpoints.max_snapshots` are
 * pruned.
 *
 * `/rollback N` undoes the turn of checkpoint N and every later one: each
 * file they touched goes back to what it was before the earliest of them (a
 * file that did not exist is removed), unless it no longer holds what the
 * agent left there, which means someone edited it by hand since: such a
 * file is kept and listed. The conversation then drops the exchange from
 * that turn's user message on.
 *
 * This module is the bookkeeping and the decisions; where file contents
 * are kept is the store's business (adapters/checkpoints).
 *
 * @module
 */

import type { ToolCall } from "../models/types.ts";
import type { ToolOutcome, ToolRegistry } from "../tools/registry.ts";
import type { ToolContext } from "../tools/types.ts";

/** The most checkpoints kept per working directory (and the default of `checkpoints.max_snapshots`). */
const MAX_CHECKPOINTS = 20;

/** What a path held at one moment. */
export type FileState =
  /** No file; `missingDirs` are the folders (deepest first) that did not exist either. */
  | { kind: "absent"; missingDirs?: string[] }
  /** A regular file; `hash` names its content in the store. */
  | { kind: "file"; hash: string; size: number; mode?: number }
  /** Not kept (too large, not a regular file); it cannot be restored. */
  | { kind: "skipped"; reason: string };

/** A file read before a write: its state and, for a regular file, its bytes (held until kept). */
export interface FileCopy {
  state: FileState;
  bytes?: Uint8Array;
}

/** One file of a checkpoint: what it was before the turn's first write, and what the agent left. */
export interface CheckpointFile {
  /** Absolute path. */
  path: string;
  before: FileState;
  /** What the path held right after the turn's last write to it; absent while that write runs. */
  after?: FileState;
}

/** What identifies a checkpoint: the turn it belongs to. */
export interface NewCheckpoint {
  /** `chk_...` */
  id: string;
  sessionId: string;
  /** The stored id of the turn's user message: the exchange a rollback drops starts there. */
  messageId: number;
  /** The user message, shortened to one line. */
  label: string;
  /** Epoch milliseconds. */
  createdAt: number;
}

/** A stored checkpoint. */
export interface CheckpointRecord extends NewCheckpoint {
  files: CheckpointFile[];
}

/**
 * Where checkpoints are kept, one store per working directory. Every
 * method may be called concurrently from several sessions and processes.
 */
export interface CheckpointStore {
  /** The working directory whose checkpoints this store keeps. */
  readonly workdir: string;
  /** Reads `path` as it is now (its content only up to the store's size limit), keeping nothing. */
  read(path: string): Promise<FileCopy>;
  /**
   * Keeps `copy` as what `path` was before `checkpoint`'s turn (creating
   * the checkpoint with its first file). A path the checkpoint already
   * holds is left as it was.
   */
  snapshot(checkpoint: NewCheckpoint, path: string, copy: FileCopy): Promise<void>;
  /**
   * Notes what `path` holds now as its `after` in checkpoint `id` (nothing
   * when `id` is gone): `after` when the caller has just inspected the path,
   * else the store reads it.
   */
  recordAfter(id: string, path: string, after?: FileState): Promise<void>;
  /** What `path` holds now, keeping nothing. */
  inspect(path: string): Promise<FileState>;
  /** Every checkpoint of the working directory, oldest first (by time, then message id). */
  list(): Promise<CheckpointRecord[]>;
  /**
   * Puts `state` back at `path`: writes the kept content, or for `absent`
   * removes the file and the empty folders that did not exist either.
   */
  put(path: string, state: FileState & { kind: "file" | "absent" }): Promise<void>;
  /** Deletes checkpoints, and the contents no remaining checkpoint needs. */
  remove(ids: readonly string[]): Promise<void>;
}

/** One checkpoint as `/rollback` lists it. */
export interface CheckpointEntry {
  /** 1 for the newest checkpoint of the session, 2 for the one before, ... */
  number: number;
  id: string;
  label: string;
  createdAt: number;
  messageId: number;
  /** The files the turn changed, relative to the working directory when inside it. */
  files: string[];
}

/** What `/rollback N` did, or why it did nothing. */
export type RollbackOutcome =
  | {
    ok: true;
    checkpoint: CheckpointEntry;
    /** Checkpoints undone: N and every newer one of the session. */
    undone: number;
    /** Files put back as they were. */
    restored: string[];
    /** Files the undone turns created, now removed. */
    removed: string[];
    /** Files edited by hand since the agent wrote them: left as they are. */
    kept: string[];
    /** Files that were not kept in the checkpoint (too large, not a regular file). */
    skipped: { path: string; reason: string }[];
    /** The exchange dropped from the conversation starts at this stored message. */
    messageId: number;
    /** Exchanges (user messages with what followed) dropped; set by the session that dropped them. */
    dropped?: number;
  }
  | { ok: false; code: "no_checkpoints" | "not_found" | "no_session"; message: string };

/** Options of {@link Checkpoints}. */
export interface CheckpointsOptions {
  /** Checkpoints kept per working directory, 1 to 20 (default and maximum 20). */
  maxSnapshots?: number;
  now?: () => number;
}

function same(a: FileState | undefined, b: FileState | undefined): boolean {
  if (!a || !b) return false;
  if (a.kind === "absent" && b.kind === "absent") return true;
  return a.kind === "file" && b.kind === "file" && a.hash === b.hash;
}

function shorten(text: string, limit = 60): string {
  const line = text.trim().split("\n")[0].replace(/\s+/g, " ");
  return line.length > limit ? `${line.slice(0, limit - 3)}...` : line;
}

function newCheckpointId(now: number): string {
  const random = crypto.getRandomValues(new Uint32Array(2));
  return `chk_${now.toString(36)}${random[0].toString(36)}${random[1].toString(36)}`;
}

/**
 * The checkpoint bookkeeping of one turn: the first call that changes a file
 * keeps it, later calls on the same file do not. Made by
 * {@link Checkpoints.turn}.
 */
export class TurnCheckpoint {
  readonly #checkpoints: Checkpoints;
  readonly #meta: NewCheckpoint;
  readonly #seen = new Set<string>();
  #created = false;
  #queue: Promise<unknown> = Promise.resolve();

  /** Use {@link Checkpoints.turn}. */
  constructor(checkpoints: Checkpoints, meta: NewCheckpoint) {
    this.#checkpoints = checkpoints;
    this.#meta = meta;
  }

  /** The checkpoint's id (its record exists once a file was kept). */
  get id(): string {
    return this.#meta.id;
  }

  /**
   * Runs one tool call with `tools.execute`. Before the turn's first change
   * to a file, the file is read; when the call changed it, that copy is
   * kept, and what the call left is noted. A checkpoint that cannot be
   * taken does not stop the call.
   */
  async execute(tools: ToolRegistry, call: ToolCall, context: ToolContext): Promise<ToolOutcome> {
    const path = tools.mutatedPath(call, context);
    if (path === undefined) return await tools.execute(call, context);
    const store = this.#checkpoints.store;
    const copy = this.#seen.has(path) ? undefined : await store.read(path).catch(() => undefined);
    let ok = false;
    try {
      const outcome = await tools.execute(call, context);
      ok = outcome.ok;
      return outcome;
    } finally {
      await this.#serial(() => this.#after(path, copy, ok)).catch(() => {});
    }
  }

  /** Keeps `copy` when the call changed the file, and notes what the file holds now. */
  async #after(path: string, copy: FileCopy | undefined, ok: boolean): Promise<void> {
    const store = this.#checkpoints.store;
    let after: FileState | undefined;
    if (!this.#seen.has(path)) {
      if (!copy) return;
      // A file that was not read (too large) changed when the call says it wrote it.
      if (copy.state.kind !== "skipped") after = await store.inspect(path);
      const changed = copy.state.kind === "skipped" ? ok : !same(after, copy.state);
      if (!changed) return;
      await store.snapshot(this.#meta, path, copy);
      this.#seen.add(path);
      if (!this.#created) {
        this.#created = true;
        // A failed prune leaves one checkpoint too many until the next turn prunes.
        await this.#checkpoints.prune().catch(() => {});
      }
    }
    await store.recordAfter(this.#meta.id, path, after);
  }

  #serial<T>(work: () => Promise<T>): Promise<T> {
    const run = this.#queue.then(work, work);
    this.#queue = run.catch(() => {});
    return run;
  }
}

/**
 * The checkpoints of one working directory: made per turn, listed and
 * rolled back per session.
 *
 * @example
 * ```ts
 * const checkpoints = new Checkpoints(store, { maxSnapshots: 20 });
 * const turn = checkpoints.turn({ sessionId, messageId, text: "fix the parser" });
 * const outcome = await turn.execute(tools, call, context);
 * const [latest] = await checkpoints.list(sessionId);
 * await checkpoints.rollback(sessionId, latest.number);
 * ```
 */
export class Checkpoints {
  /** Where the files are kept. */
  readonly store: CheckpointStore;
  readonly #max: number;
  readonly #now: () => number;

  /** Checkpoints in `store`; `options.maxSnapshots` is clamped to 1..20. */
  constructor(store: CheckpointStore, options: CheckpointsOptions = {}) {
    this.store = store;
    const max = Math.trunc(options.maxSnapshots ?? MAX_CHECKPOINTS);
    this.#max = Math.min(
      MAX_CHECKPOINTS,
      Math.max(1, Number.isFinite(max) ? max : MAX_CHECKPOINTS),
    );
    this.#now = options.now ?? Date.now;
  }

  /** The most checkpoints kept. */
  get maxSnapshots(): number {
    return this.#max;
  }

  /** The bookkeeping of one turn whose user message `text` was stored as `messageId`. */
  turn(input: { sessionId: string; messageId: number; text: string }): TurnCheckpoint {
    const createdAt = this.#now();
    return new TurnCheckpoint(this, {
      id: newCheckpointId(createdAt),
      sessionId: input.sessionId,
      messageId: input.messageId,
      label: shorten(input.text),
      createdAt,
    });
  }

  /** Deletes the oldest checkpoints beyond the maximum. */
  async prune(): Promise<void> {
    const all = await this.store.list();
    if (all.length <= this.#max) return;
    await this.store.remove(all.slice(0, all.length - this.#max).map((record) => record.id));
  }

  /** The checkpoints of `sessionId`, newest first, numbered from 1. */
  async list(sessionId: string): Promise<CheckpointEntry[]> {
    return (await this.#records(sessionId)).reverse().map((record, index) =>
      this.#entry(record, index + 1)
    );
  }

  /**
   * Undoes checkpoint `number` of `sessionId` and every newer one: files go
   * back as they were before, files edited by hand since are kept, and the
   * checkpoints undone are deleted. Dropping the exchange from the
   * conversation is the caller's part ({@link RollbackOutcome} `messageId`).
   */
  async rollback(sessionId: string, number: number): Promise<RollbackOutcome> {
    const records = await this.#records(sessionId);
    if (records.length === 0) {
      return {
        ok: false,
        code: "no_checkpoints",
        message: "This session has no checkpoints to roll back: one is taken before a turn " +
          "first changes a file.",
      };
    }
    if (!Number.isSafeInteger(number) || number < 1 || number > records.length) {
      return {
        ok: false,
        code: "not_found",
        message:
          `No checkpoint ${number}; this session has ${records.length} (1 to ${records.length}, ` +
          "newest first). Use /rollback to list them.",
      };
    }
    const start = records.length - number;
    const target = records[start];
    const undone = records.slice(start);
    const plan = new Map<string, { before: FileState; expected: FileState | undefined }>();
    for (const record of undone) {
      for (const file of record.files) {
        const planned = plan.get(file.path);
        if (planned) planned.expected = file.after;
        else plan.set(file.path, { before: file.before, expected: file.after });
      }
    }
    const outcome = {
      restored: [] as string[],
      removed: [] as string[],
      kept: [] as string[],
      skipped: [] as { path: string; reason: string }[],
    };
    for (const [path, { before, expected }] of [...plan].sort(([a], [b]) => a < b ? -1 : 1)) {
      const current = await this.store.inspect(path);
      if (same(current, before)) continue;
      const shown = this.#display(path);
      if (!same(current, expected)) outcome.kept.push(shown);
      else if (before.kind === "skipped") {
        outcome.skipped.push({ path: shown, reason: before.reason });
      } else {
        try {
          await this.store.put(path, before);
          (before.kind === "absent" ? outcome.removed : outcome.restored).push(shown);
        } catch (error) {
          const reason = error instanceof Error ? error.message : String(error);
          outcome.skipped.push({ path: shown, reason });
        }
      }
    }
    await this.store.remove(undone.map((record) => record.id));
    return {
      ok: true,
      checkpoint: this.#entry(target, number),
      undone: undone.length,
      ...outcome,
      messageId: target.messageId,
    };
  }

  async #records(sessionId: string): Promise<CheckpointRecord[]> {
    return (await this.store.list()).filter((record) => record.sessionId === sessionId);
  }

  #entry(record: CheckpointRecord, number: number): CheckpointEntry {
    return {
      number,
      id: record.id,
      label: record.label,
      createdAt: record.createdAt,
      messageId: record.messageId,
      files: record.files.filter((file) => !same(file.before, file.after))
        .map((file) => this.#display(file.path)).sort(),
    };
  }

  #display(path: string): string {
    const root = this.store.workdir.replace(/[\\/]+$/, "");
    const inside = path.startsWith(`${root}/`) || path.startsWith(`${root}\\`);
    return inside ? path.slice(root.length + 1) : path;
  }
}

/** `/rollback` of one session, as a session that has checkpoints offers it. */
export interface SessionRollback {
  /** The session's checkpoints, newest first. */
  list(): Promise<CheckpointEntry[]>;
  /** Restores checkpoint `number` and drops its exchange and every later one from the conversation. */
  rollback(number: number): Promise<RollbackOutcome>;
}

function timeOf(epoch: number): string {
  const date = new Date(epoch);
  const two = (n: number) => String(n).padStart(2, "0");
  return `${date.getFullYear()}-${two(date.getMonth() + 1)}-${two(date.getDate())} ` +
    `${two(date.getHours())}:${two(date.getMinutes())}`;
}

function plural(count: number, word: string): string {
  return `${count} ${word}${count === 1 ? "" : "s"}`;
}

function listText(entries: readonly CheckpointEntry[]): string {
  if (entries.length === 0) {
    return "No checkpoints in this session: one is taken before a turn first changes a file.";
  }
  const lines = entries.map((entry) => {
    const files = entry.files.length === 0 ? "no file changed" : entry.files.join(", ");
    return `  ${entry.number}. ${timeOf(entry.createdAt)}  "${entry.label}"  (${files})`;
  });
  return [
    "Checkpoints of this session (newest first):",
    ...lines,
    "Use /rollback N to restore the files of checkpoint N and drop that exchange and the later ones.",
  ].join("\n");
}

function rollbackText(outcome: RollbackOutcome & { ok: true }): string {
  const { checkpoint } = outcome;
  const dropped = outcome.dropped === undefined
    ? "its exchange and the later ones"
    : plural(outcome.dropped, "exchange");
  const lines = [
    `Rolled back checkpoint ${checkpoint.number} ("${checkpoint.label}", ${
      timeOf(checkpoint.createdAt)
    }): ${dropped} dropped from the conversation.`,
  ];
  if (outcome.restored.length) lines.push(`Restored: ${outcome.restored.join(", ")}`);
  if (outcome.removed.length) lines.push(`Removed (created since): ${outcome.removed.join(", ")}`);
  if (outcome.kept.length) {
    lines.push(`Kept your hand-edits (not overwritten): ${outcome.kept.join(", ")}`);
  }
  for (const { path, reason } of outcome.skipped) lines.push(`Not restored: ${path} (${reason})`);
  if (outcome.restored.length + outcome.removed.length + outcome.kept.length === 0) {
    lines.push("No file needed restoring.");
  }
  return lines.join("\n");
}

/**
 * Carries out `/rollback` (`number` undefined: list) on a session and
 * returns the reply to show.
 */
export async function rollbackReply(
  session: { readonly checkpoints?: SessionRollback },
  number: number | undefined,
): Promise<string> {
  const rollback = session.checkpoints;
  if (!rollback) {
    return "Checkpoints are off for this conversation; turn them on with " +
      "`herald config set checkpoints.enabled true` (they apply to new conversations).";
  }
  if (number === undefined) return listText(await rollback.list());
  const outcome = await rollback.rollback(number);
  return outcome.ok ? rollbackText(outcome) : outcome.message;
}

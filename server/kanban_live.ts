/**
 * The kanban relay: the board's event log (`task_events` in the shared
 * `kanban.db`) published on the dashboard's event bus as `kanban.event`,
 * whichever process wrote it (a worker, `herald kanban`, the dashboard's
 * own routes). Other processes cannot reach this process's bus, so the
 * relay reads the log: every {@link KANBAN_POLL_MS} it asks for the entries
 * after the last one it saw (one indexed read) and publishes each.
 *
 * It works only while someone listens: the board is opened when a
 * subscription that takes `kanban.event` opens on the bus, and polling
 * stops and the board is closed when the last one ends. What was written
 * while nobody listened is skipped (a page that opens reads the board
 * itself; `GET /api/plugins/kanban/events?since=` catches up). A stopping
 * dashboard stops it for good (`LiveSockets.closeAll`).
 *
 * @module
 */

import { DEFAULT_BOARD } from "../core/kanban/mod.ts";
import type { BoardStore, TaskEvent } from "../core/kanban/board.ts";
import { type EventBus, eventOf } from "../core/events/mod.ts";
import { kanbanDbPath } from "../adapters/home/mod.ts";
import { openSqliteBoard } from "../adapters/kanban/mod.ts";

/** How often the relay reads the board's log while someone listens. */
export const KANBAN_POLL_MS = 500;

/** The event type the relay publishes. */
export const KANBAN_EVENT = "kanban.event";

/** How many task → board answers the relay remembers. */
const BOARD_CACHE_LIMIT = 5000;

/** Options of {@link KanbanRelay}. */
export interface KanbanRelayOptions {
  /** The Herald root, where `kanban.db` lives. */
  root: string;
  /** The bus the events go to, and whose subscriptions say when to poll. */
  events: EventBus;
  /** The profile stamped on the events (the one the dashboard serves). */
  profile: string;
  /** Opens the board (default: the SQLite `kanban.db` at the root). */
  openBoard?: () => BoardStore;
  /** Poll interval in ms (default {@link KANBAN_POLL_MS}). */
  intervalMs?: number;
}

/**
 * Relays the board's events to the bus while a subscription wants them.
 *
 * @example
 * ```ts
 * const relay = new KanbanRelay({ root, events: bus, profile: "default" });
 * // ... subscriptions come and go; polling follows them ...
 * relay.stop(); // when the server stops
 * ```
 */
export class KanbanRelay {
  readonly #options: KanbanRelayOptions;
  readonly #stopWatching: () => void;
  readonly #boards = new Map<string, string>();
  #board: BoardStore | undefined;
  #timer: ReturnType<typeof setTimeout> | undefined;
  /** The last log entry seen; undefined until the log was first read. */
  #cursor: number | undefined;
  #polling: Promise<void> | undefined;
  /** Counts resumes and pauses: a poll of an earlier run schedules nothing. */
  #generation = 0;
  #stopped = false;

  /** Starts following the bus's subscriptions. */
  constructor(options: KanbanRelayOptions) {
    this.#options = options;
    this.#stopWatching = options.events.onSubscriptionsChange(() => this.#follow());
    this.#follow();
  }

  /** True while the relay polls (someone listens). */
  get running(): boolean {
    return this.#board !== undefined;
  }

  /** Stops for good: no more polling, the board closed. Stopping twice is harmless. */
  async stop(): Promise<void> {
    this.#stopped = true;
    this.#stopWatching();
    await this.#pause();
  }

  #follow(): void {
    if (this.#stopped) return;
    const wanted = this.#options.events.wants(KANBAN_EVENT);
    if (wanted && !this.#board) this.#resume();
    else if (!wanted && this.#board) void this.#pause();
  }

  #resume(): void {
    try {
      this.#board = (this.#options.openBoard ?? (() =>
        openSqliteBoard(kanbanDbPath(this.#options.root))))();
    } catch (error) {
      console.error(`herald dashboard: cannot open the kanban board: ${errorText(error)}`);
      return;
    }
    const generation = ++this.#generation;
    // Skip what was written while nobody listened, then relay what comes.
    this.#polling = this.#skipToEnd().finally(() => this.#schedule(generation));
  }

  async #pause(): Promise<void> {
    this.#generation++;
    clearTimeout(this.#timer);
    this.#timer = undefined;
    const board = this.#board;
    this.#board = undefined;
    await this.#polling?.catch(() => {});
    board?.close();
  }

  #schedule(generation: number): void {
    if (generation !== this.#generation || !this.#board || this.#stopped) return;
    this.#timer = setTimeout(() => {
      this.#timer = undefined;
      this.#polling = this.#read().finally(() => this.#schedule(generation));
    }, this.#options.intervalMs ?? KANBAN_POLL_MS);
  }

  /** Moves the cursor to the newest entry without reading the log. */
  async #skipToEnd(): Promise<void> {
    const board = this.#board;
    if (!board) return;
    try {
      this.#cursor = await board.lastEventSeq();
    } catch {
      // A busy or closing database: the next poll tries again.
    }
  }

  /** Reads the log after the cursor and publishes its entries. */
  async #read(): Promise<void> {
    const board = this.#board;
    if (!board) return;
    // The log was never read (the skip failed): skip now rather than replay it all.
    if (this.#cursor === undefined) return await this.#skipToEnd();
    let entries: TaskEvent[];
    try {
      entries = await board.events(undefined, this.#cursor ?? 0);
    } catch {
      return; // A busy or closing database: the next tick tries again.
    }
    if (entries.length === 0) return;
    this.#cursor = entries[entries.length - 1].seq;
    for (const entry of entries) {
      if (this.#board !== board) return;
      this.#options.events.publish(
        eventOf("kanban.event", {
          profile: this.#options.profile,
          session_id: null,
          source: "kanban",
        }, {
          board: await this.#boardOf(board, entry.task_id),
          task_id: entry.task_id,
          kind: entry.kind,
          event_seq: entry.seq,
          payload: entry.payload,
        }),
      );
    }
  }

  /** The board slug of a task (remembered: a task never changes board). */
  async #boardOf(board: BoardStore, taskId: string): Promise<string> {
    const known = this.#boards.get(taskId);
    if (known !== undefined) return known;
    let slug = DEFAULT_BOARD;
    try {
      slug = (await board.getTask(taskId))?.board ?? DEFAULT_BOARD;
    } catch {
      // Closed meanwhile: the default board.
    }
    if (this.#boards.size >= BOARD_CACHE_LIMIT) this.#boards.clear();
    this.#boards.set(taskId, slug);
    return slug;
  }
}

function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

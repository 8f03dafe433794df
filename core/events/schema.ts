/**
 * The events of a running Herald, defined once: one zod schema per event
 * type, used as both the TypeScript type and the validator. Every event
 * names the profile, the session (null until its first message is stored)
 * and the surface it came from (`cli`, `dashboard`, later a channel, a
 * kanban worker or a cron run), and carries the bus's sequence number and
 * time. Field names are snake_case, as on every wire Herald speaks.
 *
 * Later capabilities add their families here; scheduled jobs have `cron.job.*`, the kanban
 * board `kanban.event`.
 *
 * @module
 */

import { z } from "zod";

/** Fields every event carries. The bus stamps `seq` and `at`. */
const envelope = {
  /** The profile whose session it is. */
  profile: z.string(),
  /** The stored session id, or null while a new session has stored nothing. */
  session_id: z.string().nullable(),
  /** The surface the session belongs to: `cli`, `dashboard`, ... */
  source: z.string(),
  /** Position on the bus that published it: from 1, increasing (a filtered subscriber sees gaps). */
  seq: z.number().int().positive(),
  /** Epoch milliseconds when it was published. */
  at: z.number(),
};

function event<T extends string, S extends z.ZodRawShape>(type: T, shape: S) {
  return z.object({ type: z.literal(type), ...envelope, ...shape });
}

const ToolCallSummary = z.object({ name: z.string(), arguments: z.string(), ok: z.boolean() });

/** A session is open on a surface: a resumed one at once, a new one when it is first stored. */
export const SessionStarted = event("session.started", {
  model: z.string(),
  provider: z.string(),
  resumed: z.boolean(),
});

/** A session left its surface: closed, exited (`/exit`), or replaced by `/new`. */
export const SessionEnded = event("session.ended", {
  reason: z.enum(["closed", "exit", "new_session", "resumed_other"]),
  /** True when its rows, transcript and request dumps were deleted (`/exit --delete`). */
  deleted: z.boolean(),
});

/** The user's text of a turn (a skill or bundle command arrives expanded). */
export const MessageUser = event("message.user", { text: z.string() });

/** A piece of the model's answer, as it streams. */
export const MessageDelta = event("message.delta", { text: z.string() });

/** A turn ended with an answer (possibly partial, when it was interrupted). */
export const MessageComplete = event("message.complete", {
  response: z.string(),
  tool_calls: z.array(ToolCallSummary),
  aborted: z.boolean(),
  hit_max_turns: z.boolean(),
});

/** A turn failed (the model could not be reached, refused the request, ...). */
export const MessageError = event("message.error", { code: z.string(), message: z.string() });

/** A tool call starts. */
export const ToolStart = event("tool.start", {
  tool_call_id: z.string(),
  name: z.string(),
  arguments: z.string(),
});

/** A tool call ended. */
export const ToolComplete = event("tool.complete", {
  tool_call_id: z.string(),
  name: z.string(),
  ok: z.boolean(),
  summary: z.string(),
  duration_ms: z.number(),
  /** Why the call failed from the user's point of view (`exit 1`, ...), or null. */
  failure: z.string().nullable(),
});

/** A dangerous action waits for the approval policy (which may ask a human). */
export const ApprovalRequested = event("approval.requested", {
  tool: z.string(),
  command: z.string(),
  reason: z.string(),
  rule_key: z.string(),
});

/** The approval policy decided a request. */
export const ApprovalResolved = event("approval.resolved", {
  rule_key: z.string(),
  choice: z.enum(["once", "session", "always", "deny"]),
  approved: z.boolean(),
});

/**
 * A scheduled job changed (the dashboard created, edited, paused, resumed
 * or removed it). `session_id` is null: a job belongs to no session.
 */
export const CronJobChanged = event("cron.job.changed", {
  job_id: z.string(),
  change: z.enum(["created", "edited", "paused", "resumed", "removed"]),
});

/** A scheduled job ran (the dashboard's "Run now"); `status` as its saved run records it. */
export const CronJobRan = event("cron.job.ran", {
  job_id: z.string(),
  status: z.enum(["ok", "error", "silent", "skipped"]),
});

/**
 * An entry of the kanban board's event log (`task_events` in `kanban.db`),
 * relayed by the dashboard while a client listens, whichever process wrote
 * it (a worker, the CLI, the dashboard itself). The board is shared by every
 * profile: `profile` is the one the dashboard serves; `session_id` is null.
 */
export const KanbanEvent = event("kanban.event", {
  /** The board's slug of the task. */
  board: z.string(),
  task_id: z.string(),
  /** The log entry's kind: `created`, `moved`, `completed`, `decomposed`, ... */
  kind: z.string(),
  /** The entry's sequence number in the board's log (for `GET /api/plugins/kanban/events?since=`). */
  event_seq: z.number().int(),
  payload: z.record(z.string(), z.unknown()).nullable(),
});

/** Any event on the bus, discriminated by `type`. */
export const HeraldEventSchema = z.discriminatedUnion("type", [
  SessionStarted,
  SessionEnded,
  MessageUser,
  MessageDelta,
  MessageComplete,
  MessageError,
  ToolStart,
  ToolComplete,
  ApprovalRequested,
  ApprovalResolved,
  CronJobChanged,
  CronJobRan,
  KanbanEvent,
]);

/** Any event on the bus. */
export type HeraldEvent = z.infer<typeof HeraldEventSchema>;

/** The name of an event type, such as `message.delta`. */
export type EventType = HeraldEvent["type"];

/** Every event type, in the order of {@link HeraldEventSchema}. */
export const EVENT_TYPES: readonly EventType[] = HeraldEventSchema.options.map(
  (schema) => schema.shape.type.value,
);

/** The event of type `T`. */
export type EventOf<T extends EventType> = Extract<HeraldEvent, { type: T }>;

type WithoutStamp<E> = E extends unknown ? Omit<E, "seq" | "at"> : never;

/** An event as a publisher hands it to the bus: everything but `seq` and `at`. */
export type EventInput = WithoutStamp<HeraldEvent>;

/** What a publisher adds to the envelope for an event of type `T`. */
export type EventPayload<T extends EventType> = Omit<
  EventOf<T>,
  "type" | "profile" | "session_id" | "source" | "seq" | "at"
>;

/** Who an event is about: the fields a publisher fills in besides the payload. */
export interface EventSubject {
  profile: string;
  session_id: string | null;
  source: string;
}

/**
 * The event of type `type` about `subject`, ready to publish; the payload
 * is checked against the type at compile time.
 *
 * @example
 * ```ts
 * bus.publish(eventOf("message.delta", { profile, session_id, source: "cli" }, { text: "Hi" }));
 * ```
 */
export function eventOf<T extends EventType>(
  type: T,
  subject: EventSubject,
  payload: EventPayload<T>,
): EventInput {
  // TypeScript cannot narrow the union from a generic type parameter; the signature checks it.
  return { type, ...subject, ...payload } as unknown as EventInput;
}

/**
 * Validates an event that came from outside this process (a client, a
 * file); throws a zod error describing what is wrong.
 */
export function parseEvent(value: unknown): HeraldEvent {
  return HeraldEventSchema.parse(value);
}

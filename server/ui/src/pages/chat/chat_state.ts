/**
 * The chat's view state and the one function that changes it: `/api/ws`
 * notifications of the open session (`message.*`, `tool.*`, `approval.*`,
 * `notice`), the user's own lines and the outcomes of slash commands
 * become transcript items. Pure: no I/O, no Preact.
 *
 * Within a turn the answer is split around tool calls, as the terminal
 * shows it: text, the tool blocks, then the text that follows them.
 */

import type { ToolOutputView, TurnView } from "../../../../../core/agent/turn_view.ts";
import type { EventPayload } from "../../../../../core/events/mod.ts";

/** `tool.start` as the gateway sends it (besides `session_key`). */
type ToolStartParams = EventPayload<"tool.start">;

/**
 * `tool.complete` as the gateway sends it: the event, the output preview,
 * and a write_file's old text (null: a new file) when the write went ahead.
 */
type ToolCompleteParams = EventPayload<"tool.complete"> & ToolOutputView & {
  before?: string | null;
};

/** `message.complete` as the gateway sends it. */
type MessageCompleteParams = TurnView & { stopped?: string };

/** A line the user sent. */
export interface UserItem {
  kind: "user";
  id: number;
  text: string;
}

/** (Part of) an answer; `streaming` while deltas may still arrive. */
export interface AssistantItem {
  kind: "assistant";
  id: number;
  text: string;
  streaming: boolean;
  /** The turn failed: what `message.error` said. */
  error?: string;
}

/** Where a tool call is. */
export type ToolStatus = "running" | "ok" | "failed";

/** One tool call: what ran, how it went and what it gave. */
export interface ToolItem {
  kind: "tool";
  id: number;
  callId: string;
  name: string;
  /** The arguments as JSON text. */
  args: string;
  /**
   * write_file that went ahead: the file's text before the write (null: a
   * new file), from `tool.complete`.
   */
  before?: string | null;
  status: ToolStatus;
  summary?: string;
  /** Why it failed from the user's point of view (`exit 1`, ...). */
  failure?: string | null;
  durationMs?: number;
  /** The result as the model sees it (JSON text), cut when long. */
  output?: string;
  outputTruncated?: boolean;
}

/** Something the session says that is no answer: notices, errors, outcomes. */
export interface NoticeItem {
  kind: "notice";
  id: number;
  level: "info" | "warning" | "error";
  /** The notice's code (`compressed`, `tool_loop`, ...), when it has one. */
  code?: string;
  text: string;
}

/** A slash command's reply (Markdown), e.g. `/help` or `/usage`. */
export interface ReplyItem {
  kind: "reply";
  id: number;
  text: string;
}

/** `/resume` without an id: the page offers the recent sessions. */
export interface PickItem {
  kind: "pick";
  id: number;
  text: string;
}

/** One entry of the transcript. */
export type ChatItem = UserItem | AssistantItem | ToolItem | NoticeItem | ReplyItem | PickItem;

/** An entry before it is given its id. */
export type NewItem = ChatItem extends infer T ? T extends ChatItem ? Omit<T, "id"> : never
  : never;

/** An `approval.request` waiting for the user. */
export interface PendingApproval {
  id: string;
  tool: string;
  command: string;
  reason: string;
  ruleKey: string;
  timeoutMs: number | null;
}

/** Everything the chat shows of one session. */
export interface ChatState {
  items: ChatItem[];
  /** A turn runs (from `message.start` to `message.complete` or `message.error`). */
  running: boolean;
  approval: PendingApproval | null;
  nextId: number;
}

/** What a slash command (or a turn) answered to `session.send`. */
export type SendOutcome =
  | ({ kind: "turn" } & MessageCompleteParams)
  | { kind: "reply"; text: string }
  | { kind: "set_model"; model: string; provider?: string; text: string }
  | { kind: "new_session"; text: string; clear: boolean }
  | { kind: "resumed"; session_id: string; text: string }
  | { kind: "pick_session"; text: string }
  | { kind: "exit"; text: string; session_id: string | null; deleted: boolean };

/** A change to the chat state. */
export type ChatAction =
  /** Replaces the transcript (a new or resumed session). */
  | { type: "reset"; items?: NewItem[] }
  | { type: "user"; text: string }
  | { type: "notice"; level: NoticeItem["level"]; text: string; code?: string }
  /** A notification of this session (already filtered by `session_key`). */
  | { type: "notification"; method: string; params: Record<string, unknown> }
  | { type: "outcome"; outcome: SendOutcome }
  /** The connection dropped: the session's turn and question are gone. */
  | { type: "disconnected" }
  | { type: "approval_answered" };

/** An empty chat. */
export function emptyChat(): ChatState {
  return { items: [], running: false, approval: null, nextId: 1 };
}

/**
 * The state after `action`.
 *
 * @example
 * ```ts
 * let state = chatReducer(emptyChat(), { type: "user", text: "hi" });
 * state = chatReducer(state, { type: "notification", method: "message.start", params: {} });
 * state = chatReducer(state, { type: "notification", method: "message.delta", params: { text: "Hel" } });
 * ```
 */
export function chatReducer(state: ChatState, action: ChatAction): ChatState {
  switch (action.type) {
    case "reset": {
      const items = (action.items ?? []).map((item, index) => ({ ...item, id: index + 1 }));
      return { ...emptyChat(), items: items as ChatItem[], nextId: items.length + 1 };
    }
    case "user":
      return push(state, { kind: "user", text: action.text });
    case "notice":
      return push(state, {
        kind: "notice",
        level: action.level,
        text: action.text,
        code: action.code,
      });
    case "notification":
      return notification(state, action.method, action.params);
    case "outcome":
      return outcome(state, action.outcome);
    case "disconnected":
      return { ...closeAnswer(state), running: false, approval: null };
    case "approval_answered":
      return { ...state, approval: null };
  }
}

function push(state: ChatState, item: NewItem): ChatState {
  return {
    ...state,
    items: [...state.items, { ...item, id: state.nextId } as ChatItem],
    nextId: state.nextId + 1,
  };
}

/** Adds `item` before the answer streaming now (so it stays whole), else at the end. */
function beforeAnswer(state: ChatState, item: NewItem): ChatState {
  const index = openAnswer(state);
  if (index < 0) return push(state, item);
  const items = state.items.slice();
  items.splice(index, 0, { ...item, id: state.nextId } as ChatItem);
  return { ...state, items, nextId: state.nextId + 1 };
}

/** The index of the answer deltas go to, or -1. */
function openAnswer(state: ChatState): number {
  const last = state.items.length - 1;
  const item = state.items[last];
  return item?.kind === "assistant" && item.streaming ? last : -1;
}

function replaceAt(state: ChatState, index: number, item: ChatItem): ChatState {
  const items = state.items.slice();
  items[index] = item;
  return { ...state, items };
}

/** Ends the open answer: kept when it has text, dropped when it is empty. */
function closeAnswer(state: ChatState): ChatState {
  const index = openAnswer(state);
  if (index < 0) return state;
  const item = state.items[index] as AssistantItem;
  if (item.text === "" && !item.error) {
    return { ...state, items: state.items.filter((_, i) => i !== index) };
  }
  return replaceAt(state, index, { ...item, streaming: false });
}

function text(value: unknown): string {
  return typeof value === "string" ? value : "";
}

function notification(
  state: ChatState,
  method: string,
  params: Record<string, unknown>,
): ChatState {
  switch (method) {
    case "message.start":
      // The transcript shows the answer's bubble ("Thinking…") until its first delta.
      return { ...closeAnswer(state), running: true };
    case "message.delta": {
      const index = openAnswer(state);
      if (index < 0) {
        return push(state, { kind: "assistant", text: text(params.text), streaming: true });
      }
      const item = state.items[index] as AssistantItem;
      return replaceAt(state, index, { ...item, text: item.text + text(params.text) });
    }
    case "tool.start": {
      const start = params as Partial<ToolStartParams>;
      return push(closeAnswer(state), {
        kind: "tool",
        callId: text(start.tool_call_id),
        name: text(start.name),
        args: text(start.arguments),
        status: "running",
      });
    }
    case "tool.complete":
      return toolComplete(state, params);
    case "message.complete":
      return messageComplete(state, params);
    case "message.error":
      return messageError(state, text(params.message) || "The turn failed");
    case "notice":
      return beforeAnswer(state, {
        kind: "notice",
        level: params.level === "warning" ? "warning" : "info",
        code: typeof params.code === "string" ? params.code : undefined,
        text: text(params.message),
      });
    case "approval.request":
      return {
        ...state,
        approval: {
          id: text(params.id),
          tool: text(params.tool),
          command: text(params.command),
          reason: text(params.reason),
          ruleKey: text(params.rule_key),
          timeoutMs: typeof params.timeout_ms === "number" ? params.timeout_ms : null,
        },
      };
    case "approval.expire":
      if (state.approval?.id !== params.id) return state;
      return push({ ...state, approval: null }, {
        kind: "notice",
        level: "warning",
        text: "The approval question expired unanswered, so the command was not run.",
      });
    default:
      return state;
  }
}

/** The wire's params, read defensively: any of them may be missing. */
function toolComplete(state: ChatState, wire: Record<string, unknown>): ChatState {
  const params = wire as Partial<ToolCompleteParams>;
  const callId = text(params.tool_call_id);
  const index = state.items.findLastIndex((item) =>
    item.kind === "tool" && item.callId === callId && item.status === "running"
  );
  const failure = typeof params.failure === "string" ? params.failure : null;
  const done = {
    status: (params.ok === false || failure !== null ? "failed" : "ok") as ToolStatus,
    summary: text(params.summary),
    failure,
    durationMs: typeof params.duration_ms === "number" ? params.duration_ms : undefined,
    output: typeof params.output === "string" ? params.output : undefined,
    outputTruncated: params.output_truncated === true,
    before: params.before === null || typeof params.before === "string" ? params.before : undefined,
  };
  if (index < 0) {
    return push(state, {
      kind: "tool",
      callId,
      name: text(params.name),
      args: "",
      ...done,
    });
  }
  return replaceAt(state, index, { ...(state.items[index] as ToolItem), ...done });
}

function messageComplete(state: ChatState, wire: Record<string, unknown>): ChatState {
  const params = wire as Partial<MessageCompleteParams>;
  let next: ChatState = { ...closeAnswer(state), running: false, approval: null };
  const answered = next.items.some((item, i) =>
    i >= lastUserIndex(next) && item.kind === "assistant" && item.text !== ""
  );
  const response = text(params.response);
  if (!answered && response !== "") {
    next = push(next, { kind: "assistant", text: response, streaming: false });
  }
  if (params.aborted === true) {
    next = push(next, {
      kind: "notice",
      level: "info",
      text: "Stopped. What came so far is kept.",
    });
  }
  if (params.hit_max_turns === true) {
    next = push(next, {
      kind: "notice",
      level: "warning",
      text: "The turn reached its limit of model calls (agent.max_turns) and stopped.",
    });
  }
  return finishRunningTools(next);
}

function messageError(state: ChatState, message: string): ChatState {
  const index = openAnswer(state);
  const next = index < 0
    ? push(state, { kind: "assistant", text: "", streaming: false, error: message })
    : replaceAt(state, index, {
      ...(state.items[index] as AssistantItem),
      streaming: false,
      error: message,
    });
  return finishRunningTools({ ...next, running: false, approval: null });
}

/** Tool blocks still running when the turn ended did not finish. */
function finishRunningTools(state: ChatState): ChatState {
  if (!state.items.some((item) => item.kind === "tool" && item.status === "running")) return state;
  return {
    ...state,
    items: state.items.map((item) =>
      item.kind === "tool" && item.status === "running"
        ? { ...item, status: "failed" as const, failure: item.failure ?? "did not finish" }
        : item
    ),
  };
}

function lastUserIndex(state: ChatState): number {
  return state.items.findLastIndex((item) => item.kind === "user");
}

function outcome(state: ChatState, result: SendOutcome): ChatState {
  switch (result.kind) {
    case "turn":
      // Already told by message.complete.
      return state;
    case "reply":
      return push(state, { kind: "reply", text: result.text });
    case "set_model":
      return push(state, { kind: "notice", level: "info", text: result.text });
    case "new_session": {
      const base = result.clear ? emptyChat() : state;
      return push(base, { kind: "notice", level: "info", text: result.text });
    }
    case "resumed":
      return push(state, { kind: "notice", level: "info", text: result.text });
    case "pick_session":
      return push(state, { kind: "pick", text: result.text });
    case "exit":
      return push(state, {
        kind: "notice",
        level: "info",
        text: exitText(result),
      });
  }
}

function exitText(result: Extract<SendOutcome, { kind: "exit" }>): string {
  if (!result.session_id) return "The session was closed (nothing of it had been stored).";
  return result.deleted
    ? `Session ${result.session_id} was closed and deleted.`
    : `Session ${result.session_id} was closed; it stays under Sessions.`;
}

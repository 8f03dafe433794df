/**
 * Context compression. When a session's prompt passes a share of the
 * model's context window, the middle of its history is summarised into one
 * structured note, and what is sent becomes: the system prompt, the first
 * messages (the head), the note, and the recent messages (the tail). The
 * stored messages keep the whole history: a checkpoint (which stored
 * messages are the head and the tail, and the note) says what to send
 * instead. Cuts fall between exchanges, so every tool result is sent with
 * its call and every call with its result.
 *
 * This module is pure: planning the cut, estimating tokens, writing the
 * summariser's prompt and assembling the request. The session
 * (core/agent/session.ts) calls the summariser and stores the checkpoint.
 *
 * @module
 */

import type { AuxiliaryPrompt } from "../models/auxiliary.ts";
import type { ChatMessage, ModelUsage, ToolSpec } from "../models/types.ts";
import { providerInfo } from "../providers.ts";
import { pairToolMessages } from "./history.ts";

/** The context window assumed for a model Herald knows nothing about, in tokens. */
export const DEFAULT_CONTEXT_LENGTH = 128_000;

/** A model's context window and where the figure came from. */
export interface ContextWindow {
  /** Tokens the model accepts in one request (prompt and answer). */
  tokens: number;
  /** `config`: `model.context_length`; `known`: Herald's table; `default`: {@link DEFAULT_CONTEXT_LENGTH}. */
  source: "config" | "known" | "default";
  /**
   * Set the first time a resolver hands out the default for a model: the
   * one-time warning to show the user.
   */
  warning?: string;
}

/** Context windows of well-known model families, by name prefix (after any `vendor/`). */
const KNOWN_WINDOWS: readonly [RegExp, number][] = [
  [/^claude-/, 200_000],
  [/^gpt-4\.1/, 1_047_576],
  [/^gpt-5/, 400_000],
  [/^gpt-4o/, 128_000],
  [/^gpt-4-turbo/, 128_000],
  [/^o[134](-|$)/, 200_000],
  [/^gemini-(1\.5|2|3)/, 1_048_576],
  [/^deepseek-/, 128_000],
  [/^mistral-large/, 128_000],
  [/^grok-[34]/, 131_072],
];

/**
 * The context window of `model` from Herald's table of well-known families,
 * or undefined when the name is not in it.
 *
 * @example
 * ```ts
 * knownContextLength("anthropic/claude-sonnet-4"); // 200000
 * knownContextLength("my-local-model"); // undefined
 * ```
 */
export function knownContextLength(model: string): number | undefined {
  const name = model.toLowerCase().split("/").pop() ?? "";
  return KNOWN_WINDOWS.find(([pattern]) => pattern.test(name))?.[1];
}

/**
 * A resolver of context windows for one runtime: `configured`
 * (`model.context_length`) wins, then Herald's table, then
 * {@link DEFAULT_CONTEXT_LENGTH} with a warning the first time each model
 * gets it from this resolver.
 *
 * @example
 * ```ts
 * const windowOf = contextWindowResolver(config.model.context_length);
 * windowOf("test-model"); // { tokens: 128000, source: "default", warning: "..." }
 * windowOf("test-model"); // { tokens: 128000, source: "default" }
 * ```
 */
export function contextWindowResolver(configured?: number): (model: string) => ContextWindow {
  const warned = new Set<string>();
  return (model) => {
    if (configured !== undefined) return { tokens: configured, source: "config" };
    const known = knownContextLength(model);
    if (known !== undefined) return { tokens: known, source: "known" };
    if (warned.has(model)) return { tokens: DEFAULT_CONTEXT_LENGTH, source: "default" };
    warned.add(model);
    return {
      tokens: DEFAULT_CONTEXT_LENGTH,
      source: "default",
      warning: `The context length of model "${model}" is unknown; assuming ${
        DEFAULT_CONTEXT_LENGTH.toLocaleString("en-US")
      } tokens. Set model.context_length to its real size so compression starts in time.`,
    };
  };
}

/** How a session compresses its context (`compression.*` and the runtime's summariser). */
export interface CompressionOptions {
  /** Compress on its own when the prompt passes {@link threshold}; `/compact` works either way. */
  enabled: boolean;
  /** Share of the context window (0 to 1) the prompt may fill before it is compressed. */
  threshold: number;
  /** Messages at the start of the history that are always sent as they are. */
  protectFirst: number;
  /** Messages at the end of the history that are always sent as they are (at least one). */
  protectLast: number;
  /** The context window of a model. */
  contextWindow(model: string): ContextWindow;
  /**
   * Writes the summary: the `compression` auxiliary slot, else `model` of
   * `provider` (the session's current ones, after any `/model` switch).
   * Rejects with the model's error.
   */
  summarize(prompt: AuxiliaryPrompt, model: string, provider: string): Promise<string>;
}

/** A stored compression checkpoint: what to send in place of the stored middle. */
export interface CompactionRecord {
  id: number;
  sessionId: string;
  /** Stored messages with an id up to this one are the head (0: no head). */
  headThroughId: number;
  /** Stored messages from this id on are the tail, sent after the summary. */
  tailFromId: number;
  /** The note sent in place of the messages between head and tail. */
  summary: string;
  /** How many messages the note stands for (over every compression of the session). */
  summarisedCount: number;
  createdAt: number;
}

/** What a store needs to record a checkpoint. */
export type NewCompaction = Omit<CompactionRecord, "id" | "sessionId">;

/**
 * Where checkpoints are kept (state.db); without one, compression lasts as
 * long as the session object and a resumed session sends its whole history.
 */
export interface CompactionStore {
  /** Records a checkpoint of session `sessionId`; the newest one is in force. */
  addCompaction(sessionId: string, checkpoint: NewCompaction): CompactionRecord;
  /** The checkpoint in force for a session, if it was ever compressed. */
  latestCompaction(sessionId: string): CompactionRecord | undefined;
}

/** A cut of the in-memory history: indexes into it, and the note for the middle. */
export interface Compaction {
  /** Messages before this index are the head. */
  headEnd: number;
  /** Messages from this index on are the tail. */
  tailStart: number;
  summary: string;
  /** How many messages the note stands for. */
  summarisedCount: number;
}

/** A planned cut: the head, the tail, and where the newly summarised messages start. */
export interface CompactionPlan {
  headEnd: number;
  tailStart: number;
  /** First message the new note must cover (after a previous note, its old tail). */
  middleStart: number;
}

/** Rough tokens of `chars` characters of text (four characters a token). */
export function tokensOfChars(chars: number): number {
  return Math.ceil(chars / 4);
}

/** Characters a message adds to a request: its text, tool calls and a little framing. */
export function messageChars(message: ChatMessage): number {
  let chars = 16 + (message.content?.length ?? 0);
  if (message.role === "assistant") {
    for (const call of message.toolCalls ?? []) {
      chars += call.id.length + call.name.length + call.arguments.length + 16;
    }
  } else if (message.role === "tool") chars += message.toolCallId.length + message.name.length;
  return chars;
}

/** Rough tokens of a run of messages. */
export function messagesTokens(messages: readonly ChatMessage[]): number {
  let chars = 0;
  for (const message of messages) chars += messageChars(message);
  return tokensOfChars(chars);
}

/**
 * The prompt and answer tokens a provider reported for a call, or undefined
 * when it reported none. Anthropic counts cached prompt tokens apart from
 * `input_tokens`; OpenAI-compatible servers include them.
 */
export function reportedTokens(usage: ModelUsage, provider: string): number | undefined {
  if (usage.inputTokens <= 0) return undefined;
  const cached = providerInfo(provider).wire === "anthropic"
    ? usage.cacheReadTokens + usage.cacheWriteTokens
    : 0;
  return usage.inputTokens + cached + usage.outputTokens;
}

function side(message: ChatMessage | undefined): "user" | "assistant" | undefined {
  if (!message) return undefined;
  return message.role === "assistant" ? "assistant" : "user";
}

/**
 * Plans a cut of `history`: the head is the first `protectFirst` messages
 * (or the previous cut's head), the tail the last `protectLast` ones, shrunk
 * to fit `tailTokens` when given but never below the last exchange. Both
 * cuts fall between exchanges (a tool result stays with its call). Returns
 * undefined when nothing new lies between head and tail.
 *
 * @example
 * ```ts
 * const plan = planCompaction(history, undefined, { protectFirst: 3, protectLast: 20 });
 * ```
 */
export function planCompaction(
  history: readonly ChatMessage[],
  previous: Pick<Compaction, "headEnd" | "tailStart"> | undefined,
  options: { protectFirst: number; protectLast: number; tailTokens?: number },
): CompactionPlan | undefined {
  const length = history.length;
  let headEnd = previous?.headEnd ?? Math.min(Math.max(0, options.protectFirst), length);
  while (headEnd < length && history[headEnd].role === "tool") headEnd++;

  let tailStart = Math.max(headEnd, length - Math.max(1, options.protectLast));
  if (options.tailTokens !== undefined) {
    // Walk back from the end while the tail fits; keep at least the last exchange.
    let start = length;
    let tokens = 0;
    while (start > tailStart) {
      const next = tokens + tokensOfChars(messageChars(history[start - 1]));
      if (next > options.tailTokens && start < length && history[start].role !== "tool") break;
      tokens = next;
      start--;
    }
    tailStart = start;
  }
  while (tailStart > headEnd && history[tailStart]?.role === "tool") tailStart--;
  const middleStart = previous ? Math.max(previous.tailStart, headEnd) : headEnd;
  if (tailStart <= middleStart) return undefined;
  return { headEnd, tailStart, middleStart };
}

/** What the note says before the summary, pointing at the stored messages. */
function notePreamble(
  sessionId: string | undefined,
  count: number,
  ids: { first?: number; last?: number },
): string {
  const where = sessionId
    ? ` They are still stored in session ${sessionId}${
      ids.first !== undefined && ids.last !== undefined
        ? ` (message ids ${ids.first} to ${ids.last})`
        : ""
    }; to read one exactly, call session_search with session_id "${sessionId}" and around_message_id.`
    : "";
  return `[Context compaction] ${count} earlier message${
    count === 1 ? " was" : "s were"
  } summarised to save context.${where}`;
}

/**
 * The message sent in place of the summarised middle. Its role avoids
 * repeating the role before it (a user-side message opens a conversation).
 */
export function summaryMessage(
  history: readonly ChatMessage[],
  compaction: Compaction,
  pointer: { sessionId?: string; firstId?: number; lastId?: number } = {},
): ChatMessage {
  const content = `${
    notePreamble(pointer.sessionId, compaction.summarisedCount, {
      first: pointer.firstId,
      last: pointer.lastId,
    })
  }\n\n${compaction.summary.trim()}`;
  const before = side(history[compaction.headEnd - 1]);
  const after = side(history[compaction.tailStart]);
  if (before === undefined || before === "assistant") {
    return { role: "user", content };
  }
  return after === "assistant" && before === "user"
    ? { role: "user", content }
    : { role: "assistant", content };
}

/**
 * The messages to send for `history` under `compaction`: head, note, tail,
 * with tool calls and results paired.
 */
export function compactedMessages(
  history: readonly ChatMessage[],
  compaction: Compaction,
  pointer: { sessionId?: string; firstId?: number; lastId?: number } = {},
): ChatMessage[] {
  return pairToolMessages([
    ...history.slice(0, compaction.headEnd),
    summaryMessage(history, compaction, pointer),
    ...history.slice(compaction.tailStart),
  ], "result not available");
}

const SUMMARY_SYSTEM = [
  "You compress the middle of a conversation between a user and an AI agent that acts through tools,",
  "so the agent can carry on without it. Write a note in exactly these sections:",
  "## Goal",
  "## Constraints & Preferences",
  "## Progress",
  "### Done",
  "### In Progress",
  "### Blocked",
  "## Key Decisions",
  "## Relevant Files",
  "## Next Steps",
  "## Critical Context",
  "Keep exact identifiers, paths, commands, numbers and error messages. Quote the user's latest",
  "request word for word. Write 'None' under a section with nothing to say. No preamble.",
].join("\n");

const MESSAGE_CHARS = 4_000;
const TOOL_RESULT_CHARS = 2_000;

function clip(text: string, max: number): string {
  if (text.length <= max) return text;
  const head = Math.floor(max * 0.75);
  const tail = max - head;
  return `${text.slice(0, head)}\n[... ${text.length - max} characters cut ...]\n${
    text.slice(text.length - tail)
  }`;
}

/** One message of the middle as the summariser reads it. */
function transcriptLine(message: ChatMessage): string {
  switch (message.role) {
    case "user":
      return `[user]\n${clip(message.content, MESSAGE_CHARS)}`;
    case "assistant": {
      const parts = message.content ? [`[assistant]\n${clip(message.content, MESSAGE_CHARS)}`] : [];
      for (const call of message.toolCalls ?? []) {
        parts.push(`[assistant calls ${call.name}] ${clip(call.arguments, TOOL_RESULT_CHARS)}`);
      }
      return parts.join("\n");
    }
    case "tool":
      return `[${message.name} ${message.isError ? "failed" : "result"}]\n${
        clip(message.content, TOOL_RESULT_CHARS)
      }`;
  }
}

/**
 * The summariser's prompt for the messages `plan` newly covers, updating
 * `previousSummary` when the session was compressed before. The transcript
 * is cut to `maxChars` (its middle elided) so it fits the summariser.
 */
export function summaryPrompt(
  history: readonly ChatMessage[],
  plan: CompactionPlan,
  options: {
    previousSummary?: string;
    focus?: string;
    maxChars: number;
    maxTokens: number;
    signal?: AbortSignal;
  },
): AuxiliaryPrompt {
  const lines = history.slice(plan.middleStart, plan.tailStart).map(transcriptLine);
  let transcript = lines.join("\n\n");
  if (transcript.length > options.maxChars) transcript = clip(transcript, options.maxChars);
  const parts: string[] = [];
  if (options.previousSummary) {
    parts.push(
      "The earlier part of the conversation was already summarised as follows. Update this",
      "summary with the new messages below; keep what still matters.",
      "",
      "<previous-summary>",
      options.previousSummary.trim(),
      "</previous-summary>",
      "",
    );
  }
  parts.push("<messages>", transcript, "</messages>");
  if (options.focus?.trim()) {
    parts.push("", `Pay particular attention to: ${options.focus.trim()}`);
  }
  return {
    system: SUMMARY_SYSTEM,
    prompt: parts.join("\n"),
    maxTokens: options.maxTokens,
    signal: options.signal,
  };
}

/**
 * The output cap for a summary of `middleTokens` tokens in a
 * `contextTokens` window: a quarter of what it replaces, between 1,024 and
 * 8,192, and never more than a quarter of the window.
 */
export function summaryBudget(middleTokens: number, contextTokens: number): number {
  const wanted = Math.min(8_192, Math.max(1_024, Math.round(middleTokens / 4)));
  return Math.max(256, Math.min(wanted, Math.floor(contextTokens / 4)));
}

/**
 * Rough tokens of a whole request: system prompt, tool specs and messages.
 * The specs' size is computed once per array.
 */
export function estimateRequestTokens(
  system: string,
  tools: readonly ToolSpec[],
  messages: readonly ChatMessage[],
): number {
  let specChars = SPEC_CHARS.get(tools);
  if (specChars === undefined) {
    specChars = JSON.stringify(tools).length;
    SPEC_CHARS.set(tools, specChars);
  }
  return tokensOfChars(system.length + specChars) + messagesTokens(messages);
}

const SPEC_CHARS = new WeakMap<readonly ToolSpec[], number>();

/**
 * The in-memory cut for a stored checkpoint, given the rebuilt history
 * with stored ids; undefined when the checkpoint no longer fits it (its
 * messages were deleted).
 */
export function compactionFromRecord(
  entries: readonly { id: number }[],
  record: CompactionRecord,
): Compaction | undefined {
  let headEnd = 0;
  while (headEnd < entries.length && entries[headEnd].id <= record.headThroughId) headEnd++;
  const tailStart = entries.findIndex((entry) => entry.id >= record.tailFromId);
  if (tailStart === -1 || tailStart <= headEnd) return undefined;
  return {
    headEnd,
    tailStart,
    summary: record.summary,
    summarisedCount: record.summarisedCount,
  };
}

function roughly(tokens: number): string {
  const rounded = tokens >= 10_000 ? Math.round(tokens / 1_000) * 1_000 : tokens;
  return rounded.toLocaleString("en-US");
}

/** The one line a user sees after a compression. */
export function compactionNotice(summarised: number, before: number, after: number): string {
  return `Context compressed: ${summarised} earlier message${
    summarised === 1 ? " is" : "s are"
  } now a summary (about ${roughly(before)} → ${roughly(after)} tokens); ` +
    "the full history stays stored.";
}

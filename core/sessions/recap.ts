/**
 * The recap a resumed session shows: its last few exchanges, short. An
 * exchange is a user message and the last text the assistant answered it
 * with; tool results, tool-call-only assistant turns and system messages
 * are left out, and long texts are shortened with "…".
 *
 * @module
 */

import type { MessageRole } from "./store.ts";

/** One line of a recap: who said it and what (possibly shortened). */
export interface RecapEntry {
  role: "user" | "assistant";
  text: string;
}

/** How much a recap shows. */
export interface RecapOptions {
  /** How many of the last exchanges (default 3). */
  exchanges?: number;
  /** The longest text of one entry, "…" included (default 300). */
  maxChars?: number;
}

/** The fields of a stored message a recap reads. */
export interface RecapMessage {
  role: MessageRole;
  content: string | null;
}

/** Exchanges a recap shows unless asked otherwise. */
export const RECAP_EXCHANGES = 3;

/** The longest entry text a recap shows unless asked otherwise. */
export const RECAP_MAX_CHARS = 300;

interface Exchange {
  user?: string;
  assistant?: string;
}

/**
 * `text` cut to at most `max` characters ending in "…" when longer: at the
 * last word break when one is near the end, never inside a surrogate pair.
 */
function shorten(text: string, max: number): string {
  if (text.length <= max) return text;
  let end = Math.max(0, max - 1);
  const last = text.charCodeAt(end - 1);
  if (last >= 0xd800 && last <= 0xdbff) end--;
  const cut = text.slice(0, end);
  const wordBreak = cut.search(/\s\S*$/);
  const kept = wordBreak > end * 0.6 ? cut.slice(0, wordBreak) : cut;
  return `${kept.trimEnd()}…`;
}

function checkCount(what: string, value: number, min: number): void {
  if (!Number.isSafeInteger(value) || value < min) {
    throw new RangeError(`Recap option "${what}" must be a whole number of at least ${min}`);
  }
}

/**
 * The last `exchanges` user/assistant exchanges of `messages` (in stored
 * order), oldest first: each user message, then the last assistant text
 * that followed it before the next user message. An assistant text before
 * any user message makes an exchange of its own.
 *
 * @example
 * ```ts
 * sessionRecap([
 *   { role: "user", content: "list the files" },
 *   { role: "assistant", content: null },           // tool calls only: skipped
 *   { role: "tool", content: "{\"output\":\"a.txt\"}" }, // skipped
 *   { role: "assistant", content: "There is one: a.txt" },
 * ]);
 * // [{ role: "user", text: "list the files" }, { role: "assistant", text: "There is one: a.txt" }]
 * ```
 *
 * @throws RangeError for `exchanges` below 0 or `maxChars` below 1.
 */
export function sessionRecap(
  messages: readonly RecapMessage[],
  options: RecapOptions = {},
): RecapEntry[] {
  const exchanges = options.exchanges ?? RECAP_EXCHANGES;
  const maxChars = options.maxChars ?? RECAP_MAX_CHARS;
  checkCount("exchanges", exchanges, 0);
  checkCount("maxChars", maxChars, 1);
  const found: Exchange[] = [];
  for (const message of messages) {
    const text = message.content?.trim() ?? "";
    if (text === "") continue;
    if (message.role === "user") {
      found.push({ user: text });
    } else if (message.role === "assistant") {
      const current = found.at(-1);
      if (current) current.assistant = text;
      else found.push({ assistant: text });
    }
  }
  return found.slice(Math.max(0, found.length - exchanges)).flatMap((exchange) => [
    ...(exchange.user === undefined
      ? []
      : [{ role: "user" as const, text: shorten(exchange.user, maxChars) }]),
    ...(exchange.assistant === undefined
      ? []
      : [{ role: "assistant" as const, text: shorten(exchange.assistant, maxChars) }]),
  ]);
}

/**
 * Cutting a session search result down to a size cap, for the
 * `session_search` tool: the least useful parts go first (long context
 * messages, then bookends, then matches, then lower-ranked hits or older
 * sessions, then the messages furthest from the match), and every cut is
 * marked so the model knows to scroll for more.
 *
 * @module
 */

import type { BrowseSession, DiscoveryHit, SearchMessage, SessionSearchResult } from "./views.ts";

type Discovery = Extract<SessionSearchResult, { shape: "discovery" }>;
type Scroll = Extract<SessionSearchResult, { shape: "scroll" }>;
type Browse = Extract<SessionSearchResult, { shape: "browse" }>;

/** One way to make a result smaller, in place; false when it had nothing to cut. */
type Step<T> = (result: T) => boolean;

const encoder = new TextEncoder();

function bytesOf(value: unknown): number {
  return encoder.encode(JSON.stringify(value)).length;
}

/** `text` cut to `max` UTF-16 units (never inside a surrogate pair), with an ellipsis. */
function clipText(text: string, max: number): string {
  if (text.length <= max) return text;
  const high = text.charCodeAt(max - 1);
  const end = high >= 0xd800 && high <= 0xdbff ? max - 1 : max;
  return `${text.slice(0, end)}…`;
}

/** A tool call with its `arguments` text cut to `max`; the same object when short enough. */
function clipCall(call: unknown, max: number): unknown {
  if (call === null || typeof call !== "object") return call;
  const args = (call as { arguments?: unknown }).arguments;
  if (typeof args !== "string" || args.length <= max) return call;
  return { ...call, arguments: clipText(args, max) };
}

/** `message` with its content and tool-call arguments cut to `max` characters. */
function clipMessage(message: SearchMessage, max: number): SearchMessage {
  const content = message.content === null ? null : clipText(message.content, max);
  const calls = message.tool_calls?.map((call) => clipCall(call, max));
  const callsCut = calls?.some((call, i) => call !== message.tool_calls![i]) ?? false;
  if (content === message.content && !callsCut) return message;
  return {
    ...message,
    content,
    ...(calls ? { tool_calls: calls } : {}),
    truncated: true,
  };
}

/** Cuts every message `pick` selects to `max`; true when one changed. */
function clipAll(
  messages: SearchMessage[],
  max: number,
  pick: (message: SearchMessage) => boolean,
): boolean {
  let changed = false;
  messages.forEach((message, i) => {
    if (!pick(message)) return;
    const clipped = clipMessage(message, max);
    if (clipped !== message) {
      messages[i] = clipped;
      changed = true;
    }
  });
  return changed;
}

/** Runs `steps` in order until `result` fits in `maxBytes`; marks it when something was cut. */
function shrink<T extends SessionSearchResult>(result: T, maxBytes: number, steps: Step<T>[]): T {
  for (const step of steps) {
    if (bytesOf(result) <= maxBytes) break;
    if (step(result)) result.truncated = true;
  }
  return result;
}

/** A step repeated while it cuts something and the result is still too big. */
function repeat<T extends SessionSearchResult>(step: Step<T>, maxBytes: number): Step<T> {
  return (result) => {
    let changed = false;
    while (bytesOf(result) > maxBytes && step(result)) changed = true;
    return changed;
  };
}

function copyHit(hit: DiscoveryHit): DiscoveryHit {
  return {
    ...hit,
    messages: [...hit.messages],
    bookend_start: [...hit.bookend_start],
    bookend_end: [...hit.bookend_end],
  };
}

function fitDiscovery(result: Discovery, maxBytes: number): Discovery {
  const fitted: Discovery = { ...result, results: result.results.map(copyHit) };
  const context = (max: number): Step<Discovery> => (r) =>
    r.results.map((hit) =>
      [
        clipAll(hit.messages, max, (m) => m.id !== hit.match_message_id),
        clipAll(hit.bookend_start, max, () => true),
        clipAll(hit.bookend_end, max, () => true),
      ].some(Boolean)
    ).some(Boolean);
  const matches = (max: number): Step<Discovery> => (r) =>
    r.results.map((hit) => clipAll(hit.messages, max, (m) => m.id === hit.match_message_id))
      .some(Boolean);
  const dropBookends: Step<Discovery> = (r) => {
    const had = r.results.some((hit) => hit.bookend_start.length + hit.bookend_end.length > 0);
    for (const hit of r.results) hit.bookend_start = hit.bookend_end = [];
    return had;
  };
  const dropLastHit: Step<Discovery> = (r) => {
    if (r.results.length <= 1) return false;
    r.results.pop();
    r.count = r.results.length;
    r.omitted = (r.omitted ?? 0) + 1;
    return true;
  };
  const narrow = (around: number): Step<Discovery> => (r) =>
    r.results.map((hit) => {
      const at = hit.messages.findIndex((m) => m.id === hit.match_message_id);
      const before = Math.min(hit.messages_before, around);
      const after = Math.min(hit.messages_after, around);
      if (at < 0 || (before === hit.messages_before && after === hit.messages_after)) return false;
      hit.messages = hit.messages.slice(at - before, at + after + 1);
      hit.messages_before = before;
      hit.messages_after = after;
      return true;
    }).some(Boolean);
  return shrink(fitted, maxBytes, [
    context(1000),
    context(300),
    dropBookends,
    matches(1000),
    context(100),
    repeat(dropLastHit, maxBytes),
    narrow(2),
    narrow(0),
    matches(300),
    matches(100),
  ]);
}

function fitScroll(result: Scroll, maxBytes: number): Scroll {
  const fitted: Scroll = { ...result, messages: [...result.messages] };
  const anchor = result.around_message_id;
  const others = (max: number): Step<Scroll> => (r) =>
    clipAll(r.messages, max, (m) => m.id !== anchor);
  const own = (max: number): Step<Scroll> => (r) =>
    clipAll(r.messages, max, (m) => m.id === anchor);
  const narrow = (around: number): Step<Scroll> => (r) => {
    const at = r.messages.findIndex((m) => m.id === anchor);
    const before = Math.min(r.messages_before, around);
    const after = Math.min(r.messages_after, around);
    if (at < 0 || (before === r.messages_before && after === r.messages_after)) return false;
    // A side that lost messages no longer reaches the session's edge.
    if (before < r.messages_before) r.at_start = false;
    if (after < r.messages_after) r.at_end = false;
    r.messages = r.messages.slice(at - before, at + after + 1);
    r.messages_before = before;
    r.messages_after = after;
    return true;
  };
  return shrink(fitted, maxBytes, [
    others(1000),
    others(300),
    own(2000),
    others(100),
    narrow(3),
    narrow(1),
    narrow(0),
    own(300),
  ]);
}

function fitBrowse(result: Browse, maxBytes: number): Browse {
  const fitted: Browse = { ...result, sessions: [...result.sessions] };
  const dropOldest: Step<Browse> = (r) => {
    if (r.sessions.length === 0) return false;
    const oldest = r.sessions.reduce(
      (best, session, i) => session.started_at < r.sessions[best].started_at ? i : best,
      0,
    );
    r.sessions.splice(oldest, 1);
    r.count = r.sessions.length;
    r.omitted = (r.omitted ?? 0) + 1;
    return true;
  };
  const titles: Step<Browse> = (r) => {
    let changed = false;
    r.sessions = r.sessions.map((session): BrowseSession => {
      if (session.title === null || session.title.length <= 60) return session;
      changed = true;
      return { ...session, title: clipText(session.title, 60) };
    });
    return changed;
  };
  return shrink(fitted, maxBytes, [titles, repeat(dropOldest, maxBytes)]);
}

/**
 * `result` cut until its JSON takes at most `maxBytes` UTF-8 bytes (see the
 * module comment for the order); the input is not changed. A result that
 * fits is returned as it is; one that cannot be cut enough comes back as
 * small as the steps make it.
 */
export function fitSearchResult(
  result: SessionSearchResult,
  maxBytes: number,
): SessionSearchResult {
  if (bytesOf(result) <= maxBytes) return result;
  switch (result.shape) {
    case "discovery":
      return fitDiscovery(result, maxBytes);
    case "scroll":
      return fitScroll(result, maxBytes);
    case "browse":
      return fitBrowse(result, maxBytes);
  }
}

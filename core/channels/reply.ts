/**
 * From an agent's final answer to what a platform receives: silence tokens
 * ({@link isSilent}), files to send natively ({@link extractMedia}), text
 * split at the platform's limit ({@link splitText}) and formatted for it
 * ({@link planReply}), and the notice in front of a reply resent after a
 * restart ({@link markPossibleDuplicate}). Pure: no I/O.
 *
 * Lengths are UTF-16 code units (JavaScript's `string.length`): LINE counts
 * text that way ("The Messaging API counts text characters in UTF-16 code
 * units", developers.line.biz/en/docs/messaging-api/text-character-count);
 * Telegram measures entity offsets in UTF-16 code units and counts its
 * 4096-character limit after parsing the HTML, so counting the formatted
 * text's code units can only overcount there, never undercount.
 *
 * @example
 * ```ts
 * const reply = planReply("Here it is.\nMEDIA:/tmp/chart.png", { chunkLimit: 4096, format: (md) => md });
 * // { parts: [{ kind: "text", text: "Here it is." },
 * //           { kind: "media", media: { path: "/tmp/chart.png", asDocument: false } }] }
 * ```
 *
 * @module
 */

import type { ChannelOutbound, OutboundMedia, OutboundReply, ReplyPart } from "./contract.ts";
import { closesFence, fenceOpen, leadingSpaces } from "../text/markdown_syntax.ts";
import { checkLimit, splitText, takePart, tidy } from "./_split.ts";

export { splitText };

// ------------------------------------------------------------------ silence

/**
 * Final answers that mean "say nothing" (a heartbeat or a notification the
 * agent chose not to answer): the turn is stored, nothing is delivered.
 */
export const SILENCE_TOKENS: readonly string[] = Object.freeze([
  "[SILENT]",
  "SILENT",
  "NO_REPLY",
  "NO REPLY",
  "[静默]",
  "静默",
  "[沉默]",
  "沉默",
]);

const SILENT = new Set(SILENCE_TOKENS.map(normalizeToken));

function normalizeToken(text: string): string {
  return text.trim().replace(/\s+/g, " ").replace(/\[ /g, "[").replace(/ \]/g, "]").toUpperCase();
}

/**
 * True when the whole answer is one of {@link SILENCE_TOKENS}, ignoring
 * case, surrounding whitespace, the width of inner whitespace and spaces
 * inside the brackets (`" no  reply\n"` and `"[ silent ]"` are silent;
 * `"NO_REPLY."` is not).
 */
export function isSilent(answer: string): boolean {
  return SILENT.has(normalizeToken(answer));
}

// -------------------------------------------------------------------- media

const MEDIA_LINE = /^\s*MEDIA:\s*(.*?)\s*$/;
const AS_DOCUMENT = /[ \t]*(?:\[\[as_document\]\][ \t]*)+/g;
const QUOTED = /^(["'`])(.*)\1$/;

/** True for an absolute path: POSIX `/x`, Windows `C:\x` or `C:/x`, UNC `\\host\share`. */
function isAbsolutePath(path: string): boolean {
  return path.startsWith("/") || /^[A-Za-z]:[\\/]/.test(path) || path.startsWith("\\\\");
}

/**
 * Takes the files out of an answer. A line that is `MEDIA:<absolute path>`
 * (spaces around it allowed, the path may be wrapped in quotes or
 * backticks) becomes a media item and leaves the text; `[[as_document]]`
 * anywhere makes every media item of the answer a document and leaves the
 * text. Both are left alone inside fenced code blocks, where they are
 * content. A relative path is not media: its line stays. The same path
 * named twice is sent once.
 *
 * Whitespace: a removed line takes its line break with it, a blank line
 * left doubled by a removal is dropped, a directive's surrounding spaces
 * shrink to one between words, and the text is trimmed.
 *
 * @example
 * ```ts
 * extractMedia("Chart:\nMEDIA:/tmp/a.png\n[[as_document]]");
 * // { text: "Chart:", media: [{ path: "/tmp/a.png", asDocument: true }] }
 * ```
 */
export function extractMedia(answer: string): { text: string; media: OutboundMedia[] } {
  const lines = answer.replace(/\r\n?/g, "\n").split("\n");
  const kept: string[] = [];
  const paths: string[] = [];
  let asDocument = false;
  let fence: ReturnType<typeof fenceOpen> = null;
  /** A line was removed since the last kept line. */
  let removed = false;
  for (const line of lines) {
    const body = line.slice(leadingSpaces(line));
    if (fence) {
      if (closesFence(body, fence)) fence = null;
      kept.push(line);
      removed = false;
      continue;
    }
    fence = fenceOpen(body);
    const media = fence ? null : MEDIA_LINE.exec(line);
    if (media) {
      const path = media[1].replace(QUOTED, "$2").trim();
      if (isAbsolutePath(path)) {
        if (!paths.includes(path)) paths.push(path);
        removed = true;
        continue;
      }
    }
    let text = line;
    if (!fence && line.includes("[[as_document]]")) {
      asDocument = true;
      text = line.replace(AS_DOCUMENT, (match, offset: number, whole: string) => {
        const before = whole.slice(0, offset);
        const after = whole.slice(offset + match.length);
        return before.trim() !== "" && after.trim() !== "" && /\s/.test(match) ? " " : "";
      });
      if (text.trim() === "") {
        removed = true;
        continue;
      }
    }
    if (removed && text.trim() === "" && kept.length > 0 && kept[kept.length - 1].trim() === "") {
      continue;
    }
    kept.push(text);
    removed = false;
  }
  return {
    text: kept.join("\n").replace(/^(?:[ \t]*\n)+/, "").trimEnd(),
    media: paths.map((path) => ({ path, asDocument })),
  };
}

// ----------------------------------------------------------------- planning

/** What the user is sent when the agent finished with no text and no file. */
export const NO_ANSWER_TEXT = "The agent finished without an answer.";

/**
 * The line in front of a reply sent again after the gateway restarted,
 * when the platform may have taken it the first time.
 */
export const RECOVERED_NOTICE =
  "🔁 Sent again after a gateway restart: you may have received this reply already.";

/**
 * The line in front of a message sent again after the platform took the
 * first try without confirming it (a timeout, a dropped connection).
 */
export const RESENT_NOTICE =
  "🔁 Sent again: the first try was not confirmed, so you may have received this already.";

/**
 * Splits Markdown as {@link splitText} does and formats each part, so
 * every formatted part has at most `limit` units: when formatting grows a
 * part past the limit (escapes, tags), less of the Markdown is taken for
 * that part, in proportion, until it fits; the rest goes on in the next
 * part. Parts that format to nothing (an empty code block) are dropped.
 *
 * @throws RangeError when a single character formats past the limit (a
 * limit smaller than the format's longest escape).
 */
export function formatParts(
  markdown: string,
  limit: number,
  format: (markdown: string) => string,
): string[] {
  checkLimit(limit);
  const out: string[] = [];
  let rest = tidy(markdown.replace(/\r\n?/g, "\n"));
  while (rest !== "") {
    for (let size = limit;;) {
      const next = takePart(rest, size);
      const formatted = format(next.part);
      if (formatted.length <= limit) {
        if (formatted.trim() !== "") out.push(formatted);
        rest = next.rest;
        break;
      }
      // Formatting grew the part past the limit: take less of the Markdown, in proportion.
      size = Math.min(
        size - 1,
        next.part.length - 1,
        Math.floor(next.part.length * limit / formatted.length),
      );
      if (size < 1) {
        throw new RangeError(
          `A chunk limit of ${limit} is too small for this platform's format: ` +
            `${JSON.stringify(next.part)} formats to ${formatted.length} characters`,
        );
      }
    }
  }
  return out;
}

/**
 * Plans the reply to an agent's final answer: null when the answer is a
 * silence token; else its text split and formatted (every text part at
 * most `chunkLimit` once formatted), then its files in order. An answer
 * with only files has only media parts; an answer with neither gets one
 * text part saying the agent gave no answer ({@link NO_ANSWER_TEXT}).
 *
 * @example
 * ```ts
 * planReply("NO_REPLY", outbound); // null
 * planReply("", outbound); // { parts: [{ kind: "text", text: "The agent finished without an answer." }] }
 * ```
 */
export function planReply(
  answer: string,
  outbound: Pick<ChannelOutbound, "chunkLimit" | "format">,
): OutboundReply | null {
  if (isSilent(answer)) return null;
  const { text, media } = extractMedia(answer);
  const format = (markdown: string) => outbound.format(markdown);
  const parts: ReplyPart[] = formatParts(text, outbound.chunkLimit, format)
    .map((part) => ({ kind: "text", text: part }));
  for (const item of media) parts.push({ kind: "media", media: item });
  if (parts.length === 0) {
    for (const part of formatParts(NO_ANSWER_TEXT, outbound.chunkLimit, format)) {
      parts.push({ kind: "text", text: part });
    }
  }
  return { parts };
}

/**
 * Marks a reply that may already have reached the user (the gateway died
 * between sending and the platform's confirmation): the formatted
 * {@link RECOVERED_NOTICE} goes in front of the first text part, or as new
 * first part(s) when that part would pass `limit` or there is none, and
 * `possibleDuplicate` is set. A reply already marked is returned as is.
 */
export function markPossibleDuplicate(
  reply: OutboundReply,
  format: (markdown: string) => string,
  limit: number,
  noticeText: string = RECOVERED_NOTICE,
): OutboundReply {
  if (reply.possibleDuplicate) return reply;
  const notice = format(noticeText);
  const first = reply.parts.findIndex((part) => part.kind === "text");
  const target = reply.parts[first];
  if (target?.kind === "text" && notice.length + 2 + target.text.length <= limit) {
    const parts = reply.parts.slice();
    parts[first] = { kind: "text", text: `${notice}\n\n${target.text}` };
    return { parts, possibleDuplicate: true };
  }
  const noticeParts: ReplyPart[] = formatParts(noticeText, limit, format)
    .map((text) => ({ kind: "text", text }));
  return { parts: [...noticeParts, ...reply.parts], possibleDuplicate: true };
}

/**
 * The small pieces of the TUI's screen, as pure functions of what they
 * show: the header, the echo of what the user sent, the spinner line, the
 * approval question, the session picker, the recap and the status line.
 *
 * @module
 */

import type { ApprovalRequest } from "../../core/tools/types.ts";
import type { RecentSession } from "../chat/tui_backend.ts";
import type { SessionUsage } from "../../core/agent/turn_runtime.ts";
import { renderMarkdown } from "./markdown.ts";
import { createStyle, sanitizeText, type Style, truncate } from "./style.ts";
import { wrap } from "./wrap.ts";

/** The prompt glyph the input box starts with (tests and the bench look for it). */
export const PROMPT = "› ";

const SPINNER_FRAMES = ["⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"];

/** Elapsed time as people say it: `4s`, `1m 05s`. */
export function elapsed(ms: number): string {
  const seconds = Math.floor(ms / 1000);
  if (seconds < 60) return `${seconds}s`;
  return `${Math.floor(seconds / 60)}m ${String(seconds % 60).padStart(2, "0")}s`;
}

/** How long ago `epochMs` was, in one short word: `just now`, `5m ago`, `3h ago`, `2d ago`. */
export function age(epochMs: number, now: number): string {
  const minutes = Math.floor((now - epochMs) / 60_000);
  if (minutes < 1) return "just now";
  if (minutes < 60) return `${minutes}m ago`;
  const hours = Math.floor(minutes / 60);
  if (hours < 48) return `${hours}h ago`;
  return `${Math.floor(hours / 24)}d ago`;
}

/** The spinner line: a frame, what is happening, and for how long. */
export function spinnerLine(
  style: Style,
  width: number,
  label: string,
  sinceMs: number,
  now: number,
): string {
  const frame = SPINNER_FRAMES[Math.floor(now / 80) % SPINNER_FRAMES.length];
  const hint = style.muted(`(${elapsed(now - sinceMs)} · Ctrl-C to stop)`);
  return truncate(`${style.accent(frame)} ${label} ${hint}`, width);
}

/** The echo of a message the user sent, as it scrolls up. */
export function userEcho(style: Style, width: number, text: string): string[] {
  const lines = wrap(text, width - PROMPT.length);
  return ["", ...lines.map((line, index) => style.bold(`${index === 0 ? PROMPT : "  "}${line}`))];
}

/**
 * A command's reply wrapped to `width`. A line laid out as columns
 * (`  name   description`, as `/help` and `/tools` print) continues under
 * its last column rather than at the left edge.
 */
export function replyLines(text: string, width: number): string[] {
  return sanitizeText(text).split("\n").flatMap((line) => {
    const column = /^\s*\S+\s{2,}/.exec(line)?.[0].length ?? /^\s*/.exec(line)![0].length;
    const hanging = column < width / 2 ? " ".repeat(column) : "";
    return wrap(line, width, { hangingIndent: hanging });
  });
}

/** The lines a queued message shows below the spinner until its turn comes. */
export function queuedLines(style: Style, width: number, queued: readonly string[]): string[] {
  const shown = queued.slice(0, QUEUED_LINES).map((text) =>
    truncate(style.muted(`  ↳ queued: ${sanitizeText(text).replace(/\s+/g, " ").trim()}`), width)
  );
  const more = queued.length - shown.length;
  return more > 0 ? [...shown, style.muted(`  ↳ and ${more} more queued`)] : shown;
}

/** What the status line shows. */
export interface StatusInfo {
  profile: string;
  model?: string;
  provider?: string;
  usage?: SessionUsage;
  /** Replaces the hints on the right (`Press Ctrl-C again to exit`, `starting…`). */
  message?: string;
}

/** Token counts the short way: `950`, `12.3k`, `1.2M`. */
export function shortCount(n: number): string {
  if (n < 1000) return String(n);
  if (n < 1_000_000) return `${(n / 1000).toFixed(n < 10_000 ? 1 : 0)}k`;
  return `${(n / 1_000_000).toFixed(1)}M`;
}

/** The status line below the input: profile, model, context used, and a hint. */
export function statusLine(style: Style, width: number, info: StatusInfo): string {
  const parts = [info.profile];
  if (info.model) parts.push(info.provider ? `${info.provider}/${info.model}` : info.model);
  const usage = info.usage;
  if (usage && usage.contextWindow) {
    const percent = Math.round(usage.contextTokens / usage.contextWindow * 100);
    parts.push(
      `ctx ${shortCount(usage.contextTokens)}/${shortCount(usage.contextWindow)} (${percent}%)`,
    );
  } else if (usage) {
    parts.push(`ctx ${shortCount(usage.contextTokens)}`);
  }
  const left = parts.join(" · ");
  const right = info.message ?? "/help · Tab completes · Alt-Enter new line";
  const room = width - left.length - 2;
  const line = room > right.length ? `${left}  ${" ".repeat(room - right.length)}${right}` : left;
  const styled = info.message ? line.replace(right, style.warning(right)) : line;
  return truncate(style.muted(styled), width);
}

/** Lines of the command an approval question shows at most (the window must hold the question). */
const APPROVAL_COMMAND_LINES = 8;

/** Queued messages listed one per line at most; more are counted. */
const QUEUED_LINES = 3;

/** Lines the approval question's headline may take before it is cut. */
const APPROVAL_HEADLINE_LINES = 3;

/** The approval question shown in place of the input box. */
export function approvalLines(
  style: Style,
  width: number,
  request: ApprovalRequest,
  secondsLeft: number,
): string[] {
  // What the model or a server sent is shown as text, never as terminal control.
  const command = wrap(sanitizeText(request.command), width - 4);
  const shown = command.length > APPROVAL_COMMAND_LINES
    ? [
      ...command.slice(0, APPROVAL_COMMAND_LINES - 1),
      `… ${command.length - APPROVAL_COMMAND_LINES + 1} more lines`,
    ]
    : command;
  // The reason (a folder for Codex's commands) wraps rather than losing its end.
  const headline = wrap(
    `! ${sanitizeText(request.tool)} wants to run a dangerous command (${
      sanitizeText(request.reason)
    }):`,
    width,
  ).slice(0, APPROVAL_HEADLINE_LINES);
  return [
    ...headline.map((line) => style.warning(line)),
    ...shown.map((line) => `    ${style.bold(line)}`),
    `  ${style.bold("o")}nce · this ${style.bold("s")}ession · ${style.bold("a")}lways · ${
      style.bold("d")
    }eny  ${style.muted(`(denied in ${secondsLeft} s)`)}`,
  ].map((line) => truncate(line, width));
}

/** One session the picker offers. */
export type PickerEntry = RecentSession;

/** The session picker: a title line and a window of entries around the highlighted one. */
export function pickerLines(
  style: Style,
  width: number,
  entries: readonly PickerEntry[],
  selected: number,
  now: number,
): string[] {
  if (entries.length === 0) {
    return [style.muted("No stored sessions to resume. Esc closes this.")];
  }
  const rows = 8;
  const start = Math.max(0, Math.min(selected - 3, entries.length - rows));
  const shown = entries.slice(start, start + rows).map((entry, offset) => {
    const index = start + offset;
    const name = sanitizeText(entry.title || entry.firstLine || entry.id);
    const detail = entry.title && entry.firstLine ? ` · ${sanitizeText(entry.firstLine)}` : "";
    const text = `${index === selected ? "❯" : " "} ${name}  ${
      style.muted(`${age(entry.lastActive, now)}${detail}`)
    }`;
    return truncate(index === selected ? style.accent(text) : text, width);
  });
  return [
    style.bold("Resume a session") + style.muted("  ↑/↓ choose · Enter resume · Esc cancel"),
    ...shown,
    ...(entries.length > rows ? [style.muted(`  ${entries.length} sessions`)] : []),
  ];
}

const PLAIN = createStyle(false);

/** One exchange of a recap. */
export interface RecapLine {
  role: "user" | "assistant";
  text: string;
}

/** The recap printed when a session is resumed: its last exchanges, shortened. */
export function recapLines(style: Style, width: number, recap: readonly RecapLine[]): string[] {
  if (recap.length === 0) return [];
  const lines = [style.muted("─ where you left off " + "─".repeat(Math.max(0, width - 22)))];
  for (const entry of recap) {
    if (entry.role === "user") {
      const body = wrap(sanitizeText(entry.text), width - PROMPT.length);
      lines.push(...body.map((line, index) => style.bold(`${index === 0 ? PROMPT : "  "}${line}`)));
    } else {
      // The answer's Markdown without its markers, dimmed as a whole.
      const body = renderMarkdown(entry.text, PLAIN, width - 2).filter((line) =>
        line.trim() !== ""
      );
      lines.push(...body.map((line) => style.muted(`  ${line}`)));
    }
  }
  lines.push(style.muted("─".repeat(Math.max(0, width - 1))));
  return lines;
}

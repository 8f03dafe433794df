/**
 * Tool activity as the TUI shows it: a one-line title while the tool runs
 * ("● terminal  npm test"), then a block when it ends: a status line
 * (✓, or ✗ with "exit 1", "timed out" or the error) with the duration, and
 * a preview of what it did: the first and last lines of a command's output,
 * the diff of a patch or of a file write, the matches of a search.
 *
 * @example
 * ```ts
 * print([toolTitle(call, style, width), ...toolBlock(end, style, width)]);
 * ```
 *
 * @module
 */

import type { ToolCall } from "../../core/models/types.ts";
import { lineDiff, renderDiff } from "./diff.ts";
import { displayWidth, sanitizeText, type Style, truncate } from "./style.ts";
import { wrap } from "./wrap.ts";
import { parseJsonObject } from "../../core/_util/json.ts";
import { type Json, type ToolEnd, toolFailed, toolFailure } from "./tool_result.ts";

export { toolFailed, toolFailure } from "./tool_result.ts";
export type { ToolEnd } from "./tool_result.ts";

/** Output lines shown from the start and from the end of a long output. */
const HEAD_LINES = 3;
const TAIL_LINES = 3;
/** Diff lines shown for a patch or a write. */
const DIFF_LINES = 20;
/** Lines shown of a new file. */
const NEW_FILE_LINES = 5;

/** The arguments that say most about a call, best first. */
const TELLING_ARGUMENTS = [
  "command",
  "pattern",
  "query",
  "path",
  "file",
  "url",
  "name",
  "action",
  "target",
];

function oneLine(text: string): string {
  return sanitizeText(text).replace(/\s*\n\s*/g, " ⏎ ").trim();
}

/** The most telling argument of a call, on one line ("" when none). */
function mainArgument(call: ToolCall): string {
  const args = parseJsonObject(call.arguments);
  if (!args) return oneLine(call.arguments.trim() === "{}" ? "" : call.arguments);
  for (const key of TELLING_ARGUMENTS) {
    const value = args[key];
    if (typeof value === "string" && value !== "") {
      if (call.name === "search_files" && key === "pattern" && typeof args.path === "string") {
        return oneLine(`${value}  in ${args.path}`);
      }
      return oneLine(value);
    }
  }
  const first = Object.values(args).find((value) => typeof value === "string" && value !== "");
  return typeof first === "string" ? oneLine(first) : "";
}

/**
 * One line for a running tool: "● terminal  npm test", the tool name and
 * its most telling argument (command, path, pattern, query), cut to `width`.
 *
 * @example
 * ```ts
 * toolTitle({ id: "1", name: "terminal", arguments: '{"command":"ls"}' }, style, 80); // "● terminal  ls"
 * ```
 */
export function toolTitle(call: ToolCall, style: Style, width: number): string {
  const name = oneLine(call.name);
  const head = `${style.accent("●")} ${style.bold(name)}`;
  const argument = mainArgument(call);
  if (argument === "") return truncate(head, width);
  const room = width - displayWidth(head) - 2;
  if (room < 4) return truncate(head, width);
  return head + "  " + style.muted(truncate(argument, room));
}

/** "850ms", "1.2s", "2m 05s". */
export function formatDuration(ms: number): string {
  if (!Number.isFinite(ms) || ms < 0) return "";
  if (ms < 1000) return `${Math.round(ms)}ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)}s`;
  const seconds = Math.round(ms / 1000);
  return `${Math.floor(seconds / 60)}m ${String(seconds % 60).padStart(2, "0")}s`;
}

function textLines(text: string): string[] {
  const lines = sanitizeText(text).split("\n");
  while (lines.length > 0 && lines[lines.length - 1].trim() === "") lines.pop();
  while (lines.length > 0 && lines[0].trim() === "") lines.shift();
  return lines;
}

/**
 * Indented preview lines: the first and last few, "… N more lines" between.
 */
function preview(
  lines: string[],
  style: Style,
  width: number,
  paint = (text: string) => text,
): string[] {
  const gutter = style.muted("  │ ");
  const room = width - 4;
  const draw = (line: string) => gutter + paint(truncate(line, room));
  if (lines.length <= HEAD_LINES + TAIL_LINES + 1) return lines.map(draw);
  const hidden = lines.length - HEAD_LINES - TAIL_LINES;
  return [
    ...lines.slice(0, HEAD_LINES).map(draw),
    gutter + style.muted(truncate(`… ${hidden} more lines`, room)),
    ...lines.slice(-TAIL_LINES).map(draw),
  ];
}

function indent(lines: string[]): string[] {
  return lines.map((line) => `  ${line}`);
}

/**
 * The block drawn when a tool call ends: a status line (✓, or ✗ with
 * "exit 1", "timed out" or the error; then the duration) and a preview:
 * output (first 3 and last 3 lines, stderr too) for the terminal, a diff of
 * old_string → new_string for patch, of the old file → content for
 * write_file (a new file: its first lines and "+N lines"), matches for a
 * search. Every line fits `width`.
 *
 * @example
 * ```ts
 * toolBlock({ call, ok: true, summary: "", durationMs: 1200, content }, style, 80);
 * // ["  ✓ 1.2s", "  │ test result: ok", ...]
 * ```
 */
export function toolBlock(end: ToolEnd, style: Style, width: number): string[] {
  const result = parseJsonObject(end.content);
  const failed = toolFailed(end);
  const duration = formatDuration(end.durationMs);
  const lines: string[] = [];
  if (failed) {
    // The reason on the status line, wrapped below it when long; the duration after it.
    const label = oneLine(toolFailure(end) ?? "failed");
    const tail = duration ? style.muted(` · ${duration}`) : "";
    const wrapped = wrap(style.error(label), width - displayWidth(tail), {
      indent: `  ${style.error("✗")} `,
      hangingIndent: "    ",
    });
    if (wrapped.length > 4) wrapped.splice(3, wrapped.length - 3, style.muted("    …"));
    wrapped[0] += tail;
    lines.push(...wrapped);
  } else {
    lines.push(
      truncate(`  ${style.success("✓")}${duration ? " " + style.muted(duration) : ""}`, width),
    );
  }
  if (!end.ok) return lines;
  lines.push(...details(end, result, style, width));
  return lines.map((line) => truncate(line, width));
}

/** The preview of a call that ran. */
function details(end: ToolEnd, result: Json | null, style: Style, width: number): string[] {
  const args = parseJsonObject(end.call.arguments) ?? {};
  switch (end.call.name) {
    case "terminal":
      return result ? terminalPreview(result, style, width, toolFailed(end)) : [];
    case "patch":
      return patchPreview(args, result, style, width);
    case "write_file":
      return writePreview(args, result, end.before, style, width);
    case "read_file":
      return readPreview(result, style, width);
    case "search_files":
      return searchPreview(result, style, width);
    default:
      return genericPreview(end.content, result, style, width);
  }
}

function terminalPreview(result: Json, style: Style, width: number, failed: boolean): string[] {
  const stdout = typeof result.stdout === "string" ? textLines(result.stdout) : [];
  const stderr = typeof result.stderr === "string" ? textLines(result.stderr) : [];
  if (stdout.length === 0 && stderr.length === 0) {
    return [style.muted(truncate("  │ (no output)", width))];
  }
  return [
    ...preview(stdout, style, width),
    ...preview(stderr, style, width, failed ? style.error : style.warning),
  ];
}

function lintLines(result: Json | null, style: Style, width: number): string[] {
  const lint = result?.lint as Json | undefined;
  if (!lint || lint.status !== "error" || typeof lint.output !== "string") return [];
  const first = textLines(lint.output)[0] ?? "";
  return [style.warning(truncate(`  ! lint: ${first}`, width))];
}

function patchPreview(args: Json, result: Json | null, style: Style, width: number): string[] {
  const lines: string[] = [];
  if (result?.no_change === true) {
    lines.push(style.muted(truncate("  no change: the file already said this", width)));
  } else if (typeof args.old_string === "string" && typeof args.new_string === "string") {
    // The strings are a snippet of the file: their line numbers would not be the file's.
    const diff = lineDiff(args.old_string, args.new_string)
      .map(({ oldNo: _old, newNo: _new, ...line }) => line);
    lines.push(...indent(renderDiff(diff, style, width - 2, DIFF_LINES)));
  }
  if (typeof result?.replacements === "number" && result.replacements > 1) {
    lines.push(style.muted(truncate(`  ${result.replacements} replacements`, width)));
  }
  return [...lines, ...lintLines(result, style, width)];
}

function writePreview(
  args: Json,
  result: Json | null,
  before: string | null | undefined,
  style: Style,
  width: number,
): string[] {
  if (typeof args.content !== "string") return lintLines(result, style, width);
  const content = args.content;
  const lines: string[] = [];
  if (typeof before === "string") {
    const diff = lineDiff(before, content);
    lines.push(
      ...(diff.length === 0
        ? [style.muted(truncate("  no change", width))]
        : indent(renderDiff(diff, style, width - 2, DIFF_LINES))),
    );
  } else {
    const all = lineDiff("", content);
    const label = before === null ? "new file" : "wrote";
    lines.push(
      style.muted(truncate(`  ${label}, ${all.length} line${all.length === 1 ? "" : "s"}`, width)),
    );
    lines.push(...indent(renderDiff(all.slice(0, NEW_FILE_LINES), style, width - 2)));
    if (all.length > NEW_FILE_LINES) {
      lines.push(style.muted(truncate(`  +${all.length - NEW_FILE_LINES} lines`, width)));
    }
  }
  return [...lines, ...lintLines(result, style, width)];
}

function readPreview(result: Json | null, style: Style, width: number): string[] {
  if (!result || typeof result.content !== "string") return [];
  const shown = textLines(result.content).length;
  const total = typeof result.total_lines === "number" ? result.total_lines : shown;
  const more = typeof result.next_offset === "number"
    ? `, more from line ${result.next_offset}`
    : "";
  return [style.muted(truncate(`  │ ${shown} of ${total} lines${more}`, width))];
}

function searchPreview(result: Json | null, style: Style, width: number): string[] {
  if (!result) return [];
  const count = typeof result.count === "number" ? result.count : 0;
  const found: string[] = Array.isArray(result.matches)
    ? (result.matches as Json[]).map((match) =>
      `${match.file}:${match.line}: ${oneLine(String(match.text ?? ""))}`
    )
    : Array.isArray(result.files)
    ? result.files.map((file) => oneLine(String(file)))
    : [];
  const noun = result.mode === "files" ? "file" : "match";
  const plural = count === 1 ? noun : noun === "match" ? "matches" : "files";
  const summary = style.muted(
    truncate(
      `  │ ${count} ${plural}${result.truncated === true ? " (more not shown)" : ""}`,
      width,
    ),
  );
  return [summary, ...preview(found, style, width)];
}

function genericPreview(
  content: string | undefined,
  result: Json | null,
  style: Style,
  width: number,
): string[] {
  if (content === undefined || content.trim() === "") return [];
  let value: unknown = result;
  if (!result) {
    try {
      value = JSON.parse(content);
    } catch {
      value = content;
    }
  }
  if (typeof value === "string") return preview(textLines(value), style, width);
  return [style.muted("  │ ") + truncate(oneLine(JSON.stringify(value)), width - 4)];
}

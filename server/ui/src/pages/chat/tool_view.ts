/**
 * What a tool block shows, read from a tool call's arguments and result:
 * the key argument (the command, the path, the pattern), the output
 * preview, and the before and after text of a file edit. Pure.
 */

import type { ToolItem } from "./chat_state.ts";

type Json = Record<string, unknown>;

function parseObject(text: string | undefined): Json | null {
  if (!text) return null;
  try {
    const value = JSON.parse(text);
    return value !== null && typeof value === "object" && !Array.isArray(value) ? value : null;
  } catch {
    return null;
  }
}

/** The argument that says what a call did, by tool; the first text argument otherwise. */
const KEY_ARGUMENT: Record<string, string[]> = {
  terminal: ["command"],
  read_file: ["path"],
  write_file: ["path"],
  patch: ["path"],
  search_files: ["pattern", "path"],
  skill_view: ["name"],
  session_search: ["query"],
  memory: ["action"],
};

/**
 * The key argument of a call: the command for `terminal`, the path for file
 * tools, the first text argument of any other tool ("" when none).
 *
 * @example
 * ```ts
 * toolTarget("terminal", '{"command":"ls -la"}'); // "ls -la"
 * ```
 */
export function toolTarget(name: string, args: string): string {
  const parsed = parseObject(args);
  if (!parsed) return "";
  for (const key of KEY_ARGUMENT[name] ?? []) {
    if (typeof parsed[key] === "string" && parsed[key] !== "") return parsed[key] as string;
  }
  const first = Object.values(parsed).find((value) => typeof value === "string" && value !== "");
  return typeof first === "string" ? first : "";
}

/** The before and after text of a file edit, for the diff view. */
export interface FileEdit {
  path: string;
  before: string;
  after: string;
  /** write_file of a file that did not exist. */
  created: boolean;
}

/**
 * The edit a `patch` (its old and new text) or a `write_file` (the file
 * before, from `tool.complete` once the write went ahead, and the new
 * content) made; null for other tools, or a write whose old text is not known.
 */
export function fileEdit(item: ToolItem): FileEdit | null {
  const args = parseObject(item.args);
  if (!args || typeof args.path !== "string") return null;
  if (item.name === "patch" && typeof args.old_string === "string") {
    return {
      path: args.path,
      before: args.old_string,
      after: typeof args.new_string === "string" ? args.new_string : "",
      created: false,
    };
  }
  if (item.name === "write_file" && typeof args.content === "string" && item.before !== undefined) {
    return {
      path: args.path,
      before: item.before ?? "",
      after: args.content,
      created: item.before === null,
    };
  }
  return null;
}

/** A call's output as text to preview ("" when it gave none), and a one-line label for it. */
export interface OutputPreview {
  text: string;
  label: string;
}

function countLines(text: string): number {
  return text === "" ? 0 : text.replace(/\n$/, "").split("\n").length;
}

function plural(count: number, noun: string): string {
  return `${count} ${noun}${count === 1 ? "" : "s"}`;
}

/**
 * The text of a call's output for the collapsed preview: a command's
 * stdout and stderr, a file's content, an error, or the result as indented
 * JSON; null when the call gave nothing worth showing.
 */
export function outputPreview(item: ToolItem): OutputPreview | null {
  const raw = item.output;
  if (raw === undefined || raw.trim() === "") return null;
  const result = parseObject(raw);
  const cut = item.outputTruncated ? " (shortened)" : "";
  if (!result) return { text: raw, label: `Output, ${plural(countLines(raw), "line")}${cut}` };
  if (typeof result.error === "string") {
    return { text: result.error, label: `Error${cut}` };
  }
  if (item.name === "terminal") {
    const stdout = typeof result.stdout === "string" ? result.stdout : "";
    const stderr = typeof result.stderr === "string" ? result.stderr : "";
    const text = [stdout.replace(/\n$/, ""), stderr.replace(/\n$/, "")].filter(Boolean)
      .join("\n");
    const exit = typeof result.exit_code === "number" ? `exit ${result.exit_code}` : "";
    if (text === "") return { text: "", label: `No output${exit ? ` (${exit})` : ""}` };
    return {
      text,
      label: `Output: ${exit ? `${exit}, ` : ""}${plural(countLines(text), "line")}${cut}`,
    };
  }
  if (item.name === "read_file" && typeof result.content === "string") {
    return {
      text: result.content,
      label: `Read ${plural(countLines(result.content), "line")}${cut}`,
    };
  }
  const text = JSON.stringify(result, null, 2);
  const lint = (result.lint as { status?: unknown } | undefined)?.status;
  if (typeof lint === "string") return { text, label: `Result: syntax check ${lint}${cut}` };
  return { text, label: `Result, ${plural(countLines(text), "line")}${cut}` };
}

/** A duration for people: `850 ms`, `1.2 s`, `2 min 5 s`. */
export function formatDuration(ms: number | undefined): string {
  if (ms === undefined) return "";
  if (ms < 1000) return `${Math.round(ms)} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)} s`;
  const seconds = Math.round(ms / 1000);
  return `${Math.floor(seconds / 60)} min ${seconds % 60} s`;
}

/**
 * Reading a `kanban` command line (the words after `herald kanban` or
 * `/kanban`) into a {@link KanbanRequest}: the verbs and their aliases,
 * each verb's options, and one usage message per mistake naming the value
 * at fault. core/kanban/kanban_command.ts runs what it reads.
 *
 * @module
 */

import { closest } from "../_util/suggest.ts";
import { HeraldError } from "../errors.ts";
import {
  lastOption,
  type OptionKind,
  type ScannedArgs as Scanned,
  scanVerbArgs,
  verbUsageError,
} from "../_util/verb_args.ts";
import {
  BLOCK_KINDS,
  type BlockKind,
  TASK_ID_PATTERN,
  TASK_STATUSES,
  type TaskStatus,
} from "./board.ts";
import { parseBoardSlug } from "./rules.ts";
import type { CreateTaskInput } from "./service.ts";

/** What a `kanban` command line asks for. */
export type KanbanRequest =
  | { verb: "create"; input: CreateTaskInput }
  | { verb: "list"; board?: string; status?: TaskStatus; assignee?: string; all: boolean }
  | { verb: "show" | "unblock" | "archive"; id: string }
  | { verb: "assign"; id: string; profile: string }
  | { verb: "link" | "unlink"; parent: string; child: string }
  | { verb: "comment"; id: string; text: string }
  | { verb: "complete"; id: string; result: string }
  | { verb: "block"; id: string; reason: string; kind?: BlockKind }
  | { verb: "tail"; id?: string; board?: string; since?: number; follow: boolean }
  | { verb: "decompose"; id?: string; board?: string }
  | { verb: "dispatch"; board?: string; dryRun: boolean; max?: number; failureLimit?: number }
  | { verb: "stats"; board?: string }
  | { verb: "boards"; action: "list" }
  | { verb: "boards"; action: "create" | "rm"; slug: string }
  /** The verbs and their synopses; `topic` narrows to one verb. */
  | { verb: "help"; topic?: KanbanVerb };

/** The verbs of `kanban`. */
export const KANBAN_VERBS = [
  "create",
  "list",
  "show",
  "assign",
  "link",
  "unlink",
  "comment",
  "complete",
  "block",
  "unblock",
  "archive",
  "tail",
  "decompose",
  "dispatch",
  "stats",
  "boards",
  "help",
] as const;

/** One verb of `kanban`. */
export type KanbanVerb = typeof KANBAN_VERBS[number];

const ALIASES: Readonly<Record<string, KanbanVerb>> = {
  add: "create",
  new: "create",
  ls: "list",
  done: "complete",
};

/** Each verb's synopsis, after the command's name (`herald kanban`, `/kanban`). */
export const KANBAN_SYNOPSES: Readonly<Record<KanbanVerb, string>> = {
  create: 'create "<title>" [--body <text>] [--assignee <profile>] [--parent <id>]... ' +
    "[--triage] [--priority N] [--idempotency-key <k>] [--max-retries N] [--board <slug>]",
  list: "list [--status <s>] [--assignee <profile>] [--all] [--board <slug>]",
  show: "show <id>",
  assign: "assign <id> <profile>",
  link: "link <parent> <child>",
  unlink: "unlink <parent> <child>",
  comment: "comment <id> <text>",
  complete: "complete <id> [--result <text>]",
  block: "block <id> <reason> [--kind needs_input|dependency|capability|transient]",
  unblock: "unblock <id>",
  archive: "archive <id>",
  tail: "tail [<id>] [--since <seq>] [--follow] [--board <slug>]",
  decompose: "decompose <id> | --all [--board <slug>]",
  dispatch: "dispatch [--dry-run] [--max N] [--failure-limit N] [--board <slug>]",
  stats: "stats [--board <slug>]",
  boards: "boards list | create <slug> | rm <slug>",
  help: "help [verb]",
};

/** Options of {@link parseKanbanArgs}. */
export interface KanbanParseOptions {
  /** How the command is typed here, for usage lines: `herald kanban`, `/kanban` (the default). */
  prefix?: string;
}

const BOARD: Readonly<Record<string, OptionKind>> = { board: "value" };

/** The options each verb takes (`values`: may be given more than once). */
const OPTIONS: Readonly<Partial<Record<KanbanVerb, Readonly<Record<string, OptionKind>>>>> = {
  create: {
    body: "value",
    assignee: "value",
    parent: "values",
    triage: "switch",
    priority: "value",
    "idempotency-key": "value",
    "max-retries": "value",
    ...BOARD,
  },
  list: { status: "value", assignee: "value", all: "switch", ...BOARD },
  complete: { result: "value" },
  block: { kind: "value" },
  tail: { since: "value", follow: "switch", ...BOARD },
  decompose: { all: "switch", ...BOARD },
  dispatch: { "dry-run": "switch", max: "value", "failure-limit": "value", ...BOARD },
  stats: BOARD,
};

/** How many words each verb takes: [at least, at most]; Infinity: the rest is text. */
const WORDS: Readonly<Record<Exclude<KanbanVerb, "help">, readonly [number, number]>> = {
  create: [1, Infinity],
  list: [0, 0],
  show: [1, 1],
  assign: [2, 2],
  link: [2, 2],
  unlink: [2, 2],
  comment: [2, Infinity],
  complete: [1, 1],
  block: [2, Infinity],
  unblock: [1, 1],
  archive: [1, 1],
  tail: [0, 1],
  decompose: [0, 1],
  dispatch: [0, 0],
  stats: [0, 0],
  boards: [0, 2],
};

/** What each verb's words are, for the message when they are missing. */
const NEEDS: Readonly<Partial<Record<KanbanVerb, string>>> = {
  create: "a title",
  show: "a task id",
  assign: "a task id and a profile",
  link: "a parent task id and a child task id",
  unlink: "a parent task id and a child task id",
  comment: "a task id and the comment's text",
  complete: "a task id",
  block: "a task id and a reason",
  unblock: "a task id",
  archive: "a task id",
};

const FAMILY = { code: "kanban_usage", verbs: KANBAN_VERBS, synopses: KANBAN_SYNOPSES };

function usageError(
  verb: KanbanVerb | undefined,
  message: string,
  prefix: string,
  token?: string,
): HeraldError {
  return verbUsageError(FAMILY, verb, message, prefix, token);
}

/** Reads the words and options after `verb`, refusing an option `verb` does not take. */
function scan(verb: KanbanVerb, tokens: readonly string[], prefix: string): Scanned {
  return scanVerbArgs(
    verb,
    tokens,
    OPTIONS[verb] ?? {},
    prefix,
    (message, token) => usageError(verb, message, prefix, token),
  );
}

/** A whole number from `min`, or a usage error naming the option and the value. */
function wholeNumber(
  value: string,
  option: string,
  min: number,
  verb: KanbanVerb,
  prefix: string,
): number {
  const text = value.trim();
  if (/^-?\d+$/.test(text) && Number.isSafeInteger(Number(text)) && Number(text) >= min) {
    return Number(text);
  }
  throw usageError(
    verb,
    `--${option} "${value}" is not a whole number${min > -Infinity ? ` from ${min}` : ""}`,
    prefix,
    value,
  );
}

/** A task id, or a usage error naming the value. */
function taskId(value: string, verb: KanbanVerb, prefix: string): string {
  const id = value.trim().toLowerCase();
  if (TASK_ID_PATTERN.test(id)) return id;
  throw usageError(
    verb,
    `"${value}" is not a task id; ids look like t_1a2b3c4d (${prefix} list shows them)`,
    prefix,
    value,
  );
}

/** A board slug, or a usage error naming the value. */
function boardSlug(value: string, verb: KanbanVerb, prefix: string): string {
  try {
    return parseBoardSlug(value);
  } catch (error) {
    throw usageError(verb, (error as Error).message, prefix, value);
  }
}

/** The `--board` option, when given. */
function boardOption(scanned: Scanned, verb: KanbanVerb, prefix: string): { board?: string } {
  const value = lastOption(scanned, "board");
  return value === undefined ? {} : { board: boardSlug(value, verb, prefix) };
}

/** Text that must not be empty (a title, a comment, a reason). */
function text(words: readonly string[], what: string, verb: KanbanVerb, prefix: string): string {
  const joined = words.join(" ").trim();
  if (joined === "") throw usageError(verb, `${what} cannot be empty`, prefix);
  return joined;
}

function parseCreate(scanned: Scanned, prefix: string): KanbanRequest {
  const input: CreateTaskInput = {
    title: text(scanned.words, "A task's title", "create", prefix),
    ...boardOption(scanned, "create", prefix),
  };
  const body = lastOption(scanned, "body");
  if (body !== undefined) input.body = body;
  const assignee = lastOption(scanned, "assignee");
  if (assignee !== undefined) {
    if (assignee.trim() === "") {
      throw usageError("create", "--assignee cannot be empty; name a profile", prefix);
    }
    input.assignee = assignee;
  }
  const parents = scanned.options.get("parent");
  if (parents) input.parents = parents.map((id) => taskId(id, "create", prefix));
  if (scanned.options.has("triage")) input.triage = true;
  const priority = lastOption(scanned, "priority");
  if (priority !== undefined) {
    input.priority = wholeNumber(priority, "priority", -Infinity, "create", prefix);
  }
  const key = lastOption(scanned, "idempotency-key");
  if (key !== undefined) {
    if (key.trim() === "") {
      throw usageError("create", "--idempotency-key cannot be empty", prefix);
    }
    input.idempotencyKey = key.trim();
  }
  const retries = lastOption(scanned, "max-retries");
  if (retries !== undefined) {
    input.maxRetries = wholeNumber(retries, "max-retries", 0, "create", prefix);
  }
  return { verb: "create", input };
}

function parseList(scanned: Scanned, prefix: string): KanbanRequest {
  const request: KanbanRequest = {
    verb: "list",
    all: scanned.options.has("all"),
    ...boardOption(scanned, "list", prefix),
  };
  const status = lastOption(scanned, "status");
  if (status !== undefined) {
    const wanted = status.trim().toLowerCase();
    if (!(TASK_STATUSES as readonly string[]).includes(wanted)) {
      const near = closest(wanted, TASK_STATUSES);
      throw usageError(
        "list",
        `Status "${status}" is not one of ${TASK_STATUSES.join(", ")}` +
          (near ? `; did you mean ${near}?` : ""),
        prefix,
        status,
      );
    }
    request.status = wanted as TaskStatus;
  }
  const assignee = lastOption(scanned, "assignee");
  if (assignee !== undefined) request.assignee = assignee.trim().toLowerCase();
  return request;
}

function parseBoards(words: readonly string[], prefix: string): KanbanRequest {
  const [action = "list", slug] = words;
  const what = action.toLowerCase();
  if (what === "list" || what === "ls") {
    if (slug !== undefined) {
      throw usageError("boards", `Unexpected "${slug}" after boards list`, prefix, slug);
    }
    return { verb: "boards", action: "list" };
  }
  const normal = what === "remove" || what === "delete" ? "rm" : what;
  if (normal !== "create" && normal !== "rm") {
    throw usageError(
      "boards",
      `Unknown boards action "${action}"; use list, create or rm`,
      prefix,
      action,
    );
  }
  if (slug === undefined) {
    throw usageError("boards", `boards ${normal} needs a board slug`, prefix);
  }
  return { verb: "boards", action: normal, slug: boardSlug(slug, "boards", prefix) };
}

function parseVerb(verb: Exclude<KanbanVerb, "help">, scanned: Scanned, prefix: string) {
  const words = scanned.words;
  const [least, most] = WORDS[verb];
  if (words.length < least) {
    throw usageError(verb, `${verb} needs ${NEEDS[verb] ?? "more words"}`, prefix);
  }
  if (words.length > most) {
    const extra = words[most];
    throw usageError(verb, `Unexpected "${extra}" after ${verb}`, prefix, extra);
  }
  const id = (index: number) => taskId(words[index], verb, prefix);
  switch (verb) {
    case "create":
      return parseCreate(scanned, prefix);
    case "list":
      return parseList(scanned, prefix);
    case "show":
    case "unblock":
    case "archive":
      return { verb, id: id(0) };
    case "assign":
      return { verb, id: id(0), profile: words[1].trim() };
    case "link":
    case "unlink":
      return { verb, parent: id(0), child: id(1) };
    case "comment":
      return { verb, id: id(0), text: text(words.slice(1), "A comment", verb, prefix) };
    case "complete":
      return { verb, id: id(0), result: lastOption(scanned, "result") ?? "" };
    case "block": {
      const kind = lastOption(scanned, "kind")?.trim().toLowerCase();
      if (kind !== undefined && !(BLOCK_KINDS as readonly string[]).includes(kind)) {
        throw usageError(
          verb,
          `Block kind "${kind}" is not one of ${BLOCK_KINDS.join(", ")}`,
          prefix,
          kind,
        );
      }
      return {
        verb,
        id: id(0),
        reason: text(words.slice(1), "A block reason", verb, prefix),
        ...(kind === undefined ? {} : { kind: kind as BlockKind }),
      };
    }
    case "tail": {
      const since = lastOption(scanned, "since");
      return {
        verb,
        ...(words[0] === undefined ? {} : { id: id(0) }),
        ...boardOption(scanned, verb, prefix),
        ...(since === undefined ? {} : { since: wholeNumber(since, "since", 0, verb, prefix) }),
        follow: scanned.options.has("follow"),
      };
    }
    case "decompose": {
      const all = scanned.options.has("all");
      if (all === (words[0] !== undefined)) {
        throw usageError(
          verb,
          all
            ? `Give either a task id or --all, not both (got "${words[0]}")`
            : "decompose needs a task id, or --all for every triage task",
          prefix,
        );
      }
      if (!all && scanned.options.has("board")) {
        throw usageError(verb, "--board goes with --all (a task id names its task)", prefix);
      }
      return all ? { verb, ...boardOption(scanned, verb, prefix) } : { verb, id: id(0) };
    }
    case "dispatch": {
      const max = lastOption(scanned, "max");
      const limit = lastOption(scanned, "failure-limit");
      return {
        verb,
        dryRun: scanned.options.has("dry-run"),
        ...boardOption(scanned, verb, prefix),
        ...(max === undefined ? {} : { max: wholeNumber(max, "max", 1, verb, prefix) }),
        ...(limit === undefined
          ? {}
          : { failureLimit: wholeNumber(limit, "failure-limit", 1, verb, prefix) }),
      };
    }
    case "stats":
      return { verb, ...boardOption(scanned, verb, prefix) };
    case "boards":
      return parseBoards(words, prefix);
  }
}

/** The verb `word` names (aliases included), or undefined. */
function verbOf(word: string): KanbanVerb | undefined {
  const lower = word.toLowerCase();
  if ((KANBAN_VERBS as readonly string[]).includes(lower)) return lower as KanbanVerb;
  return ALIASES[lower];
}

/**
 * Reads a `kanban` command line (the words after `herald kanban` or
 * `/kanban`). No words lists the tasks.
 *
 * @example
 * ```ts
 * parseKanbanArgs(["create", "Write the docs", "--assignee", "writer"]);
 * // { verb: "create", input: { title: "Write the docs", assignee: "writer" } }
 * parseKanbanArgs(["link", "t_1a2b3c4d", "t_5e6f7a8b"]);
 * // { verb: "link", parent: "t_1a2b3c4d", child: "t_5e6f7a8b" }
 * ```
 *
 * @throws HeraldError `kanban_usage` (kind `usage`) naming the value at fault and showing the verb's synopsis.
 */
export function parseKanbanArgs(
  tokens: readonly string[],
  options: KanbanParseOptions = {},
): KanbanRequest {
  const prefix = options.prefix ?? "/kanban";
  if (tokens.length === 0) return { verb: "list", all: false };
  const [first, ...rest] = tokens;
  if (first === "--help" || first === "-h") return { verb: "help" };
  const verb = verbOf(first);
  if (verb === undefined) {
    const near = closest(first.toLowerCase(), [...KANBAN_VERBS, ...Object.keys(ALIASES)]);
    const suggestion = near ? `; did you mean ${verbOf(near)}?` : "";
    throw usageError(undefined, `Unknown kanban command "${first}"${suggestion}`, prefix, first);
  }
  if (rest[0] === "--help" || rest[0] === "-h") return { verb: "help", topic: verb };
  if (verb === "help") {
    const topic = rest[0] === undefined ? undefined : verbOf(rest[0]);
    if (rest[0] !== undefined && topic === undefined) {
      throw usageError(undefined, `Unknown kanban command "${rest[0]}"`, prefix, rest[0]);
    }
    return topic ? { verb, topic } : { verb };
  }
  return parseVerb(verb, scan(verb, rest, prefix), prefix);
}

/**
 * Reading a `cron` command line (the words after `herald cron` or
 * `/cron`) into a {@link CronRequest}: the verbs and their aliases, each
 * verb's options, and one usage message per mistake naming the word at
 * fault. core/schedules/cron_command.ts runs what it reads.
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
import type { JobChanges } from "./automations.ts";
import type { NewJob } from "./jobs.ts";
import { WEEKDAY_NAMES } from "./schedule.ts";

/** What a `cron` command line asks for. */
export type CronRequest =
  | { verb: "list"; all: boolean }
  | { verb: "show"; ref: string }
  | { verb: "create"; input: NewJob }
  | { verb: "edit"; ref: string; changes: JobChanges }
  | { verb: "pause" | "resume" | "run" | "remove"; ref: string }
  | { verb: "status" }
  /** One scheduler tick: the CLI's alone (a chat is told to use the terminal). */
  | { verb: "tick" }
  /** The verbs and their synopses; `topic` narrows to one verb. */
  | { verb: "help"; topic?: CronVerb };

/** The verbs of `cron`. */
export const CRON_VERBS = [
  "list",
  "show",
  "create",
  "edit",
  "pause",
  "resume",
  "run",
  "remove",
  "status",
  "tick",
  "help",
] as const;

/** One verb of `cron`. */
export type CronVerb = typeof CRON_VERBS[number];

const ALIASES: Readonly<Record<string, CronVerb>> = {
  add: "create",
  new: "create",
  rm: "remove",
  delete: "remove",
  del: "remove",
  ls: "list",
};

/** Each verb's synopsis, after the command's name (`herald cron`, `/cron`). */
export const CRON_SYNOPSES: Readonly<Record<CronVerb, string>> = {
  list: "list [--all]",
  show: "show <job>",
  create: "create <schedule> [prompt...] [--name N] [--skill S]... [--script CMD] " +
    "[--script-only] [--deliver T] [--repeat N|forever|once]",
  edit: "edit <job> [--schedule S] [--prompt P] [--name N] [--skill S]... [--add-skill S] " +
    "[--remove-skill S] [--clear-skills] [--script CMD] [--deliver T] [--repeat N|forever] " +
    "[--catch-up run_once|skip]",
  pause: "pause <job>",
  resume: "resume <job>",
  run: "run <job>",
  remove: "remove <job>",
  status: "status",
  tick: "tick",
  help: "help [verb]",
};

/** Options of {@link parseCronArgs}. */
export interface CronParseOptions {
  /** How the command is typed here, for usage lines: `herald cron`, `/cron` (the default). */
  prefix?: string;
}

/** The options each verb takes (`values`: may be given more than once). */
const OPTIONS: Readonly<Partial<Record<CronVerb, Readonly<Record<string, OptionKind>>>>> = {
  list: { all: "switch" },
  create: {
    name: "value",
    skill: "values",
    script: "value",
    "script-only": "switch",
    deliver: "value",
    repeat: "value",
  },
  edit: {
    schedule: "value",
    prompt: "value",
    name: "value",
    skill: "values",
    "add-skill": "values",
    "remove-skill": "values",
    "clear-skills": "switch",
    script: "value",
    deliver: "value",
    repeat: "value",
    "catch-up": "value",
  },
};

const FAMILY = { code: "cron_usage", verbs: CRON_VERBS, synopses: CRON_SYNOPSES };

function usageError(
  verb: CronVerb | undefined,
  message: string,
  prefix: string,
  token?: string,
): HeraldError {
  return verbUsageError(FAMILY, verb, message, prefix, token);
}

/** Reads the words and options after `verb`, refusing an option `verb` does not take. */
function scan(verb: CronVerb, tokens: readonly string[], prefix: string): Scanned {
  return scanVerbArgs(
    verb,
    tokens,
    OPTIONS[verb] ?? {},
    prefix,
    (message, token) => usageError(verb, message, prefix, token),
  );
}

/** A repeat count: a whole number from 1, `once`, or `forever` (null). */
function readRepeat(
  value: string,
  verb: CronVerb,
  prefix: string,
  allowOnce: boolean,
): number | null {
  const text = value.trim().toLowerCase();
  if (["forever", "always", "infinite"].includes(text)) return null;
  if (allowOnce && text === "once") return 1;
  if (/^\d+$/.test(text) && Number(text) >= 1) return Number(text);
  throw usageError(
    verb,
    `Repeat "${value}" is not a count; give a whole number of runs from 1, ` +
      (allowOnce ? "once, " : "") + "or forever",
    prefix,
    value,
  );
}

/** The job a verb names: its words joined (a name may have spaces). */
function jobRef(verb: CronVerb, words: readonly string[], prefix: string): string {
  const ref = words.join(" ").trim();
  if (ref === "") {
    throw usageError(
      verb,
      `${verb} needs a job: its id or name (${prefix} list shows them)`,
      prefix,
    );
  }
  return ref;
}

/** Words a schedule starts with but never is alone (`every`, `in`, `weekdays`, `monday`). */
const SCHEDULE_STARTS = new Set([
  "every",
  "each",
  "in",
  "at",
  "on",
  "daily",
  "weekday",
  "weekdays",
  "weekend",
  "weekends",
  ...WEEKDAY_NAMES,
]);

/** Whether `schedule` is the first word of a schedule typed without quotes (`every` `2h` ...). */
function cutShort(schedule: string, next: string | undefined): boolean {
  if (next === undefined || /\s/.test(schedule.trim())) return false;
  const word = schedule.trim().toLowerCase();
  if (SCHEDULE_STARTS.has(word)) return true;
  // `0 9 * * 1-5` unquoted: cron fields one per word.
  const field = /^[\d*/,-]+$/;
  return field.test(word) && field.test(next);
}

function parseCreate(scanned: Scanned, prefix: string): CronRequest {
  const [schedule, ...prompt] = scanned.words;
  if (schedule === undefined || schedule.trim() === "") {
    throw usageError(
      "create",
      `create needs a schedule first, quoted when it has spaces, as in ${prefix} create ` +
        '"every monday 9am" Check the backlog',
      prefix,
    );
  }
  if (cutShort(schedule, prompt[0])) {
    throw usageError(
      "create",
      `Schedule "${schedule}" is cut short: quote the whole schedule, then the prompt, as in ` +
        `${prefix} create "every monday 9am" Check the backlog`,
      prefix,
      schedule,
    );
  }
  const input: NewJob = { schedule };
  const text = prompt.join(" ").trim();
  if (text !== "") input.prompt = text;
  const name = lastOption(scanned, "name");
  if (name !== undefined) input.name = name;
  const skills = scanned.options.get("skill");
  if (skills) input.skills = skills;
  const script = lastOption(scanned, "script");
  if (script !== undefined) input.script = script;
  if (scanned.options.has("script-only")) input.scriptOnly = true;
  const deliver = lastOption(scanned, "deliver");
  if (deliver !== undefined) input.deliver = deliver;
  const repeat = lastOption(scanned, "repeat");
  if (repeat !== undefined) {
    const times = readRepeat(repeat, "create", prefix, true);
    if (times !== null) input.repeat = times;
  }
  return { verb: "create", input };
}

function parseEdit(scanned: Scanned, prefix: string): CronRequest {
  const ref = jobRef("edit", scanned.words, prefix);
  const changes: JobChanges = {};
  const text = (name: string) => lastOption(scanned, name);
  if (text("schedule") !== undefined) changes.schedule = text("schedule");
  if (text("prompt") !== undefined) changes.prompt = text("prompt");
  if (text("name") !== undefined) changes.name = text("name");
  if (text("script") !== undefined) changes.script = text("script");
  if (text("deliver") !== undefined) changes.deliver = text("deliver");
  const skills = scanned.options.get("skill");
  if (scanned.options.has("clear-skills") || skills) changes.skills = skills ?? [];
  const adding = scanned.options.get("add-skill");
  if (adding) changes.addSkills = adding;
  const removing = scanned.options.get("remove-skill");
  if (removing) changes.removeSkills = removing;
  const repeat = text("repeat");
  if (repeat !== undefined) changes.repeat = readRepeat(repeat, "edit", prefix, true);
  const catchUp = text("catch-up");
  if (catchUp !== undefined) {
    const policy = catchUp.trim().toLowerCase().replace("-", "_");
    if (policy !== "run_once" && policy !== "skip") {
      throw usageError(
        "edit",
        `Catch-up "${catchUp}" is not a policy; use run_once (a missed run runs once, late) ` +
          "or skip (it is recorded as skipped)",
        prefix,
        catchUp,
      );
    }
    changes.catch_up = policy;
  }
  if (Object.keys(changes).length === 0) {
    throw usageError("edit", `edit needs a change for "${ref}"`, prefix);
  }
  return { verb: "edit", ref, changes };
}

/** The verb `word` names (aliases included), or undefined. */
function verbOf(word: string): CronVerb | undefined {
  const lower = word.toLowerCase();
  if ((CRON_VERBS as readonly string[]).includes(lower)) return lower as CronVerb;
  return ALIASES[lower];
}

/**
 * Reads a `cron` command line (the words after `herald cron` or `/cron`).
 * No words lists the jobs.
 *
 * @example
 * ```ts
 * parseCronArgs(["create", "every monday 9am", "Check", "the", "backlog", "--name", "Backlog"]);
 * // { verb: "create", input: { schedule: "every monday 9am", prompt: "Check the backlog", name: "Backlog" } }
 * parseCronArgs(["rm", "job_1a2b3c4d"]); // { verb: "remove", ref: "job_1a2b3c4d" }
 * ```
 *
 * @throws HeraldError `cron_usage` (kind `usage`) naming the word at fault and showing the verb's synopsis.
 */
export function parseCronArgs(
  tokens: readonly string[],
  options: CronParseOptions = {},
): CronRequest {
  const prefix = options.prefix ?? "/cron";
  if (tokens.length === 0) return { verb: "list", all: false };
  const [first, ...rest] = tokens;
  if (first === "--help" || first === "-h") return { verb: "help" };
  const verb = verbOf(first);
  if (verb === undefined) {
    const near = closest(first.toLowerCase(), [...CRON_VERBS, ...Object.keys(ALIASES)]);
    const suggestion = near ? `; did you mean ${verbOf(near)}?` : "";
    throw usageError(undefined, `Unknown cron command "${first}"${suggestion}`, prefix, first);
  }
  // `-h` only right after the verb: later it may be a prompt's word (`Run ls -h`).
  if (rest.includes("--help") || rest[0] === "-h") return { verb: "help", topic: verb };
  if (verb === "help") {
    const topic = rest[0] === undefined ? undefined : verbOf(rest[0]);
    if (rest[0] !== undefined && topic === undefined) {
      throw usageError(undefined, `Unknown cron command "${rest[0]}"`, prefix, rest[0]);
    }
    return topic ? { verb, topic } : { verb };
  }
  const scanned = scan(verb, rest, prefix);
  switch (verb) {
    case "list":
      if (scanned.words.length > 0) {
        throw usageError(
          verb,
          `Unexpected "${scanned.words[0]}" after list`,
          prefix,
          scanned.words[0],
        );
      }
      return { verb, all: scanned.options.has("all") };
    case "create":
      return parseCreate(scanned, prefix);
    case "edit":
      return parseEdit(scanned, prefix);
    case "show":
    case "pause":
    case "resume":
    case "run":
    case "remove":
      return { verb, ref: jobRef(verb, scanned.words, prefix) };
    case "status":
    case "tick":
      if (scanned.words.length > 0) {
        throw usageError(
          verb,
          `Unexpected "${scanned.words[0]}" after ${verb}`,
          prefix,
          scanned.words[0],
        );
      }
      return { verb };
  }
}

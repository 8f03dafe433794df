/**
 * `herald cron …` and `/cron …`, one parser and one runner: the words a
 * person typed become a {@link CronRequest} ({@link parseCronArgs}), which
 * {@link runCronRequest} carries out on a profile's {@link Automations},
 * answering text for people and JSON for `--json` with the same facts.
 * The CLI hands in its argv; a chat hands its text to {@link runCronCommand}.
 *
 * @module
 */

import { splitArgs as splitWords } from "../_util/verb_args.ts";
import { errorText, HeraldError } from "../errors.ts";
import type { Automations } from "./automations.ts";
import {
  createdText,
  editedText,
  listText,
  pausedText,
  removedText,
  resumedText,
  runText,
  showText,
  statusText,
  upcomingRuns,
} from "./cron_text.ts";
import type { NewJob } from "./jobs.ts";
import {
  CRON_SYNOPSES,
  CRON_VERBS,
  type CronRequest,
  type CronVerb,
  parseCronArgs,
} from "./cron_args.ts";

export {
  CRON_SYNOPSES,
  CRON_VERBS,
  type CronParseOptions,
  type CronRequest,
  type CronVerb,
  parseCronArgs,
} from "./cron_args.ts";

/** What each verb does, for the help text. */
const CRON_PURPOSES: Readonly<Record<CronVerb, string>> = {
  list: "the jobs with their next runs (completed ones with --all)",
  show: "one job in full: its next runs and its last runs",
  create: "a new job; quote the schedule when it has spaces (alias: add)",
  edit: "change a job; the next run is computed again when the schedule changes",
  pause: "stop a job from running; it keeps its record",
  resume: "run a paused job again, from its next scheduled time",
  run: "run a job now, whatever its schedule",
  remove: "delete a job and its saved runs (aliases: rm, delete)",
  status: "job counts, the next run, and whether a ticker is running",
  tick: "run the jobs that are due, once (for a system timer when no gateway runs)",
  help: "this list",
};

/** Where a `cron` request runs. */
export interface CronCommandContext {
  /** The profile's jobs; absent where this surface cannot manage them. */
  automations?: Automations;
  /** The chat the command came from (`telegram:12345`): new jobs deliver back to it. */
  origin?: string;
  /** How the command is typed here (`herald cron`, `/cron`, the default), for hints. */
  prefix?: string;
}

/**
 * Splits a command line into words the way a shell does for the simple
 * cases: spaces separate words, `"…"` and `'…'` group them, a backslash
 * escapes a quote, a backslash or a space. A quote opens only at the
 * start of a word, so an apostrophe (`don't`) is kept as typed.
 *
 * @example
 * ```ts
 * splitArgs(`create "every monday 9am" Don't forget 'the milk'`);
 * // ["create", "every monday 9am", "Don't", "forget", "the milk"]
 * ```
 *
 * @throws HeraldError `cron_usage` for a quote that is not closed.
 */
export function splitArgs(text: string): string[] {
  return splitWords(text, (message, token) =>
    new HeraldError(
      "cron_usage",
      "usage",
      `${message}; close it, as in create "every monday 9am" Check the backlog`,
      { details: { token } },
    ));
}

/**
 * A script asked for from a chat: refused. Whoever may write to the bot
 * would run commands unwatched on this machine; scripts are scheduled from
 * the terminal or the dashboard.
 */
function scriptFromChat(): HeraldError {
  return new HeraldError(
    "cron_script_from_chat",
    "usage",
    "Scripts cannot be scheduled from a chat (they would run commands on this machine with " +
      "nobody watching); use `herald cron create ... --script` in a terminal or the dashboard",
  );
}

/** The verbs with their synopses and purposes. */
function helpText(prefix: string, topic?: CronVerb): string {
  const verbs = topic ? [topic] : CRON_VERBS.filter((verb) => verb !== "help");
  const lines = topic ? [] : ["Scheduled jobs:"];
  for (const verb of verbs) {
    // A tick is the terminal's alone, whatever surface asks.
    const typed = verb === "tick" ? "herald cron" : prefix;
    lines.push(`  ${typed} ${CRON_SYNOPSES[verb]}`, `      ${CRON_PURPOSES[verb]}`);
  }
  if (!topic) {
    lines.push(
      "",
      "A <job> is its id or its name. Schedules: every 2h, in 45m, every monday 9am, " +
        "weekdays at 08:30, 0 9 * * 1-5, 2026-11-24T09:00. Ready-made jobs: /blueprint.",
    );
  }
  return lines.join("\n");
}

function needAutomations(context: CronCommandContext): Automations {
  if (context.automations) return context.automations;
  throw new HeraldError(
    "cron_unavailable",
    "usage",
    "Scheduled jobs cannot be managed from here; use `herald cron` in a terminal, /cron in " +
      "`herald chat`, or the dashboard's Automations page",
  );
}

/**
 * Carries out `request` on the profile's jobs: text for people, JSON for
 * `--json` (the same facts). A job created from a chat delivers back to it
 * unless told otherwise.
 *
 * @example
 * ```ts
 * const { text } = await runCronRequest({ verb: "list", all: false }, { automations });
 * ```
 *
 * @throws HeraldError from the jobs (ScheduleError, JobInvalidError, `job_not_found`, ...) as they are;
 *   `cron_unavailable` without jobs to manage; `cron_cli_only` for `tick`.
 */
export async function runCronRequest(
  request: CronRequest,
  context: CronCommandContext,
): Promise<{ text: string; json: unknown }> {
  const prefix = context.prefix ?? "/cron";
  if (request.verb === "help") {
    const verbs = request.topic ? [request.topic] : CRON_VERBS;
    return {
      text: helpText(prefix, request.topic),
      json: { usage: verbs.map((verb) => `${prefix} ${CRON_SYNOPSES[verb]}`) },
    };
  }
  if (request.verb === "tick") {
    throw new HeraldError(
      "cron_cli_only",
      "usage",
      "A tick runs from a terminal: `herald cron tick` (the gateway ticks every minute by itself)",
    );
  }
  const automations = needAutomations(context);
  switch (request.verb) {
    case "list": {
      const jobs = await automations.list();
      const shown = request.all ? jobs : jobs.filter((job) => job.state !== "completed");
      return {
        text: listText(shown, { hidden: jobs.length - shown.length, prefix }),
        json: { jobs: shown },
      };
    }
    case "show": {
      const job = await automations.get(request.ref);
      const runs = await automations.history(job.id, 5);
      const upcoming = upcomingRuns(job, 3);
      return {
        text: showText(job, upcoming, runs),
        json: { job, next_runs: upcoming.map((at) => new Date(at).toISOString()), runs },
      };
    }
    case "create": {
      const input: NewJob = { ...request.input };
      if (context.origin !== undefined && input.script !== undefined) throw scriptFromChat();
      if (context.origin !== undefined) {
        input.origin ??= context.origin;
        input.deliver ??= "origin";
      }
      const job = await automations.create(input);
      return { text: createdText(job), json: job };
    }
    case "edit": {
      const script = request.changes.script;
      if (context.origin !== undefined && script !== undefined && script !== null) {
        throw scriptFromChat();
      }
      const job = await automations.edit(request.ref, request.changes);
      return { text: editedText(job), json: job };
    }
    case "pause": {
      const job = await automations.pause(request.ref);
      return { text: pausedText(job, prefix), json: job };
    }
    case "resume": {
      const job = await automations.resume(request.ref);
      return { text: resumedText(job), json: job };
    }
    case "remove": {
      const job = await automations.remove(request.ref);
      return { text: removedText(job), json: job };
    }
    case "run": {
      const job = await automations.get(request.ref);
      const report = await automations.run(job.id);
      return { text: runText(report, job), json: report };
    }
    case "status": {
      const status = await automations.status();
      return { text: statusText(status), json: status };
    }
  }
}

/**
 * The `/cron …` handler: reads `args` as {@link splitArgs} and
 * {@link parseCronArgs} do and runs the request. Never throws: every
 * error becomes its message.
 *
 * @example
 * ```ts
 * await runCronCommand('create "every 2h" Check the build', { automations, origin: "telegram:42" });
 * // 'Created job_… "Check the build": every 2h; next run …; delivers to this chat (telegram:42).'
 * ```
 */
export async function runCronCommand(args: string, context: CronCommandContext): Promise<string> {
  const prefix = context.prefix ?? "/cron";
  try {
    const request = parseCronArgs(splitArgs(args), { prefix });
    return (await runCronRequest(request, { ...context, prefix })).text;
  } catch (error) {
    return errorText(error);
  }
}

/**
 * The `cronjob` tool: the agent lists, creates, changes, pauses, resumes
 * and removes the profile's scheduled jobs, or creates one from a
 * blueprint, through the same {@link Automations} as `herald cron` and
 * `/cron` (every job is made by its `create`). A job created from a chat
 * delivers back to it unless told otherwise. A script the model wants to
 * schedule asks for approval first (it would run later, unwatched). The
 * runner never offers this tool inside a scheduled run, so a job cannot
 * schedule more jobs.
 *
 * @module
 */

import { z } from "zod";
import { instantiateBlueprint } from "../blueprints/mod.ts";
import { sha256Hex } from "../_util/hash.ts";
import { HeraldError } from "../errors.ts";
import type { Automations, JobChanges } from "../schedules/automations.ts";
import type { JobRecord, NewJob } from "../schedules/jobs.ts";
import { defineTypedTool, ToolError, type TypedTool } from "./types.ts";

const ACTIONS = ["list", "create", "update", "pause", "resume", "remove", "blueprint"] as const;

const cronjobArgs = z.object({
  action: z.enum(ACTIONS).describe(
    "list: the jobs. create: a new job (schedule plus prompt, script or skills). update: change " +
      "job_id (only the fields given). pause / resume / remove: job_id. blueprint: a job from a " +
      "ready-made blueprint (key, values).",
  ),
  job_id: z.string().optional().describe(
    "The job's id (job_...) or its exact name; for update, pause, resume, remove.",
  ),
  schedule: z.string().optional().describe(
    "When it runs, as a person would type it: every 2h, every 30m, in 45m (once), every monday " +
      "9am, weekdays at 08:30, daily at 7pm, a 5-field cron expression, or an ISO time " +
      "(2026-11-24T09:00, once) in the user's time zone.",
  ),
  prompt: z.string().optional().describe(
    "What the agent is asked at each run; write it self-contained (the run has no memory of " +
      "this conversation). Answering [SILENT] at run time sends nothing.",
  ),
  name: z.string().optional().describe("A short name for the job (default: the prompt's start)."),
  skills: z.array(z.string()).optional().describe(
    "Skills to load for each run; on update they replace the job's skills ([] clears them).",
  ),
  deliver: z.string().optional().describe(
    "Where each run's answer goes: origin (this chat; the default when created from a chat), " +
      "local (saved only), a platform (telegram) or platform:chat_id.",
  ),
  repeat: z.number().int().positive().optional().describe(
    "How many runs in all; leave it out to repeat forever (a one-shot runs once).",
  ),
  script: z.string().optional().describe(
    "A shell command run before each turn; its output is given to the prompt.",
  ),
  key: z.string().optional().describe("For action blueprint: the blueprint's key (morning-brief)."),
  values: z.record(z.string(), z.string()).optional().describe(
    'For action blueprint: slot values by slot name ({"time": "07:30"}); slots left out take ' +
      "their defaults.",
  ),
});

/** Arguments of the `cronjob` tool. */
export type CronjobArgs = z.infer<typeof cronjobArgs>;

/** A job as the tool returns it: small, for the model. */
export interface CronjobSummary {
  id: string;
  name: string;
  /** The schedule as typed. */
  schedule: string;
  state: JobRecord["state"];
  /** The next run (ISO, UTC), or null. */
  next_run: string | null;
  time_zone: string;
  deliver: string;
  last_status: JobRecord["last_status"];
}

function summary(job: JobRecord): CronjobSummary {
  return {
    id: job.id,
    name: job.name,
    schedule: job.schedule.text,
    state: job.state,
    next_run: job.next_run_at === null ? null : new Date(job.next_run_at).toISOString(),
    time_zone: job.time_zone,
    deliver: job.deliver,
    last_status: job.last_status,
  };
}

function needed(value: string | undefined, field: string, action: string): string {
  if (value === undefined || value.trim() === "") {
    throw new ToolError("cronjob_args", `Action ${action} needs ${field}`);
  }
  return value;
}

/** The changes an update gives. */
function changesOf(args: CronjobArgs): JobChanges {
  const changes: JobChanges = {};
  if (args.schedule !== undefined) changes.schedule = args.schedule;
  if (args.prompt !== undefined) changes.prompt = args.prompt;
  if (args.name !== undefined) changes.name = args.name;
  if (args.skills !== undefined) changes.skills = args.skills;
  if (args.deliver !== undefined) changes.deliver = args.deliver;
  if (args.repeat !== undefined) changes.repeat = args.repeat;
  if (args.script !== undefined) changes.script = args.script;
  if (Object.keys(changes).length > 0) changes.restrictDelivery = true;
  if (Object.keys(changes).length === 0) {
    throw new ToolError(
      "cronjob_args",
      "Action update needs a change: schedule, prompt, name, skills, deliver, repeat or script",
    );
  }
  return changes;
}

/** The new job `args` describe, delivering to `origin` when it came from a chat. */
function newJobOf(args: CronjobArgs, origin: string | undefined): NewJob {
  const input: NewJob = {
    schedule: needed(args.schedule, "a schedule", "create"),
    restrictDelivery: true,
  };
  if (args.prompt !== undefined) input.prompt = args.prompt;
  if (args.name !== undefined) input.name = args.name;
  if (args.skills !== undefined) input.skills = args.skills;
  if (args.repeat !== undefined) input.repeat = args.repeat;
  if (args.script !== undefined) input.script = args.script;
  const deliver = args.deliver ?? (origin !== undefined ? "origin" : undefined);
  if (deliver !== undefined) input.deliver = deliver;
  if (origin !== undefined) input.origin = origin;
  return input;
}

async function act(
  automations: Automations,
  args: CronjobArgs,
  origin: string | undefined,
): Promise<unknown> {
  switch (args.action) {
    case "list":
      return { jobs: (await automations.list()).map(summary) };
    case "create":
      return { created: summary(await automations.create(newJobOf(args, origin))) };
    case "update": {
      const ref = needed(args.job_id, "job_id", "update");
      return { updated: summary(await automations.edit(ref, changesOf(args))) };
    }
    case "pause":
      return { paused: summary(await automations.pause(needed(args.job_id, "job_id", "pause"))) };
    case "resume":
      return {
        resumed: summary(await automations.resume(needed(args.job_id, "job_id", "resume"))),
      };
    case "remove": {
      const job = await automations.remove(needed(args.job_id, "job_id", "remove"));
      return { removed: { id: job.id, name: job.name } };
    }
    case "blueprint": {
      const key = needed(args.key, "key (a blueprint's key, such as morning-brief)", "blueprint");
      const job = await instantiateBlueprint(
        automations,
        key,
        args.values ?? {},
        { ...(origin === undefined ? {} : { origin }), restrictDelivery: true },
      );
      return { created: summary(job) };
    }
  }
}

/**
 * Creates the `cronjob` tool over a profile's jobs; `origin` is the chat
 * the conversation is in (jobs made here deliver back to it).
 *
 * @example
 * ```ts
 * const tool = createCronjobTool(profileAutomations(profile), { origin: "telegram:12345" });
 * await tool.run({ action: "create", schedule: "every monday 9am", prompt: "Plan my week" }, context);
 * ```
 */
export function createCronjobTool(
  automations: Automations,
  options: { origin?: string },
): TypedTool<CronjobArgs, unknown> {
  return defineTypedTool({
    name: "cronjob",
    description: "Manage the user's scheduled jobs: recurring or one-off tasks the agent runs " +
      "by itself later (briefings, reminders, watchers), each answer delivered to a chat or " +
      "saved. Use it when the user asks to do something later, regularly, or at a time. " +
      "Actions: list, create, update, pause, resume, remove, blueprint (a ready-made job from " +
      "the catalog by key, e.g. morning-brief, with slot values). Times are in the user's " +
      "time zone.",
    schema: cronjobArgs,
    run: async (args, context): Promise<unknown> => {
      if (args.script !== undefined && args.script.trim() !== "" && args.action !== "list") {
        // A script the model schedules runs later with nobody watching: a person approves it now.
        const approved = await context.approve({
          tool: "cronjob",
          command: args.script,
          reason: "a shell command scheduled to run unattended",
          // Per script: approving one never approves another the model writes later.
          ruleKey: `cron_script:${(await sha256Hex(args.script)).slice(0, 16)}`,
        });
        if (!approved) {
          throw new ToolError(
            "denied",
            "Scheduling that script was not approved; ask the user, or schedule a prompt instead",
          );
        }
      }
      try {
        return await act(automations, args, context.origin ?? options.origin);
      } catch (error) {
        if (error instanceof HeraldError) throw new ToolError(error.code, error.message);
        throw error;
      }
    },
  });
}

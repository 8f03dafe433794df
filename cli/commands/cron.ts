/**
 * `herald cron list|show|create|edit|pause|resume|run|remove|status|tick
 * [--json]`: the profile's scheduled jobs. The words after `cron` are read
 * by the same parser as `/cron` (core/schedules/cron_command.ts) and
 * answered with the same text; `tick` runs one scheduler tick here, for
 * systems where no gateway ticks (a system timer runs it every minute).
 *
 * @module
 */

import type { Command } from "commander";
import {
  CRON_SYNOPSES,
  CRON_VERBS,
  parseCronArgs,
  runCronRequest,
} from "../../core/schedules/cron_command.ts";
import type { RunReport, TickReport } from "../../core/schedules/mod.ts";
import { HeraldError } from "../../core/errors.ts";
import { openAutomations, tickAutomations } from "../../adapters/runtime/automations.ts";
import type { CliContext } from "../context.ts";
import { printJson } from "../io.ts";

const PREFIX = "herald cron";

const HELP = `
Verbs:
${CRON_VERBS.filter((verb) => verb !== "help").map((verb) => `  ${CRON_SYNOPSES[verb]}`).join("\n")}

A <job> is its id or its name. Quote a schedule with spaces:
  herald cron create "every monday 9am" Check the backlog and list what is blocked
  herald cron create "weekdays at 08:30" --skill news Brief me --deliver telegram
  herald cron create "in 45m" --script "df -h /" --script-only --name "Disk check"
  herald cron edit job_1a2b3c4d --schedule "every 2h" --add-skill weather
  herald cron tick          run what is due once (for a system timer when no gateway runs)
The same commands work in a chat as /cron ...; ready-made jobs: /blueprint.
`;

/** How a tick went, in words. */
function tickText(report: TickReport): string {
  if (report.ran.length === 0 && report.skipped.length === 0) return "Nothing was due.";
  const lines: string[] = [];
  for (const ran of report.ran) {
    lines.push(
      `Ran ${ran.id}${ran.late ? " (late)" : ""}: ${ran.ok ? "ok" : `error: ${ran.error ?? ""}`}`,
    );
  }
  for (const skipped of report.skipped) lines.push(`Skipped ${skipped.id}: ${skipped.reason}`);
  return lines.join("\n");
}

/** Raised after a run's report when the run failed, so the exit code is 1. */
class CronRunFailed extends HeraldError {
  /** Creates the error for the failed run of `jobId`. */
  constructor(jobId: string, count = 1) {
    super(
      "cron_run_failed",
      "state",
      count === 1 ? `The run of ${jobId} failed (see above)` : `${count} runs failed (see above)`,
      { details: { job: jobId } },
    );
  }
}

/** `herald cron tick`: one tick by `cli:<pid>`. */
async function tick(c: CliContext, json: boolean): Promise<void> {
  const report = await tickAutomations(await c.paths(), c.env, {
    ticker: `cli:${Deno.pid}`,
    log: (line) => c.io.err(`${line}\n`),
  });
  if (json) printJson(c.io, report);
  else c.io.out(`${tickText(report)}\n`);
  const failed = report.ran.filter((ran) => !ran.ok);
  if (failed.length > 0) throw new CronRunFailed(failed[0].id, failed.length);
}

/** Adds the `cron` command family to `program`. */
export function registerCron(program: Command, ctx: () => CliContext): void {
  program.command("cron")
    .description(
      "scheduled jobs: list, show, create, edit, pause, resume, run, remove, status, tick",
    )
    .argument("[verb-and-args...]", "a verb and its arguments (below)")
    .option("--json", "print JSON")
    .allowUnknownOption()
    .addHelpText("after", HELP)
    .action(async (tokens: string[], options: { json?: boolean }) => {
      const c = ctx();
      const json = options.json === true;
      const request = parseCronArgs(tokens, { prefix: PREFIX });
      if (request.verb === "tick") return await tick(c, json);
      const needsJobs = request.verb !== "help";
      const automations = needsJobs
        ? openAutomations(await c.paths(), c.env, { ticker: `cli:${Deno.pid}` })
        : undefined;
      const answer = await runCronRequest(request, {
        ...(automations ? { automations } : {}),
        prefix: PREFIX,
      });
      if (json) printJson(c.io, answer.json);
      else c.io.out(`${answer.text}\n`);
      if (request.verb === "run" && (answer.json as RunReport).status === "error") {
        throw new CronRunFailed((answer.json as RunReport).job_id);
      }
    });
}

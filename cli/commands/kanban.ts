/**
 * `herald kanban create|list|show|assign|link|unlink|comment|complete|
 * block|unblock|archive|tail|decompose|dispatch|stats|boards [--json]`: the
 * kanban board shared by every profile (`kanban.db` at the Herald root).
 * The words after `kanban` are read by the same parser as `/kanban`
 * (core/kanban/kanban_command.ts) and answered with the same text; `tail
 * --follow` keeps printing new events here until interrupted.
 *
 * @module
 */

import type { Command } from "commander";
import {
  KANBAN_SYNOPSES,
  KANBAN_VERBS,
  type KanbanRequest,
  parseKanbanArgs,
  runKanbanRequest,
} from "../../core/kanban/kanban_command.ts";
import { eventLine } from "../../core/kanban/kanban_text.ts";
import { kanbanService } from "../../core/usecases/kanban.ts";
import { kanbanOpener, openKanban } from "../../adapters/runtime/kanban.ts";
import { runKanbanWorker } from "../../adapters/runtime/kanban_worker.ts";
import { HeraldError } from "../../core/errors.ts";
import { createWorkerSupervisor } from "../../adapters/runtime/kanban_supervisor.ts";
import type { CliContext } from "../context.ts";
import { printJson } from "../io.ts";

const PREFIX = "herald kanban";

/** How often `tail --follow` looks for new events. */
const FOLLOW_INTERVAL_MS = 1_000;

const HELP = `
Verbs:
${
  KANBAN_VERBS.filter((verb) => verb !== "help").map((verb) => `  ${KANBAN_SYNOPSES[verb]}`).join(
    "\n",
  )
}

Examples:
  herald kanban create "Write the release notes" --assignee writer --priority 2
  herald kanban create "Publish" --parent t_1a2b3c4d
  herald kanban link t_1a2b3c4d t_5e6f7a8b
  herald kanban complete t_1a2b3c4d --result "Notes in docs/RELEASE.md"
  herald kanban tail --follow
The dispatcher runs each claimed task as \`herald -p <assignee> kanban work <id>\`.
The board is shared by every profile; the same commands work in a chat as /kanban ...
`;

/** `tail --follow`: prints the log, then each new event, until the process is interrupted. */
async function follow(
  c: CliContext,
  request: Extract<KanbanRequest, { verb: "tail" }>,
  json: boolean,
): Promise<never> {
  const context = await openKanban(c.root, await c.paths(), c.env);
  const kanban = kanbanService(context);
  let since = request.since ?? 0;
  for (;;) {
    const events = await kanban.tail({
      ...(request.id === undefined ? {} : { taskId: request.id }),
      ...(request.board === undefined ? {} : { board: request.board }),
      since,
    });
    for (const event of events) {
      c.io.out(json ? `${JSON.stringify(event)}\n` : `${eventLine(event)}\n`);
      since = event.seq;
    }
    await new Promise((resolve) => setTimeout(resolve, FOLLOW_INTERVAL_MS));
  }
}

/**
 * `kanban work <id>`: one worker attempt at a task the dispatcher claimed
 * (adapters/runtime/kanban_worker.ts); it needs the claim in
 * `HERALD_KANBAN_CLAIM`. Exit 1 when the attempt failed.
 */
async function work(c: CliContext, args: readonly string[], json: boolean): Promise<void> {
  const [taskId, ...rest] = args;
  if (!taskId || rest.length > 0) {
    throw new HeraldError(
      "kanban_usage",
      "usage",
      `Usage: ${PREFIX} work <id> (the dispatcher starts it on a claimed task)`,
    );
  }
  const lock = c.env.HERALD_KANBAN_CLAIM?.trim();
  if (!lock) {
    throw new HeraldError(
      "kanban_work_unclaimed",
      "usage",
      `\`${PREFIX} work\` is started by the dispatcher with the task's claim in ` +
        "HERALD_KANBAN_CLAIM; to have ready tasks worked, run `herald kanban dispatch` or start " +
        "the gateway (`herald gateway start`)",
    );
  }
  const board = c.env.HERALD_KANBAN_BOARD?.trim();
  const report = await runKanbanWorker(await c.paths(), c.env, {
    taskId,
    lock,
    ...(board ? { board } : {}),
  }, { log: (line) => c.io.err(`${line}\n`) });
  if (json) printJson(c.io, report);
  else c.io.out(`${report.line}\n`);
  if (report.code !== 0) {
    throw new HeraldError(
      "kanban_work_failed",
      "state",
      `The attempt at ${taskId} failed (see above)`,
    );
  }
}

/** Adds the `kanban` command family to `program`. */
export function registerKanban(program: Command, ctx: () => CliContext): void {
  program.command("kanban")
    .description(
      "the task board shared by every profile: create, list, show, link, complete, tail, stats",
    )
    .argument("[verb-and-args...]", "a verb and its arguments (below)")
    .option("--json", "print JSON")
    .allowUnknownOption()
    .addHelpText("after", HELP)
    .action(async (tokens: string[], options: { json?: boolean }) => {
      const c = ctx();
      const json = options.json === true;
      if (tokens[0] === "work") return await work(c, tokens.slice(1), json);
      const request = parseKanbanArgs(tokens, { prefix: PREFIX });
      if (request.verb === "tail" && request.follow) return await follow(c, request, json);
      const answer = await runKanbanRequest(request, {
        kanban: kanbanOpener(
          c.root,
          await c.paths(),
          c.env,
          // This process ends after one tick: the workers it starts run on without it.
          request.verb === "dispatch"
            ? { supervisor: createWorkerSupervisor({ root: c.root, env: c.env, detach: true }) }
            : {},
        ),
        prefix: PREFIX,
      });
      if (json) {
        printJson(c.io, answer.json);
        for (const notice of answer.notices) c.io.err(`${notice}\n`);
      } else c.io.out(`${answer.text}\n`);
    });
}

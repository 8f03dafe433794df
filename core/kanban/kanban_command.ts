/**
 * `herald kanban …` and `/kanban …`, one parser and one runner: the words
 * a person typed become a {@link KanbanRequest} ({@link parseKanbanArgs}),
 * which {@link runKanbanRequest} carries out on the board through a
 * {@link KanbanOpener}, answering text for people and JSON for `--json`
 * with the same facts. The CLI hands in its argv; a chat hands its text to
 * {@link runKanbanCommand}.
 *
 * @module
 */

import { errorText, HeraldError } from "../errors.ts";
import { splitArgs } from "../_util/verb_args.ts";
import {
  KANBAN_SYNOPSES,
  KANBAN_VERBS,
  type KanbanRequest,
  type KanbanVerb,
  parseKanbanArgs,
} from "./kanban_args.ts";
import {
  boardsText,
  completedText,
  createdText,
  decomposedText,
  dispatchedText,
  linkedText,
  listText,
  rewriteNote,
  showText,
  statsText,
  tailText,
  taskLabel,
} from "./kanban_text.ts";
import type { KanbanOpener, KanbanService } from "./service.ts";

export {
  KANBAN_SYNOPSES,
  KANBAN_VERBS,
  type KanbanParseOptions,
  type KanbanRequest,
  type KanbanVerb,
  parseKanbanArgs,
} from "./kanban_args.ts";

/** What each verb does, for the help text. */
const KANBAN_PURPOSES: Readonly<Record<KanbanVerb, string>> = {
  create: "a new task: ready, todo while a parent is unfinished, triage with --triage",
  list: "the tasks, highest priority first (archived ones with --all)",
  show: "one task in full: links, comments, runs and events",
  assign: "give a task to another profile",
  link: "make <child> wait for <parent> (a link closing a cycle is refused)",
  unlink: "remove a link",
  comment: "add a note to a task",
  complete: "mark a task done; children whose parents are all done become ready",
  block: "park a task with a reason",
  unblock: "free a blocked task",
  archive: "put a task away; its children stop waiting for it",
  tail: "the event log (--follow keeps printing new events until interrupted)",
  decompose: "split a triage task into a task graph with the decomposer model",
  dispatch: "claim ready tasks and run their workers once",
  stats: "task counts per status and per assignee",
  boards: "list, create or remove boards (default always exists)",
  help: "this list",
};

/** Where a `kanban` request runs. */
export interface KanbanCommandContext {
  /** Opens the board; absent where this surface cannot reach it. */
  kanban?: KanbanOpener;
  /** How the command is typed here (`herald kanban`, `/kanban`, the default), for hints. */
  prefix?: string;
  /** True in a chat: `tail --follow` is refused (it never ends). */
  chat?: boolean;
  /** The chat the command came from (a messaging gateway): a task created here is reported to it when it ends. */
  subscribe?: { platform: string; chatId: string; threadId?: string };
}

/** What a request answered: text for people, JSON with the same facts, and notes for stderr. */
export interface KanbanAnswer {
  text: string;
  json: unknown;
  /** Things the person should notice (an assignee rewritten); already in `text`. */
  notices: string[];
}

/** The verbs with their synopses and purposes. */
function helpText(prefix: string, topic?: KanbanVerb): string {
  const verbs = topic ? [topic] : KANBAN_VERBS.filter((verb) => verb !== "help");
  const lines = topic ? [] : ["Kanban board (shared by every profile):"];
  for (const verb of verbs) {
    lines.push(`  ${prefix} ${KANBAN_SYNOPSES[verb]}`, `      ${KANBAN_PURPOSES[verb]}`);
  }
  if (!topic) {
    lines.push(
      "",
      "Task ids look like t_1a2b3c4d. An assignee that names no profile goes to " +
        "kanban.default_assignee, else the default profile.",
    );
  }
  return lines.join("\n");
}

function unavailable(): HeraldError {
  return new HeraldError(
    "kanban_unavailable",
    "usage",
    "The kanban board cannot be reached from here; use `herald kanban` in a terminal",
  );
}

function answer(text: string, json: unknown, notices: string[] = []): KanbanAnswer {
  return { text, json, notices };
}

/** Runs `request` (not help) on an open board. */
async function runOn(
  request: Exclude<KanbanRequest, { verb: "help" }>,
  kanban: KanbanService,
  context: KanbanCommandContext & { prefix: string },
): Promise<KanbanAnswer> {
  const prefix = context.prefix;
  switch (request.verb) {
    case "create": {
      const result = await kanban.create({
        ...request.input,
        ...(context.subscribe ? { subscribe: context.subscribe } : {}),
      });
      const note = result.created ? rewriteNote(result) : undefined;
      const told = context.subscribe
        ? `\n(subscribed: this chat is told when ${result.task.id} completes or blocks)`
        : "";
      return answer(createdText(result) + told, result, note ? [note] : []);
    }
    case "list": {
      const { verb: _, ...filter } = request;
      const tasks = await kanban.list(filter);
      return answer(listText(tasks, prefix), { tasks });
    }
    case "show": {
      const detail = await kanban.show(request.id);
      return answer(showText(detail), detail);
    }
    case "assign": {
      const task = await kanban.assign(request.id, request.profile);
      return answer(`Assigned ${taskLabel(task)} to ${task.assignee}.`, task);
    }
    case "link": {
      const detail = await kanban.link(request.parent, request.child);
      return answer(linkedText(request.parent, detail), detail);
    }
    case "unlink": {
      const removed = await kanban.unlink(request.parent, request.child);
      return answer(
        removed
          ? `Unlinked: ${request.child} no longer waits for ${request.parent}.`
          : `${request.child} was not waiting for ${request.parent}; nothing changed.`,
        { parent: request.parent, child: request.child, removed },
      );
    }
    case "comment": {
      const comment = await kanban.comment(request.id, request.text);
      return answer(`Commented on ${request.id} as ${comment.author}.`, comment);
    }
    case "complete": {
      const done = await kanban.complete(request.id, request.result);
      return answer(completedText(done.task, done.promoted), done);
    }
    case "block": {
      const task = await kanban.block(request.id, request.reason, request.kind);
      if (task.status === "todo") {
        return answer(
          `${taskLabel(task)} waits in todo for the tasks it depends on: ${request.reason}`,
          task,
        );
      }
      if (task.status === "triage") {
        return answer(
          `${taskLabel(task)} needed input ${task.block_recurrences} times in a row, so it went ` +
            `back to triage: ${request.reason}`,
          task,
        );
      }
      return answer(`Blocked ${taskLabel(task)}: ${request.reason}`, task);
    }
    case "unblock": {
      const task = await kanban.unblock(request.id);
      return answer(`Unblocked ${taskLabel(task)}; it is ${task.status}.`, task);
    }
    case "archive": {
      const task = await kanban.archive(request.id);
      return answer(`Archived ${taskLabel(task)}.`, task);
    }
    case "tail": {
      const events = await kanban.tail({
        ...(request.id === undefined ? {} : { taskId: request.id }),
        ...(request.board === undefined ? {} : { board: request.board }),
        ...(request.since === undefined ? {} : { since: request.since }),
      });
      return answer(tailText(events), { events });
    }
    case "decompose": {
      const results = await kanban.decompose(
        request.id === undefined
          ? request.board === undefined ? {} : { board: request.board }
          : { id: request.id },
      );
      return answer(decomposedText(results), { results });
    }
    case "dispatch": {
      const { verb: _, ...dispatch } = request;
      const report = await kanban.dispatch(dispatch);
      return answer(dispatchedText(report), report);
    }
    case "stats": {
      const stats = await kanban.stats(request.board);
      return answer(statsText(stats), stats);
    }
    case "boards": {
      if (request.action === "list") {
        const boards = await kanban.boards();
        return answer(boardsText(boards), { boards });
      }
      if (request.action === "create") {
        const board = await kanban.createBoard(request.slug);
        return answer(`Board ${board.slug} ("${board.name}") is ready.`, board);
      }
      await kanban.removeBoard(request.slug);
      return answer(`Removed board ${request.slug}; its tasks are kept.`, {
        slug: request.slug,
        removed: true,
      });
    }
  }
}

/**
 * Carries out `request` on the board: text for people, JSON for `--json`
 * (the same facts). `tail --follow` is the caller's loop: here it reads once.
 *
 * @example
 * ```ts
 * const { text } = await runKanbanRequest({ verb: "list", all: false }, { kanban });
 * ```
 *
 * @throws HeraldError from the board as it is (NotFoundError, `kanban_link_cycle`, ...);
 *   `kanban_unavailable` without a board; `kanban_dispatch_unavailable` for `dispatch` where
 *   no worker can be started.
 */
export async function runKanbanRequest(
  request: KanbanRequest,
  context: KanbanCommandContext,
): Promise<KanbanAnswer> {
  const prefix = context.prefix ?? "/kanban";
  if (request.verb === "help") {
    const verbs = request.topic ? [request.topic] : KANBAN_VERBS;
    return answer(helpText(prefix, request.topic), {
      usage: verbs.map((verb) => `${prefix} ${KANBAN_SYNOPSES[verb]}`),
    });
  }
  if (request.verb === "tail" && request.follow && context.chat) {
    throw new HeraldError(
      "kanban_follow_chat",
      "usage",
      "tail --follow never ends, so it runs in a terminal: `herald kanban tail --follow`; " +
        "here, repeat /kanban tail --since <seq>",
    );
  }
  const open = context.kanban;
  if (!open) throw unavailable();
  return await open((kanban) => runOn(request, kanban, { ...context, prefix }));
}

/**
 * The `/kanban …` handler: reads `args` as the CLI reads its argv and runs
 * the request. Never throws: every error becomes its message.
 *
 * @example
 * ```ts
 * await runKanbanCommand('create "Write the docs" --assignee writer', { kanban });
 * // 'Created t_… "Write the docs" (ready, assignee=writer)'
 * ```
 */
export async function runKanbanCommand(
  args: string,
  context: KanbanCommandContext,
): Promise<string> {
  const prefix = context.prefix ?? "/kanban";
  try {
    const request = parseKanbanArgs(
      splitArgs(
        args,
        (message, token) =>
          new HeraldError("kanban_usage", "usage", `${message}; close it`, {
            details: { token },
          }),
      ),
      { prefix },
    );
    return (await runKanbanRequest(request, { chat: true, ...context, prefix })).text;
  } catch (error) {
    return errorText(error);
  }
}

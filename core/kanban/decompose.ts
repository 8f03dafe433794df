/**
 * The decomposer: asks the `kanban_decomposer` auxiliary model to split a
 * triage task into a graph of child tasks for the profiles that fit them,
 * and writes the answer to the board in one transaction
 * ({@link decomposeTask}). Every failure is an outcome that writes nothing.
 *
 * @module
 */

import { HeraldError } from "../errors.ts";
import type { BoardStore, NewChildTask, TaskRecord } from "./board.ts";
import { resolveAssignee } from "./rules.ts";
import { graphEdges, parseGraph, type TaskGraph } from "./task_graph.ts";

export {
  type GraphFailure,
  type GraphTask,
  MAX_GRAPH_TASKS,
  type ParsedGraph,
  parseGraph,
  type TaskGraph,
} from "./task_graph.ts";

/** A profile the decomposer may assign work to, with the description it routes by. */
export interface ProfileCard {
  name: string;
  description: string;
}

/** What {@link decomposeTask} needs from the world. */
export interface DecomposePorts {
  /** The `kanban_decomposer` auxiliary model; null when none is configured (and no main model to fall back to). */
  complete: ((request: { system: string; user: string }) => Promise<string>) | null;
  /** Who may be assigned, with their descriptions. */
  profiles: readonly ProfileCard[];
  /** `kanban.orchestrator_profile`, else the default profile (already resolved). */
  orchestrator: string;
  /** `kanban.default_assignee`. */
  defaultAssignee?: string;
  /** The default profile's name (`default`). */
  defaultProfile: string;
  /** The clock timing the model call (default `Date.now`). */
  now?: () => number;
}

/** How a decomposition went: a closed union callers branch on. */
export type DecomposeOutcome =
  | { ok: true; fanout: true; root: TaskRecord; children: TaskRecord[] }
  | { ok: true; fanout: false; root: TaskRecord }
  | {
    ok: false;
    code:
      | "no_auxiliary_client"
      | "model_error"
      | "malformed_json"
      | "invalid_graph"
      | "not_in_triage"
      | "unknown_task";
    message: string;
  };

/** The author of the decomposer's audit comments. */
export const DECOMPOSER_AUTHOR = "decomposer";

const MAX_PROMPT_TITLE = 400;
const MAX_PROMPT_BODY = 4000;
const MAX_PROMPT_DESCRIPTION = 600;

const SYSTEM_PROMPT = `You plan work on Herald's kanban board. The user gives you one task and the
profiles (agents) that can be assigned work. Either split the task into smaller tasks for those
profiles, or keep it as one task and sharpen its wording.

Answer with exactly one JSON object and nothing else.

To split it:
{"fanout": true, "rationale": "<one sentence>", "tasks": [
  {"title": "...", "body": "...", "assignee": "<profile name or null>", "parents": [<indices>]}
]}
- Usually 2 to 6 tasks, never more than 50.
- title: an imperative sentence of at most 80 characters.
- body: everything a worker needs, since it sees only its own task: the goal, the approach and
  how to tell it is done.
- assignee: the profile whose description fits the work best; null when none fits.
- parents: the 0-based positions in "tasks" of the tasks whose results this one needs; [] when it
  can start at once. Let tasks run in parallel wherever they can; never make a cycle.

To keep it as one task:
{"fanout": false, "rationale": "<one sentence>", "title": "...", "body": "...",
 "assignee": "<profile name or null>"}
- title and body as above, rewritten to be clear and complete.`;

/**
 * The system and user messages asking the model for a task graph: the
 * task's id, title and body, and each profile with its description.
 *
 * @example
 * ```ts
 * const { system, user } = decomposerPrompt(task, [{ name: "coder", description: "Writes code" }]);
 * await complete({ system, user });
 * ```
 */
export function decomposerPrompt(
  task: TaskRecord,
  profiles: readonly ProfileCard[],
): { system: string; user: string } {
  const roster = profiles.length === 0
    ? ["- (no profiles are listed: use null for every assignee)"]
    : profiles.map((profile) =>
      `- ${profile.name}: ${
        cut(profile.description.trim(), MAX_PROMPT_DESCRIPTION) ||
        `(no description; the profile is named "${profile.name}")`
      }`
    );
  const user = [
    `Task ${task.id}`,
    `Title: ${cut(task.title, MAX_PROMPT_TITLE)}`,
    "Body:",
    cut(task.body.trim(), MAX_PROMPT_BODY) || "(no body)",
    "",
    "Profiles that can be assigned (name: description):",
    ...roster,
  ].join("\n");
  return { system: SYSTEM_PROMPT, user };
}

function cut(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max)}… [${text.length - max} characters cut]` : text;
}

/**
 * Decomposes the triage task `taskId`. The model's graph is checked first;
 * then, with fanout, its children are created in one atomic write (assignees
 * resolved by `resolveAssignee`, so never empty), the root linked under every
 * leaf, an audit comment and a `decomposed` event recorded, and the root
 * given to the orchestrator as `todo`. Without fanout the task leaves triage
 * as one tightened task. Throws only for a failing store (StoreError).
 *
 * @example
 * ```ts
 * const outcome = await decomposeTask(board, "t_1a2b3c4d", {
 *   complete, profiles, orchestrator: "default", defaultProfile: "default",
 * });
 * if (!outcome.ok) console.error(outcome.message);
 * ```
 */
export async function decomposeTask(
  store: BoardStore,
  taskId: string,
  ports: DecomposePorts,
): Promise<DecomposeOutcome> {
  const task = await store.getTask(taskId);
  if (!task) {
    return {
      ok: false,
      code: "unknown_task",
      message: `Task "${taskId}" not found; list the tasks with \`herald kanban list\``,
    };
  }
  if (task.status !== "triage") return notInTriage(task);
  if (!ports.complete) return noClient();
  const now = ports.now ?? Date.now;
  const started = now();
  let reply: string;
  try {
    reply = await ports.complete(decomposerPrompt(task, ports.profiles));
  } catch (error) {
    if (error instanceof HeraldError && error.code === "model_not_configured") return noClient();
    return {
      ok: false,
      code: "model_error",
      message: `The decomposer model failed: ${error instanceof Error ? error.message : error}`,
    };
  }
  const parsed = parseGraph(reply);
  if (!parsed.ok) return parsed;
  const details = { rationale: parsed.graph.rationale, model_ms: now() - started };
  try {
    return await commit(store, task, parsed.graph, ports, details);
  } catch (error) {
    if (!(error instanceof HeraldError)) throw error;
    if (error.code === "not_found") {
      return { ok: false, code: "unknown_task", message: error.message };
    }
    if (error.code === "kanban_task_status") {
      return { ok: false, code: "not_in_triage", message: error.message };
    }
    if (error.code === "kanban_graph") {
      return { ok: false, code: "invalid_graph", message: error.message };
    }
    throw error;
  }
}

async function commit(
  store: BoardStore,
  task: TaskRecord,
  graph: TaskGraph,
  ports: DecomposePorts,
  details: Record<string, unknown>,
): Promise<DecomposeOutcome> {
  const assign = (requested: string | null) =>
    resolveAssignee(requested ?? undefined, {
      profiles: ports.profiles.map((profile) => profile.name),
      defaultAssignee: ports.defaultAssignee,
      defaultProfile: ports.defaultProfile,
    });
  if (!graph.fanout) {
    const chosen = assign(graph.assignee);
    const { root } = await store.commitDecomposition({
      fanout: false,
      rootId: task.id,
      title: graph.title ?? task.title,
      body: graph.body ?? task.body,
      // The model's choice when it names a profile; else the task keeps its own.
      assignee: chosen.source === "requested" ? chosen.assignee : task.assignee,
      comment: { author: DECOMPOSER_AUTHOR, body: singleComment(task, graph.rationale) },
      details,
    });
    return { ok: true, fanout: false, root };
  }
  const children: NewChildTask[] = graph.tasks.map((child) => ({
    title: child.title,
    body: child.body,
    assignee: assign(child.assignee).assignee,
  }));
  const edges = graphEdges(graph.tasks);
  const committed = await store.commitDecomposition({
    fanout: true,
    rootId: task.id,
    children,
    edges,
    rootAssignee: ports.orchestrator,
    comment: {
      author: DECOMPOSER_AUTHOR,
      body: (records) => fanoutComment(records, edges, ports.orchestrator, graph.rationale),
    },
    details,
  });
  if (!committed.fanout) throw new Error("the store wrote a single task for a fanout");
  return { ok: true, fanout: true, root: committed.root, children: committed.children };
}

/** The audit comment of a fanout: each child, who has it and what it waits for. */
function fanoutComment(
  children: readonly TaskRecord[],
  edges: readonly (readonly [number, number])[],
  orchestrator: string,
  rationale: string | null,
): string {
  const lines = children.map((child, index) => {
    const after = edges.filter(([, to]) => to === index).map(([from]) => children[from].id);
    const wait = after.length > 0 ? `, after ${after.join(", ")}` : "";
    return `- ${child.id} "${child.title}" (${child.assignee}${wait})`;
  });
  return [
    `Decomposed into ${children.length} task${children.length === 1 ? "" : "s"}` +
    (rationale ? `: ${rationale}` : "."),
    ...lines,
    `This task waits for all of them, then goes to ${orchestrator} to judge the result.`,
  ].join("\n");
}

/** The audit comment of a tightened task: what it said before. */
function singleComment(task: TaskRecord, rationale: string | null): string {
  return [
    `Kept as one task and reworded${rationale ? `: ${rationale}` : "."}`,
    `Before, the title was: ${task.title}`,
    task.body.trim() ? `and the body:\n${task.body}` : "and the body was empty.",
  ].join("\n");
}

function notInTriage(task: TaskRecord): DecomposeOutcome {
  return {
    ok: false,
    code: "not_in_triage",
    message: `Task "${task.id}" is ${task.status}, not in triage; only a triage task can be ` +
      "decomposed (create it with --triage)",
  };
}

function noClient(): DecomposeOutcome {
  return {
    ok: false,
    code: "no_auxiliary_client",
    message: "No auxiliary client is configured for kanban_decomposer: set " +
      "auxiliary.kanban_decomposer.model (and provider) or configure the main model",
  };
}

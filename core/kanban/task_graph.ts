/**
 * The task graph the decomposer model answers with: reading it out of the
 * model's reply ({@link parseGraph}) and the checks every store applies
 * before writing one ({@link graphProblem}, {@link leafIndices}). Pure.
 *
 * The shape asked for (decomposerPrompt in decompose.ts):
 *
 * ```json
 * { "fanout": true, "rationale": "…",
 *   "tasks": [{ "title": "…", "body": "…", "assignee": "coder", "parents": [0] }] }
 * { "fanout": false, "rationale": "…", "title": "…", "body": "…", "assignee": "coder" }
 * ```
 *
 * `parents` holds 0-based indices into `tasks`: the tasks this one waits for.
 *
 * @module
 */

/** Most tasks one decomposition may create. */
export const MAX_GRAPH_TASKS = 50;

/** Longest title kept from the model (longer ones are cut). */
export const MAX_TITLE_CHARS = 200;

/** One child task as the model described it. */
export interface GraphTask {
  title: string;
  body: string;
  /** The profile the model chose; null when it chose none (resolved later). */
  assignee: string | null;
  /** Indices into the graph's tasks this one waits for (unique). */
  parents: number[];
}

/** The model's answer: a graph of children, or the task itself tightened. */
export type TaskGraph =
  | { fanout: true; rationale: string | null; tasks: GraphTask[] }
  | {
    fanout: false;
    rationale: string | null;
    /** The tightened title; null: keep the task's own. */
    title: string | null;
    /** The tightened body; null: keep the task's own. */
    body: string | null;
    assignee: string | null;
  };

/** Why a reply could not be used as a graph. */
export interface GraphFailure {
  ok: false;
  code: "malformed_json" | "invalid_graph";
  message: string;
}

/** What {@link parseGraph} returns: the graph, or why it is refused. */
export type ParsedGraph = { ok: true; graph: TaskGraph } | GraphFailure;

/**
 * Reads the task graph out of a model reply: the reply itself, the JSON
 * inside a Markdown fence, or the object inside surrounding prose. Throws
 * nothing: a reply that holds no JSON object is `malformed_json`; a graph
 * with no tasks, a task without a title, a parent index that is not a task,
 * a task waiting for itself or a cycle is `invalid_graph`, naming the value.
 *
 * @example
 * ```ts
 * const parsed = parseGraph('Here:\n```json\n{"fanout": true, "tasks": [{"title": "A"}, ' +
 *   '{"title": "B", "parents": [0]}]}\n```');
 * parsed.ok && parsed.graph.fanout; // true
 * ```
 */
export function parseGraph(text: string): ParsedGraph {
  const value = jsonObjectIn(text);
  if (value === undefined) {
    return {
      ok: false,
      code: "malformed_json",
      message: `The decomposer's reply holds no JSON object: "${preview(text)}"; ` +
        "the model must answer with one JSON object (a Markdown fence is accepted)",
    };
  }
  if (typeof value.fanout !== "boolean") {
    return invalid(
      `"fanout" must be true or false, got ${JSON.stringify(value.fanout) ?? "nothing"}`,
    );
  }
  const rationale = optionalText(value.rationale);
  if (!value.fanout) {
    const title = optionalText(value.title);
    const body = optionalText(value.body);
    if (title === null && body === null) {
      return invalid('"fanout" is false but the reply has neither a "title" nor a "body"');
    }
    return {
      ok: true,
      graph: {
        fanout: false,
        rationale,
        title: title === null ? null : title.slice(0, MAX_TITLE_CHARS),
        body,
        assignee: optionalText(value.assignee),
      },
    };
  }
  return readTasks(value.tasks, rationale);
}

function readTasks(list: unknown, rationale: string | null): ParsedGraph {
  if (!Array.isArray(list) || list.length === 0) {
    return invalid('"fanout" is true but "tasks" is not a list of at least one task');
  }
  if (list.length > MAX_GRAPH_TASKS) {
    return invalid(`the graph has ${list.length} tasks; at most ${MAX_GRAPH_TASKS} are accepted`);
  }
  const tasks: GraphTask[] = [];
  for (const [index, entry] of list.entries()) {
    if (!isObject(entry)) return invalid(`tasks[${index}] is not an object`);
    const title = optionalText(entry.title);
    if (title === null) return invalid(`tasks[${index}] has no "title"`);
    const parents = entry.parents ?? [];
    if (!Array.isArray(parents)) {
      return invalid(`tasks[${index}].parents must be a list of task indices`);
    }
    for (const parent of parents) {
      if (!Number.isInteger(parent)) {
        return invalid(`tasks[${index}].parents holds ${JSON.stringify(parent)}, not a task index`);
      }
    }
    tasks.push({
      title: title.slice(0, MAX_TITLE_CHARS),
      body: optionalText(entry.body) ?? "",
      assignee: optionalText(entry.assignee),
      parents: [...new Set(parents as number[])],
    });
  }
  const problem = graphProblem(tasks.length, graphEdges(tasks));
  if (problem) return invalid(problem);
  return { ok: true, graph: { fanout: true, rationale, tasks } };
}

/** The `[parent, child]` index pairs of `tasks` (from each task's `parents`). */
export function graphEdges(tasks: readonly GraphTask[]): [number, number][] {
  return tasks.flatMap((task, child) =>
    task.parents.map((parent): [number, number] => [parent, child])
  );
}

/**
 * What is wrong with a graph of `count` tasks and `edges` (`[parent, child]`
 * indices), or undefined when it is a valid DAG: an index that is not a
 * task, a task waiting for itself, a cycle (named).
 *
 * @example
 * ```ts
 * graphProblem(3, [[0, 1], [1, 2]]); // undefined
 * graphProblem(2, [[0, 1], [1, 0]]); // "tasks 0 -> 1 -> 0 wait for each other in a cycle …"
 * ```
 */
export function graphProblem(
  count: number,
  edges: readonly (readonly [number, number])[],
): string | undefined {
  const last = count - 1;
  const inRange = (index: number) => Number.isInteger(index) && index >= 0 && index <= last;
  for (const [parent, child] of edges) {
    if (!inRange(child)) return `an edge names task ${child}, but the tasks are 0-${last}`;
    if (!inRange(parent)) {
      return `task ${child} waits for task ${parent}, but the tasks are 0-${last}`;
    }
    if (parent === child) return `task ${child} waits for itself`;
  }
  const cycle = findCycle(count, edges);
  if (cycle) {
    return `tasks ${cycle.join(" -> ")} wait for each other in a cycle (each waits for the next)`;
  }
  return undefined;
}

/** A cycle as indices, each waiting for the next (the first repeated last); Kahn's algorithm. */
function findCycle(
  count: number,
  edges: readonly (readonly [number, number])[],
): number[] | undefined {
  const parentsOf = Array.from({ length: count }, () => [] as number[]);
  const childrenOf = Array.from({ length: count }, () => [] as number[]);
  const waiting = new Array<number>(count).fill(0);
  for (const [parent, child] of new Map(edges.map((edge) => [`${edge}`, edge])).values()) {
    parentsOf[child].push(parent);
    childrenOf[parent].push(child);
    waiting[child]++;
  }
  const free = waiting.flatMap((n, index) => n === 0 ? [index] : []);
  let done = 0;
  while (free.length > 0) {
    const index = free.pop()!;
    done++;
    for (const child of childrenOf[index]) if (--waiting[child] === 0) free.push(child);
  }
  if (done === count) return undefined;
  // Every task left waits for another task left: follow parents until one repeats.
  const path: number[] = [];
  const seen = new Map<number, number>();
  let at = waiting.findIndex((n) => n > 0);
  while (!seen.has(at)) {
    seen.set(at, path.length);
    path.push(at);
    at = parentsOf[at].find((parent) => waiting[parent] > 0)!;
  }
  return [...path.slice(seen.get(at)!), at];
}

/**
 * The tasks no other task of the graph waits for: the root is linked under
 * them so it waits for the whole graph.
 *
 * @example
 * ```ts
 * leafIndices(3, [[0, 2], [1, 2]]); // [2]
 * ```
 */
export function leafIndices(
  count: number,
  edges: readonly (readonly [number, number])[],
): number[] {
  const parents = new Set(edges.map(([parent]) => parent));
  return Array.from({ length: count }, (_, index) => index).filter((index) => !parents.has(index));
}

function invalid(problem: string): GraphFailure {
  return {
    ok: false,
    code: "invalid_graph",
    message: `The decomposer's task graph is not valid: ${problem}`,
  };
}

/** The first JSON object in `text`: all of it, a fenced block, or from the first `{` to the last `}`. */
function jsonObjectIn(text: string): Record<string, unknown> | undefined {
  const candidates = [text.trim()];
  const fence = /```[a-zA-Z]*[ \t]*\r?\n?([\s\S]*?)```/.exec(text);
  if (fence) candidates.push(fence[1].trim());
  const first = text.indexOf("{");
  const last = text.lastIndexOf("}");
  if (first >= 0 && last > first) candidates.push(text.slice(first, last + 1));
  for (const candidate of candidates) {
    try {
      const value: unknown = JSON.parse(candidate);
      if (isObject(value)) return value;
    } catch {
      // Try the next reading.
    }
  }
  return undefined;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** A string trimmed, or null when absent, not a string or blank. */
function optionalText(value: unknown): string | null {
  return typeof value === "string" && value.trim() ? value.trim() : null;
}

function preview(text: string): string {
  const flat = text.replace(/\s+/g, " ").trim();
  return flat.length > 120 ? `${flat.slice(0, 120)}…` : flat;
}

/**
 * The board's pure rules: a new task's status, the dependency-cycle check,
 * the assignee fallback and which children a finished parent lets go.
 * Stores call them inside their transactions; nothing here does I/O.
 *
 * @module
 */

import { HeraldError } from "../errors.ts";
import { BOARD_SLUG_PATTERN, FINISHED_STATUSES, type TaskStatus } from "./board.ts";

/** True when a parent in `status` no longer holds its children back. */
export function isFinished(status: TaskStatus): boolean {
  return FINISHED_STATUSES.includes(status);
}

/**
 * The status a new task starts in: `triage` when asked for, `todo` while a
 * parent is unfinished, else `ready`.
 *
 * @example
 * ```ts
 * initialStatus({ parentStatuses: ["done", "running"] }); // "todo"
 * initialStatus({ parentStatuses: [], triage: true }); // "triage"
 * ```
 */
export function initialStatus(
  input: { parentStatuses: readonly TaskStatus[]; triage?: boolean },
): TaskStatus {
  if (input.triage) return "triage";
  return input.parentStatuses.every(isFinished) ? "ready" : "todo";
}

/**
 * Checks that `childId` may wait for `parentId` given the existing links
 * (`childrenOf` lists a task's children). Throws a usage HeraldError for a
 * self-link (`kanban_link_self`) and for a link that would close a cycle
 * (`kanban_link_cycle`, naming the cycle).
 *
 * @example
 * ```ts
 * const children = new Map([["t_aaaaaaaa", ["t_bbbbbbbb"]]]);
 * checkLink("t_bbbbbbbb", "t_aaaaaaaa", (id) => children.get(id) ?? []);
 * // throws: Linking t_bbbbbbbb -> t_aaaaaaaa would close the cycle t_bbbbbbbb -> t_aaaaaaaa -> t_bbbbbbbb ...
 * ```
 */
export function checkLink(
  parentId: string,
  childId: string,
  childrenOf: (id: string) => readonly string[],
): void {
  if (parentId === childId) {
    throw new HeraldError(
      "kanban_link_self",
      "usage",
      `Task "${parentId}" cannot depend on itself; link it to a different task`,
      { details: { task: parentId } },
    );
  }
  const path = pathBetween(childId, parentId, childrenOf);
  if (path) {
    const cycle = [parentId, ...path].join(" -> ");
    throw new HeraldError(
      "kanban_link_cycle",
      "usage",
      `Linking ${parentId} -> ${childId} would close the cycle ${cycle}; ` +
        `unlink one of those tasks first or link them the other way round`,
      { details: { parent: parentId, child: childId, cycle } },
    );
  }
}

/** A path of child links from `from` to `to` (both included), or undefined; iterative DFS. */
function pathBetween(
  from: string,
  to: string,
  childrenOf: (id: string) => readonly string[],
): string[] | undefined {
  const cameFrom = new Map<string, string | undefined>([[from, undefined]]);
  const stack = [from];
  while (stack.length > 0) {
    const id = stack.pop()!;
    if (id === to) {
      const path = [id];
      for (let at = cameFrom.get(id); at !== undefined; at = cameFrom.get(at)) path.unshift(at);
      return path;
    }
    for (const child of childrenOf(id)) {
      if (cameFrom.has(child)) continue;
      cameFrom.set(child, id);
      stack.push(child);
    }
  }
  return undefined;
}

/** Where a resolved assignee came from. */
export type AssigneeSource = "requested" | "kanban.default_assignee" | "default_profile";

/** What {@link resolveAssignee} knows about the profiles. */
export interface AssigneeContext {
  /** The names of the profiles that exist. */
  profiles: readonly string[];
  /** `kanban.default_assignee`, when set. */
  defaultAssignee?: string;
  /** The default profile's name (the one that runs without a profile flag). */
  defaultProfile: string;
}

/**
 * The profile a task goes to: the requested one when it exists (names are
 * trimmed and lowercased), else `kanban.default_assignee` when that names an
 * existing profile, else the default profile. Never empty.
 *
 * @throws HeraldError (`internal`) when `defaultProfile` is empty.
 *
 * @example
 * ```ts
 * resolveAssignee("Coder", { profiles: ["coder"], defaultProfile: "default" });
 * // { assignee: "coder", source: "requested" }
 * resolveAssignee("ghost", { profiles: ["coder"], defaultAssignee: "coder", defaultProfile: "default" });
 * // { assignee: "coder", source: "kanban.default_assignee" }
 * ```
 */
export function resolveAssignee(
  requested: string | undefined,
  context: AssigneeContext,
): { assignee: string; source: AssigneeSource } {
  const known = new Set(context.profiles.map(normalizeProfile));
  const wanted = normalizeProfile(requested ?? "");
  if (wanted && known.has(wanted)) return { assignee: wanted, source: "requested" };
  const fallback = normalizeProfile(context.defaultAssignee ?? "");
  if (fallback && known.has(fallback)) {
    return { assignee: fallback, source: "kanban.default_assignee" };
  }
  const last = normalizeProfile(context.defaultProfile);
  if (!last) {
    throw new HeraldError(
      "kanban_no_default_profile",
      "internal",
      "No default profile name was given to resolve a task's assignee",
    );
  }
  return { assignee: last, source: "default_profile" };
}

function normalizeProfile(name: string): string {
  return name.trim().toLowerCase();
}

/**
 * The children to promote to `ready` now that a parent finished: those in
 * `todo` whose parents are all finished. `parentsOf` gives a child's parents'
 * statuses as they are after the parent finished.
 *
 * @example
 * ```ts
 * childrenToPromote(
 *   [{ id: "t_bbbbbbbb", status: "todo" }],
 *   () => ["done", "done"],
 * ); // ["t_bbbbbbbb"]
 * ```
 */
export function childrenToPromote(
  children: readonly { id: string; status: TaskStatus }[],
  parentsOf: (id: string) => readonly TaskStatus[],
): string[] {
  return children
    .filter((child) => child.status === "todo" && parentsOf(child.id).every(isFinished))
    .map((child) => child.id);
}

/**
 * Normalises a board slug (trimmed, lowercased) and checks it.
 *
 * @throws HeraldError (`kanban_board_slug`, usage) naming the slug when it is not valid.
 */
export function parseBoardSlug(input: string): string {
  const slug = input.trim().toLowerCase();
  if (!BOARD_SLUG_PATTERN.test(slug)) {
    throw new HeraldError(
      "kanban_board_slug",
      "usage",
      `Board slug "${input}" is not valid: use 1-64 lowercase letters, digits, "-" or "_", ` +
        `starting with a letter or digit`,
      { details: { slug: input } },
    );
  }
  return slug;
}

/**
 * A new task id, `t_` and 8 random hex digits.
 *
 * @example
 * ```ts
 * newTaskId(); // "t_3f9a0c1e"
 * ```
 */
export function newTaskId(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(4));
  return `t_${Array.from(bytes, (byte) => byte.toString(16).padStart(2, "0")).join("")}`;
}

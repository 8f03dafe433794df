/**
 * The kanban board: its records and the {@link BoardStore} port
 * (board.ts), and the pure rules every store applies: a new task's status,
 * the cycle check for links, the assignee fallback, which children a
 * finished parent promotes (rules.ts).
 *
 * @example
 * ```ts
 * import { initialStatus, resolveAssignee } from "./core/kanban/mod.ts";
 * initialStatus({ parentStatuses: ["done"] }); // "ready"
 * resolveAssignee(undefined, { profiles: [], defaultProfile: "default" }).assignee; // "default"
 * ```
 *
 * @module
 */

export * from "./board.ts";
export * from "./rules.ts";

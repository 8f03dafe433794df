/**
 * The kanban worker tools (core/tools/kanban_worker.ts) wired for a
 * profile's agent runtime: offered only when `HERALD_KANBAN_TASK` names a
 * task in the runtime's environment (the dispatcher started this process
 * as the task's worker), with the claim (`HERALD_KANBAN_CLAIM`) and board
 * (`HERALD_KANBAN_BOARD`) from there too. The shared board is opened the
 * first time a tool needs it and closed with the runtime.
 *
 * @module
 */

import type { HeraldConfig, ProcessEnv } from "../../core/config/mod.ts";
import { createKanbanWorkerTools, type KanbanWorkerPorts } from "../../core/tools/kanban_worker.ts";
import type { Tool } from "../../core/tools/types.ts";
import { createTask, type KanbanContext } from "../../core/usecases/kanban.ts";
import { type ProfilePaths, rootOf } from "../home/mod.ts";
import { openKanban } from "./kanban.ts";
import { WORKER_ENV } from "./kanban_supervisor.ts";

/** The worker tools of a runtime and how to let go of their board. */
export interface KanbanWorkerToolset {
  readonly tools: Tool[];
  /** Closes the board when it was opened. */
  close(): Promise<void>;
}

/**
 * The worker tools for the profile at `paths` when `env` names a task,
 * else undefined (no tool offered, nothing opened).
 *
 * @example
 * ```ts
 * const kanban = kanbanWorkerToolset(paths, options.env, config);
 * const tools = new ToolRegistry([...builtins, ...(kanban?.tools ?? [])]);
 * ```
 */
export function kanbanWorkerToolset(
  paths: ProfilePaths,
  env: ProcessEnv,
  config: HeraldConfig,
): KanbanWorkerToolset | undefined {
  const taskId = env[WORKER_ENV.task]?.trim();
  if (!taskId) return undefined;
  const lock = env[WORKER_ENV.claim]?.trim();
  const board = env[WORKER_ENV.board]?.trim();
  let opened: Promise<KanbanContext> | undefined;
  const open = async (): Promise<KanbanWorkerPorts> => {
    opened ??= openKanban(rootOf(paths), paths, env);
    const context = await opened.catch((error) => {
      opened = undefined;
      throw error;
    });
    return { board: context.board, createTask: (input) => createTask(context, input) };
  };
  const tools = createKanbanWorkerTools({
    taskId,
    ...(lock ? { lock } : {}),
    ...(board ? { board } : {}),
    actor: paths.name,
    claimTtlMs: config.kanban.claim_ttl_seconds * 1000,
    now: Date.now,
  }, open);
  return {
    tools,
    async close() {
      const pending = opened;
      opened = undefined;
      if (pending) (await pending.catch(() => undefined))?.board.close();
    },
  };
}

/**
 * The kanban board wired for the profile in use: the shared `kanban.db`
 * at the Herald root, the profiles on disk with their descriptions, the
 * profile's `kanban.*` settings and its `kanban_decomposer` auxiliary
 * model, as core's {@link KanbanContext}. {@link openKanban} opens one
 * (the caller closes its board); {@link kanbanOpener} opens one per piece
 * of work for `herald kanban` and `/kanban`.
 *
 * @module
 */

import type { ProcessEnv } from "../../core/config/mod.ts";
import { HeraldError, ModelError } from "../../core/errors.ts";
import type { KanbanOpener } from "../../core/kanban/service.ts";
import { callAuxiliary, resolveAuxiliarySettings } from "../../core/models/auxiliary.ts";
import { DEFAULT_PROFILE } from "../../core/profiles/mod.ts";
import { loadExpandedConfig } from "../../core/usecases/config.ts";
import {
  type KanbanContext,
  type KanbanProfile,
  kanbanService,
  type KanbanSettings,
} from "../../core/usecases/kanban.ts";
import { kanbanDbPath, openProfileHome, type ProfilePaths } from "../home/mod.ts";
import { openSqliteBoard } from "../kanban/mod.ts";
import { createModelClient } from "../models/mod.ts";
import type { DispatchSettings } from "../../core/kanban/dispatch.ts";
import type { HeraldConfig } from "../../core/config/mod.ts";
import type { WorkerSupervisor } from "./kanban_supervisor.ts";
import { openProfileContext } from "./profile_context.ts";

/** The auxiliary slot the decomposer asks. */
export const KANBAN_DECOMPOSER_TASK = "kanban_decomposer";

/** Options of {@link openKanban}. */
export interface OpenKanbanOptions {
  /** The clock (tests pass a fake one). */
  now?: () => number;
  /** Starts and watches workers: given where the dispatcher runs (the gateway, `herald kanban dispatch`). */
  supervisor?: WorkerSupervisor;
}

/** A live worker past its claim keeps it while its last heartbeat is at most this old (ms). */
const HEARTBEAT_STALE_FLOOR_MS = 3_600_000;

/**
 * Opens the board for the profile at `paths` under the Herald `root`
 * (creating the root and `kanban.db` when missing). Close it with
 * `context.board.close()`.
 *
 * @example
 * ```ts
 * const context = await openKanban(root, profilePaths(root, "default"), Deno.env.toObject());
 * try {
 *   await createTask(context, { title: "Write the docs" });
 * } finally {
 *   context.board.close();
 * }
 * ```
 */
export async function openKanban(
  root: string,
  paths: ProfilePaths,
  env: ProcessEnv,
  options: OpenKanbanOptions = {},
): Promise<KanbanContext> {
  const now = options.now ?? Date.now;
  await Deno.mkdir(root, { recursive: true });
  const board = openSqliteBoard(kanbanDbPath(root), { now });
  const home = openProfileHome(root, env);
  const profile = openProfileContext(paths, env);
  let loaded: ReturnType<typeof loadExpandedConfig> | undefined;
  const config = () => loaded ??= loadExpandedConfig(profile);

  const profiles = async (): Promise<KanbanProfile[]> => {
    const names = await home.listNames();
    return await Promise.all(names.map(async (name) => {
      const { meta } = await (await home.open(name)).readMeta();
      return { name, description: meta.description };
    }));
  };
  const settings = async (): Promise<KanbanSettings> => {
    const { kanban } = (await config()).config;
    let sticky: string | undefined;
    try {
      sticky = await home.readSticky();
    } catch (error) {
      if (!(error instanceof HeraldError)) throw error;
    }
    return {
      defaultProfile: sticky ?? DEFAULT_PROFILE,
      ...(kanban.default_assignee === undefined
        ? {}
        : { defaultAssignee: kanban.default_assignee }),
      ...(kanban.orchestrator_profile === undefined
        ? {}
        : { orchestratorProfile: kanban.orchestrator_profile }),
    };
  };
  const decomposer = async (request: { system: string; user: string }): Promise<string> => {
    const { config: settings, credentials } = await config();
    return await callAuxiliary(
      createModelClient,
      settings,
      credentials.lookup,
      KANBAN_DECOMPOSER_TASK,
      {
        system: request.system,
        prompt: request.user,
      },
    );
  };
  let hasDecomposer = false;
  try {
    const { config: settings, credentials } = await config();
    resolveAuxiliarySettings(settings, credentials.lookup, KANBAN_DECOMPOSER_TASK);
    hasDecomposer = true;
  } catch (error) {
    if (!(error instanceof ModelError) && !(error instanceof HeraldError)) {
      board.close();
      throw error;
    }
  }
  const supervisor = options.supervisor;
  return {
    board,
    actor: paths.name,
    profiles,
    settings,
    now,
    decomposer: hasDecomposer ? decomposer : null,
    ...(supervisor
      ? {
        dispatcher: {
          newLock: () => supervisor.newLock(),
          workerAlive: (lock, pid) => supervisor.workerAlive(lock, pid),
          stopWorker: (lock, pid) => supervisor.stopWorker(lock, pid),
          spawn: (task, lock) => supervisor.spawn(task, lock),
          watched: () => supervisor.watched(),
          settings: async () => dispatchSettingsOf((await config()).config.kanban),
        },
      }
      : {}),
  };
}

/** The dispatcher's settings from config `kanban.*`. */
export function dispatchSettingsOf(kanban: HeraldConfig["kanban"]): DispatchSettings {
  const claimTtlMs = kanban.claim_ttl_seconds * 1000;
  return {
    failureLimit: kanban.failure_limit,
    claimTtlMs,
    heartbeatStaleMs: Math.max(HEARTBEAT_STALE_FLOOR_MS, 2 * claimTtlMs),
    autoDecompose: kanban.auto_decompose,
    autoDecomposePerTick: kanban.auto_decompose_per_tick,
    maxInProgress: kanban.max_in_progress,
    maxRuntimeMs: kanban.max_runtime_seconds * 1000,
  };
}

/**
 * A {@link KanbanOpener} for the profile at `paths`: each piece of work
 * opens the board and closes it after.
 *
 * @example
 * ```ts
 * const open = kanbanOpener(root, paths, env);
 * const tasks = await open((kanban) => kanban.list({}));
 * ```
 */
export function kanbanOpener(
  root: string,
  paths: ProfilePaths,
  env: ProcessEnv,
  options: OpenKanbanOptions = {},
): KanbanOpener {
  return async (work) => {
    const context = await openKanban(root, paths, env, options);
    try {
      return await work(kanbanService(context));
    } finally {
      context.board.close();
    }
  };
}

/**
 * The dispatcher the gateway runs: a tick every
 * `kanban.dispatch_interval_seconds` (the first at once) over the shared
 * board, workers started and watched by one {@link WorkerSupervisor}, and
 * after each tick the notices for the chats subscribed through this
 * profile. `kanban.dispatch_in_gateway: false` turns it off. A tick never
 * overlaps the previous one; stopping waits for the tick in progress and
 * leaves running workers alone (they finish their task; the next
 * dispatcher judges them).
 *
 * @module
 */

import type { ProcessEnv } from "../../core/config/mod.ts";
import { errorText } from "../../core/errors.ts";
import type { DispatchReport } from "../../core/kanban/dispatch.ts";
import { dispatchedText } from "../../core/kanban/kanban_text.ts";
import { deliverTaskNotices, dispatchTasks } from "../../core/usecases/kanban.ts";
import { loadExpandedConfig } from "../../core/usecases/config.ts";
import { sendMessage } from "../../core/usecases/send.ts";
import { type ProfilePaths, rootOf } from "../home/mod.ts";
import { openKanban } from "./kanban.ts";
import { createWorkerSupervisor, type WorkerSupervisor } from "./kanban_supervisor.ts";
import { openProfileContext } from "./profile_context.ts";

/** The gateway's dispatcher, running. */
export interface KanbanDispatcherLoop {
  /** Runs a tick now (after the one in progress) and resolves with its report. */
  tick(): Promise<DispatchReport | undefined>;
  /** Stops ticking; resolves when the tick in progress is done. */
  stop(): Promise<void>;
  /** The supervisor of the workers it started. */
  readonly supervisor: WorkerSupervisor;
}

/** Options of {@link startKanbanDispatcher}. */
export interface KanbanDispatcherOptions {
  log: (line: string) => void;
  /** Overrides `kanban.dispatch_interval_seconds` (ms). */
  intervalMs?: number;
  /** The command that runs Herald for workers (default: this process's own). */
  command?: readonly string[];
}

/**
 * Starts the dispatcher of the profile at `paths`, unless its config turns
 * it off (`kanban.dispatch_in_gateway: false`): then undefined.
 */
export async function startKanbanDispatcher(
  paths: ProfilePaths,
  env: ProcessEnv,
  options: KanbanDispatcherOptions,
): Promise<KanbanDispatcherLoop | undefined> {
  const profile = openProfileContext(paths, env);
  const kanbanConfig = async () => (await loadExpandedConfig(profile)).config.kanban;
  const first = await kanbanConfig();
  if (!first.dispatch_in_gateway) {
    options.log("kanban: the dispatcher is off here (kanban.dispatch_in_gateway: false)");
    return undefined;
  }
  const root = rootOf(paths);
  const supervisor = createWorkerSupervisor({
    root,
    env,
    log: options.log,
    failureLimit: async () => (await kanbanConfig()).failure_limit,
    ...(options.command ? { command: options.command } : {}),
  });
  let stopped = false;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let running: Promise<DispatchReport | undefined> = Promise.resolve(undefined);

  const once = async (): Promise<DispatchReport | undefined> => {
    const context = await openKanban(root, paths, env, { supervisor });
    try {
      const report = await dispatchTasks(context, {});
      const text = dispatchedText(report);
      if (!text.startsWith("Nothing to do")) {
        for (const line of text.split("\n")) options.log(`kanban: ${line}`);
      }
      await deliverTaskNotices(context, async (target, message) => {
        await sendMessage(profile, target, message, { protectFiles: true });
      }).catch((error) => options.log(`kanban: a task notice was not sent: ${errorText(error)}`));
      return report;
    } catch (error) {
      options.log(`kanban: the dispatcher tick failed: ${errorText(error)}`);
      return undefined;
    } finally {
      context.board.close();
    }
  };
  const schedule = async () => {
    if (stopped) return;
    const interval = options.intervalMs ?? (await kanbanConfig().catch(() => first))
          .dispatch_interval_seconds * 1000;
    if (!stopped) timer = setTimeout(() => void run(), interval);
  };
  const run = (): Promise<DispatchReport | undefined> => {
    clearTimeout(timer);
    running = running.then(once).finally(() => void schedule());
    return running;
  };
  void run();
  return {
    supervisor,
    tick: run,
    async stop() {
      stopped = true;
      clearTimeout(timer);
      await running;
      clearTimeout(timer);
      supervisor.close();
    },
  };
}

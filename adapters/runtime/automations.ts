/**
 * Scheduled jobs wired for one profile: the job executor (a job's script
 * as a process group with a time limit, its model turn through a
 * conversation of the profile's own runtime, its delivery through the
 * send use case), the {@link Automations} every surface drives, one tick
 * (`herald cron tick`), and the ticker the gateway runs every minute.
 * The decisions are core's (core/schedules/run.ts, tick.ts,
 * core/usecases/cron.ts); this file only connects them to processes,
 * models and platforms.
 *
 * @module
 */

import { Conversation } from "../../core/agent/conversation.ts";
import type { ProcessEnv } from "../../core/config/mod.ts";
import { errorText } from "../../core/errors.ts";
import { executeJob, type ScriptResult } from "../../core/schedules/run.ts";
import type { Automations, JobRecord, TickReport } from "../../core/schedules/mod.ts";
import { judgeCommand } from "../../core/tools/command_guard.ts";
import type { ApprovalSurface } from "../../core/tools/approval_policy.ts";
import {
  cronSettingsOf,
  type JobExecutor,
  profileAutomations,
  tickProfile,
} from "../../core/usecases/cron.ts";
import { loadExpandedConfig } from "../../core/usecases/config.ts";
import { sendMessage } from "../../core/usecases/send.ts";
import type { ProfilePaths } from "../home/mod.ts";
import { childEnvironment } from "../process/child_env.ts";
import { spawnProcessGroup } from "../process/spawn_group.ts";
import { openAgentRuntimeLazily } from "./lazy_agent_runtime.ts";
import { openProfileContext } from "./profile_context.ts";
import { processAlive } from "../channels/gateway_files.ts";

/** Characters kept of a script's output (the head; a note says what was cut). */
export const SCRIPT_OUTPUT_CHARS = 64_000;
/** How often the gateway's ticker ticks. */
export const TICK_INTERVAL_MS = 60_000;
/** A tick comes this long after the minute turns (a job due at 09:00 runs at 09:00:01). */
const TICK_SETTLE_MS = 1_000;

/** Options of {@link createJobExecutor}. */
export interface JobExecutorOptions {
  /** The process environment (credentials fallback, what scripts inherit from the allowlist). */
  env: ProcessEnv;
  /** Stops a running job (the gateway is stopping): its run is recorded as stopped. */
  signal?: AbortSignal;
  /** Where warnings and refused approvals are logged (never a secret). */
  log?: (line: string) => void;
}

/** Nobody watches a job: what the profile does not allow is denied, and logged. */
function unattendedApprovals(log: (line: string) => void): ApprovalSurface {
  return {
    onNotice(notice) {
      const { tool, reason, ruleKey } = notice.request;
      log(
        `cron: denied a dangerous ${tool} call (${reason}): nobody can approve it in a scheduled ` +
          `run; to allow it, run \`herald approvals allow ${ruleKey}\``,
      );
    },
  };
}

/** Reads a stream to text, keeping the first `limit` characters. */
async function readCapped(stream: ReadableStream<Uint8Array>, limit: number): Promise<string> {
  const decoder = new TextDecoder();
  let text = "";
  let cut = false;
  for await (const chunk of stream) {
    if (text.length < limit) text += decoder.decode(chunk, { stream: true });
    else cut = true;
  }
  text += decoder.decode();
  if (text.length > limit) {
    text = text.slice(0, limit);
    cut = true;
  }
  return cut ? `${text}\n[output cut at ${limit.toLocaleString("en-US")} characters]` : text;
}

/** Runs `script` with `sh -c` in `cwd`, stopping its whole tree after `timeoutMs` or on `signal`. */
async function runScript(
  script: string,
  options: {
    cwd: string;
    env: Record<string, string>;
    timeoutMs: number;
    denyPatterns: readonly string[];
    /** Whether the profile allows a dangerous-command rule unasked (`approvals.allow`, yolo). */
    allowed: (ruleKey: string) => boolean;
    signal?: AbortSignal;
  },
): Promise<ScriptResult> {
  if (options.signal?.aborted) {
    return { ok: false, output: "", error: "it did not start: the gateway is stopping" };
  }
  const verdict = judgeCommand(script, options.denyPatterns);
  if (verdict.kind === "refuse") return { ok: false, output: "", error: verdict.reason };
  if (verdict.kind === "ask" && !options.allowed(verdict.ruleKey)) {
    // As on a gateway: nobody can approve a scheduled run, so what asks is refused.
    return {
      ok: false,
      output: "",
      error: `it needs approval (${verdict.reason}) and nobody can approve a scheduled run; ` +
        `to allow it, run \`herald approvals allow ${verdict.ruleKey}\``,
    };
  }
  const group = spawnProcessGroup("sh", {
    args: ["-c", script],
    cwd: options.cwd,
    env: options.env,
    clearEnv: true,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  });
  let why: string | undefined;
  const stop = (reason: string) => {
    why ??= reason;
    void group.terminate({ graceMs: 2_000 });
  };
  const timer = setTimeout(
    () => stop(`it ran longer than ${options.timeoutMs / 1000} s (cron.script_timeout)`),
    options.timeoutMs,
  );
  const onAbort = () => stop("the gateway stopped during the run");
  options.signal?.addEventListener("abort", onAbort, { once: true });
  try {
    const [stdout, stderr, status] = await Promise.all([
      readCapped(group.child.stdout, SCRIPT_OUTPUT_CHARS),
      readCapped(group.child.stderr, SCRIPT_OUTPUT_CHARS),
      group.status,
    ]);
    const output = [stdout.trimEnd(), stderr.trimEnd()].filter((part) => part !== "").join("\n");
    if (why !== undefined) return { ok: false, output, error: `it was stopped: ${why}` };
    if (status.code !== 0) {
      return { ok: false, output, error: `it exited with code ${status.code}` };
    }
    return { ok: true, output };
  } finally {
    clearTimeout(timer);
    options.signal?.removeEventListener("abort", onAbort);
  }
}

/**
 * The job executor of the profile at `paths`: what `herald cron run`, a
 * tick and the dashboard's "Run now" run a job with.
 */
export function createJobExecutor(paths: ProfilePaths, options: JobExecutorOptions): JobExecutor {
  const log = options.log ?? (() => {});
  const profile = openProfileContext(paths, options.env);
  return async (job: JobRecord, plannedAt: number) => {
    // One read of config.yaml per run: the cron settings and what the script inherits.
    const { config, credentials } = await loadExpandedConfig(profile);
    const settings = cronSettingsOf(config);
    return await executeJob(job, plannedAt, {
      now: Date.now,
      wrapResponse: settings.wrapResponse,
      outputs: profile.cron().outputs,
      runScript: (script) =>
        runScript(script, {
          cwd: paths.home,
          env: childEnvironment(options.env, {
            passthrough: config.terminal.env_passthrough,
            lookup: credentials.lookup,
          }),
          timeoutMs: settings.scriptTimeoutMs,
          denyPatterns: config.approvals.deny,
          allowed: (rule) =>
            config.approvals.mode === "yolo" || config.approvals.allow.includes(rule),
          ...(options.signal ? { signal: options.signal } : {}),
        }),
      ask: (ranJob, message) =>
        askModel(paths, ranJob, message, {
          env: options.env,
          log,
          timeoutMs: settings.runTimeoutMs,
          ...(options.signal ? { signal: options.signal } : {}),
        }),
      deliver: async (target, text) => {
        await sendMessage(profile, target, text, {
          protectFiles: true,
          // A job the agent made or pointed somewhere reaches only known chats, as its sends do.
          knownTargetsOnly: job.restrict_delivery,
          ...(options.signal ? { signal: options.signal } : {}),
        });
      },
    });
  };
}

/** One model turn for a job, in a conversation of its own (stored with source `cron`). */
async function askModel(
  paths: ProfilePaths,
  job: JobRecord,
  message: string,
  options: {
    env: ProcessEnv;
    log: (line: string) => void;
    timeoutMs: number;
    signal?: AbortSignal;
  },
): Promise<string> {
  if (options.signal?.aborted) throw new Error("the turn did not start: the gateway is stopping");
  const runtime = await openAgentRuntimeLazily(paths, {
    safeMode: false,
    source: "cron",
    cwd: paths.home,
    env: options.env,
    unattended: true,
    approvals: unattendedApprovals(options.log),
    // A scheduled run schedules nothing: no `/cron`, no `cronjob` tool.
    automations: false,
    onWarning: (file, warning) => options.log(`cron: ${job.id}: warning: ${file}: ${warning}`),
  });
  const conversation = await Conversation.open({ runtime });
  const controller = new AbortController();
  let why: string | undefined;
  const timer = setTimeout(() => {
    why = `it ran longer than ${options.timeoutMs / 1000} s (cron.run_timeout)`;
    controller.abort();
  }, options.timeoutMs);
  const onAbort = () => {
    why = "the gateway stopped during the run";
    controller.abort();
  };
  options.signal?.addEventListener("abort", onAbort, { once: true });
  try {
    const result = await conversation.ask(message, { signal: controller.signal });
    if (result.aborted) throw new Error(`the turn was stopped: ${why ?? "aborted"}`);
    if (result.stopped) throw new Error(result.stopped.message);
    return result.response;
  } finally {
    clearTimeout(timer);
    options.signal?.removeEventListener("abort", onAbort);
    await conversation.close().catch((error) =>
      options.log(`cron: ${job.id}: closing its conversation failed: ${errorText(error)}`)
    );
  }
}

/**
 * Whether the ticker `by` (`gateway:<pid>`, `cli:<pid>`) still runs on this
 * machine; undefined when it names no process (then its claim ages out).
 */
export async function tickerAlive(by: string): Promise<boolean | undefined> {
  const pid = Number(/:(\d+)$/.exec(by)?.[1]);
  if (!Number.isInteger(pid) || pid <= 0) return undefined;
  if (pid === Deno.pid) return true;
  return await processAlive(pid);
}

/** Options of {@link openAutomations}. */
export interface OpenAutomationsOptions {
  /** Who runs manual runs: `cli:<pid>`, `dashboard:<pid>`, `gateway:<pid>`. */
  ticker: string;
  signal?: AbortSignal;
  log?: (line: string) => void;
}

/**
 * The scheduled jobs of the profile at `paths`, able to run them (`herald
 * cron`, the dashboard, `/cron` in the gateway).
 *
 * @example
 * ```ts
 * const automations = openAutomations(paths, Deno.env.toObject(), { ticker: `cli:${Deno.pid}` });
 * console.log(await automations.list());
 * ```
 */
export function openAutomations(
  paths: ProfilePaths,
  env: ProcessEnv,
  options: OpenAutomationsOptions,
): Automations {
  return profileAutomations(openProfileContext(paths, env), {
    execute: createJobExecutor(paths, { env, ...executorExtras(options) }),
    ticker: options.ticker,
    tickerAlive,
  });
}

function executorExtras(options: { signal?: AbortSignal; log?: (line: string) => void }) {
  return {
    ...(options.signal ? { signal: options.signal } : {}),
    ...(options.log ? { log: options.log } : {}),
  };
}

/** One scheduler tick over the profile at `paths` (`herald cron tick`, the gateway's ticker). */
export async function tickAutomations(
  paths: ProfilePaths,
  env: ProcessEnv,
  options: OpenAutomationsOptions,
): Promise<TickReport> {
  const profile = openProfileContext(paths, env);
  return await tickProfile(profile, createJobExecutor(paths, { env, ...executorExtras(options) }), {
    ticker: options.ticker,
    pid: Deno.pid,
    tickerAlive,
    ...executorExtras(options),
  });
}

/** The gateway's ticker, running. */
export interface CronTicker {
  /** Stops ticking; a job running now is stopped and recorded as stopped. Resolves when idle. */
  stop(): Promise<void>;
  /** True while a tick runs (its due jobs with it). */
  readonly busy: boolean;
}

/**
 * Starts ticking the profile at `paths` every {@link TICK_INTERVAL_MS}
 * (the first tick at once, so runs missed while the gateway was down are
 * caught up on start). A tick never overlaps the previous one.
 */
export function startCronTicker(
  paths: ProfilePaths,
  env: ProcessEnv,
  options: {
    log: (line: string) => void;
    intervalMs?: number;
    /** Told when a tick starts and when it ends ({@link CronTicker.busy} changed). */
    changed?: () => void;
  },
): CronTicker {
  const controller = new AbortController();
  const ticker = `gateway:${Deno.pid}`;
  let running: Promise<void> = Promise.resolve();
  let timer: ReturnType<typeof setTimeout> | undefined;
  let busy = false;
  const once = async () => {
    busy = true;
    options.changed?.();
    try {
      const report = await tickAutomations(paths, env, {
        ticker,
        signal: controller.signal,
        log: options.log,
      });
      for (const ran of report.ran) {
        options.log(
          `cron: ran ${ran.id}${ran.late ? " (late)" : ""}: ${
            ran.ok ? "ok" : `error: ${ran.error}`
          }`,
        );
      }
    } catch (error) {
      options.log(`cron: the tick failed: ${errorText(error)}`);
    } finally {
      busy = false;
      options.changed?.();
    }
  };
  const schedule = () => {
    if (controller.signal.aborted) return;
    running = once().finally(() => {
      if (!controller.signal.aborted) {
        // The next tick a moment after the next whole interval (minute), when jobs fall due.
        const interval = options.intervalMs ?? TICK_INTERVAL_MS;
        timer = setTimeout(schedule, interval - (Date.now() % interval) + TICK_SETTLE_MS);
      }
    });
  };
  schedule();
  return {
    async stop() {
      controller.abort();
      clearTimeout(timer);
      await running;
    },
    get busy() {
      return busy;
    },
  };
}

/**
 * The gateway as a process: running it in this process until told to stop
 * ({@link runGateway}, what `herald gateway run` and the service unit do),
 * starting it in the background ({@link startGateway}), and stopping a
 * running one from another process ({@link stopGateway}).
 *
 * A running gateway holds its profile's pid file locked and rewrites its
 * state file (adapters/channels/gateway_files.ts) at start, on every change
 * of its log, and every {@link HEARTBEAT_INTERVAL_MS} as a heartbeat. On a
 * stop it stops the runner (bounded), releases its credential locks, marks
 * the state file `stopped` and removes the pid file.
 *
 * `startGateway` runs `herald -p <profile> gateway run` at the head of its
 * own process group (adapters/process/spawn_group.ts), its output appended
 * to the profile's `logs/gateway.log`, and waits until the state file says
 * it started (or it died). `stopGateway` sends SIGTERM to the gateway's
 * process group when it has one of its own (else to its pid), waits, and
 * sends SIGKILL after a bound; a process is only ever signalled while the
 * pid file's lock shows the gateway alive, so a reused pid is never hit.
 *
 * @module
 */

import { leanV8Flags, trimFreedMemory } from "../process/lean_memory.ts";
import { errorText, HeraldError } from "../../core/errors.ts";
import type { ProcessEnv } from "../../core/config/mod.ts";
import { DEFAULT_PROFILE } from "../../core/profiles/names.ts";
import {
  type GatewayPhase,
  type GatewayStateRecord,
  HEARTBEAT_INTERVAL_MS,
} from "../../core/usecases/gateway.ts";
import type { ProfilePaths } from "../home/layout.ts";
import { spawnProcessGroup } from "../process/spawn_group.ts";
import { type GatewayFiles, gatewayFiles, processGroupOf } from "../channels/gateway_files.ts";
import { composeGateway, type GatewayComposeOptions } from "./gateway.ts";
import { type CronTicker, startCronTicker } from "./automations.ts";
import { type KanbanDispatcherLoop, startKanbanDispatcher } from "./kanban_dispatcher.ts";

/** The variable `herald gateway start` sets so its child's state can be told apart. */
export const LAUNCH_ID_ENV = "HERALD_GATEWAY_LAUNCH_ID";

/** How soon after a log line the state file is rewritten (ms). */
const STATE_DEBOUNCE_MS = 250;
const POLL_MS = 100;

const delay = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A second gateway for a profile whose gateway runs. */
export class GatewayRunningError extends HeraldError {
  /** Creates the error for `profile`'s gateway `pid`. */
  constructor(readonly profile: string, readonly pid: number | undefined) {
    super(
      "gateway_running",
      "state",
      `The gateway of profile "${profile}" is already running` +
        (pid === undefined ? "" : ` (pid ${pid})`) +
        `; one gateway serves a profile: see \`herald${profileArg(profile)} gateway status\`, ` +
        `or stop it with \`herald${profileArg(profile)} gateway stop\``,
      { details: { profile, ...(pid === undefined ? {} : { pid }) } },
    );
  }
}

function profileArg(profile: string): string {
  return profile === DEFAULT_PROFILE ? "" : ` -p ${profile}`;
}

// ------------------------------------------------------------------- running

/** Options of {@link runGateway}. */
export interface RunGatewayOptions extends Omit<GatewayComposeOptions, "pid" | "log"> {
  /** Takes one log line (never a secret). */
  log(line: string): void;
  /** Takes one warning found at start (access, settings, platforms that do not run). */
  warn(line: string): void;
  /** Aborts to stop the gateway. */
  stop: AbortSignal;
  /** Given by `herald gateway start` ({@link LAUNCH_ID_ENV}). */
  launchId?: string;
}

/**
 * Serializes the state file's writes so a late write never overwrites a
 * newer state; a failing write is logged and the next one tried.
 */
class StateWriter {
  #chain: Promise<void> = Promise.resolve();
  #timer: ReturnType<typeof setTimeout> | undefined;
  #promptPending = false;

  constructor(
    readonly files: GatewayFiles,
    readonly record: () => GatewayStateRecord,
    readonly log: (line: string) => void,
  ) {}

  /** Writes the state now (after the writes before it). */
  write(): Promise<void> {
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    this.#timer = undefined;
    return this.#enqueue();
  }

  /** Appends one write of the state as it is when its turn comes. */
  #enqueue(): Promise<void> {
    this.#chain = this.#chain.then(() => this.files.writeState(this.record())).catch((error) =>
      this.log(`the state file ${this.files.statePath} could not be written: ${errorText(error)}`)
    );
    return this.#chain;
  }

  /**
   * Writes the state as soon as the write in progress ends: changes that
   * come while one is waiting share it (it records the state as it is then),
   * so a flood of messages makes no flood of writes.
   */
  promptly(): void {
    if (this.#promptPending) return;
    this.#promptPending = true;
    this.#chain = this.#chain.then(() => void (this.#promptPending = false));
    void this.#enqueue();
  }

  /** Writes the state soon (many changes in a row make one write). */
  soon(): void {
    this.#timer ??= setTimeout(() => void this.write(), STATE_DEBOUNCE_MS);
  }

  /** Drops a pending write. */
  cancel(): void {
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    this.#timer = undefined;
  }
}

/**
 * Runs the gateway of `options.paths` in this process until `options.stop`
 * aborts, then stops it cleanly.
 *
 * @throws GatewayRunningError when the profile's gateway already runs.
 * @throws ConfigParseError, StoreError when the profile cannot be read.
 */
export async function runGateway(options: RunGatewayOptions): Promise<void> {
  const { paths } = options;
  const files = gatewayFiles(paths.home);
  const lock = await files.acquire(Deno.pid);
  if (!lock.held) throw new GatewayRunningError(paths.name, lock.pid);
  try {
    const group = await processGroupOf(Deno.pid);
    // Signal the group only when it is the gateway's own (it leads it, or `start` made it).
    const pgid = group !== undefined && (group === Deno.pid || options.launchId !== undefined)
      ? group
      : null;
    let phase: GatewayPhase = "starting";
    let stoppedAt: number | null = null;
    const startedAt = Date.now();
    // The writer exists once the gateway is composed; lines logged before it only print.
    const live: { writer?: StateWriter } = {};
    const log = (line: string) => {
      options.log(line);
      live.writer?.soon();
    };
    // A turn starting or ending is written at once, not at the next heartbeat: an
    // update waiting for the gateway's turns to drain reads these counts.
    const changed = () => live.writer?.promptly();
    const gateway = await composeGateway({ ...options, pid: Deno.pid, log, changed });
    for (const warning of gateway.warnings) options.warn(warning);
    let ticker: CronTicker | undefined;
    const record = (): GatewayStateRecord => {
      const status = gateway.status();
      return {
        version: 1,
        profile: paths.name,
        pid: Deno.pid,
        pgid,
        launch_id: options.launchId ?? null,
        status: phase,
        started_at: startedAt,
        heartbeat_at: Date.now(),
        stopped_at: stoppedAt,
        platforms: status.platforms.map((p) => ({
          platform: p.platform,
          label: p.label,
          state: p.state,
          last_error: p.lastError ?? null,
          since: p.since,
          send_error: p.sendError ?? null,
          send_failing_since: p.sendFailingSince ?? null,
        })),
        counts: {
          chats: status.chats,
          conversations: status.conversations,
          running: status.running,
          queued: status.queued,
          undelivered: status.undelivered,
          jobs: ticker?.busy ? 1 : 0,
        },
      };
    };
    const writer = live.writer = new StateWriter(files, record, options.log);
    let dispatcher: KanbanDispatcherLoop | undefined;
    const heartbeat = setInterval(() => {
      void writer.write();
      // A long-lived process: give the allocator's freed pages back (see lean_memory.ts).
      trimFreedMemory();
    }, HEARTBEAT_INTERVAL_MS);
    try {
      await writer.write();
      if (!options.stop.aborted) {
        await gateway.runner.start();
        // Scheduled jobs tick here every minute; the first tick catches up what was missed.
        ticker = startCronTicker(paths, options.env, { log, changed });
        // The kanban dispatcher ticks here too: it starts workers for ready tasks.
        dispatcher = await startKanbanDispatcher(paths, options.env, { log }).catch((error) => {
          log(`kanban: the dispatcher did not start: ${errorText(error)}`);
          return undefined;
        });
        phase = "running";
        const platforms = gateway.status().platforms;
        options.log(
          `gateway of profile "${paths.name}" running (pid ${Deno.pid}); platforms: ${
            platforms.length === 0
              ? "none enabled"
              : platforms.map((p) => `${p.platform} ${p.state}`).join(", ")
          }`,
        );
        await writer.write();
        await new Promise<void>((resolve) => {
          if (options.stop.aborted) resolve();
          else options.stop.addEventListener("abort", () => resolve(), { once: true });
        });
      }
      phase = "stopping";
      options.log("stopping");
      await writer.write();
      await Promise.all([ticker?.stop(), dispatcher?.stop(), gateway.runner.stop()]);
    } finally {
      clearInterval(heartbeat);
      writer.cancel();
      gateway.close();
      phase = "stopped";
      stoppedAt = Date.now();
      await writer.write();
      options.log("stopped");
    }
  } finally {
    await lock.release();
  }
}

// ------------------------------------------------------------------ starting

/** Options of {@link startGateway}. */
export interface StartGatewayOptions {
  paths: ProfilePaths;
  /** The root home, given to the child as `HERALD_HOME`. */
  root: string;
  /** The child's whole environment (besides `HERALD_HOME` and the launch id). */
  env: ProcessEnv;
  /** The command that runs Herald (adapters/process/herald_command.ts). */
  command: readonly string[];
  /** How long to wait for the gateway to say it started (ms). */
  timeoutMs: number;
}

/** What {@link startGateway} did. */
export type StartOutcome =
  | { kind: "already_running"; pid: number }
  | { kind: "started"; pid: number; state: GatewayStateRecord }
  /** The child ended before it started; `log` is what it wrote. */
  | { kind: "exited"; code: number; log: string }
  /** No word within the timeout; it may still be starting. */
  | { kind: "timeout"; pid?: number };

/** The text appended to `path` since it was `offset` bytes long (the last 4 KiB of it). */
async function logSince(path: string, offset: number): Promise<string> {
  try {
    const bytes = await Deno.readFile(path);
    const tail = bytes.subarray(Math.max(offset, bytes.length - 4096));
    return new TextDecoder().decode(tail).trim();
  } catch {
    return "";
  }
}

async function fileSize(path: string): Promise<number> {
  try {
    return (await Deno.stat(path)).size;
  } catch {
    return 0;
  }
}

/**
 * Starts the gateway of `options.paths` in the background and waits until
 * it has started, ended, or the timeout passed.
 */
export async function startGateway(options: StartGatewayOptions): Promise<StartOutcome> {
  if (Deno.build.os === "windows") {
    throw new HeraldError(
      "gateway_start_unsupported",
      "unavailable",
      "`herald gateway start` needs a POSIX shell; on Windows run `herald gateway run` in its " +
        "own window (or as a scheduled task)",
    );
  }
  const { paths } = options;
  const files = gatewayFiles(paths.home);
  const pid = await files.readPid();
  if (pid !== undefined) {
    if (await files.isRunning(pid)) return { kind: "already_running", pid };
    await files.clearStale(pid);
  }
  await Deno.mkdir(paths.logs, { recursive: true });
  await rotateLog(files.logPath);
  const offset = await fileSize(files.logPath);
  const launchId = crypto.randomUUID();
  const env: Record<string, string> = {};
  for (const [name, value] of Object.entries(options.env)) {
    if (value !== undefined) env[name] = value;
  }
  const [program, ...prefix] = options.command;
  const group = spawnProcessGroup("/bin/sh", {
    args: [
      "-c",
      'log=$1; shift; exec "$@" >>"$log" 2>&1',
      "herald-gateway",
      files.logPath,
      program,
      ...prefix,
      "-p",
      paths.name,
      "gateway",
      "run",
    ],
    env: {
      ...env,
      HERALD_HOME: options.root,
      [LAUNCH_ID_ENV]: launchId,
      DENO_V8_FLAGS: leanV8Flags(env.DENO_V8_FLAGS),
    },
    clearEnv: true,
    stdin: "null",
    stdout: "null",
    stderr: "null",
  });
  // The gateway outlives this command.
  group.child.unref();
  const deadline = Date.now() + options.timeoutMs;
  for (;;) {
    const state = await files.readState();
    if (state?.launch_id === launchId && state.status === "running") {
      return { kind: "started", pid: state.pid, state };
    }
    if (group.exited()) {
      const status = await group.status;
      return { kind: "exited", code: status.code, log: await logSince(files.logPath, offset) };
    }
    if (Date.now() >= deadline) {
      return state?.launch_id === launchId ? { kind: "timeout", pid: state.pid } : {
        kind: "timeout",
      };
    }
    await delay(POLL_MS);
  }
}

// ------------------------------------------------------------------ stopping

/** Options of {@link stopGateway}. */
export interface StopGatewayOptions {
  /** How long the gateway gets to stop after SIGTERM before SIGKILL (ms). */
  graceMs: number;
  /** How long to wait after SIGKILL (ms). */
  killWaitMs?: number;
  /** How signals are sent (default `Deno.kill`). */
  kill?: (target: number, signal: Deno.Signal) => void;
}

/** What {@link stopGateway} did. */
export type StopOutcome =
  | { kind: "not_running" }
  /** A pid file was left by a gateway that is gone; it was removed. */
  | { kind: "stale"; pid: number }
  /** `forced`: it did not stop within the grace and was killed. */
  | { kind: "stopped"; pid: number; forced: boolean }
  /** Still running after SIGKILL (a process that cannot be killed). */
  | { kind: "still_running"; pid: number };

/** Resolves true once the gateway `pid` is gone, false after `ms`. */
async function goneWithin(files: GatewayFiles, pid: number, ms: number): Promise<boolean> {
  const deadline = Date.now() + ms;
  for (;;) {
    if (!(await files.isRunning(pid))) return true;
    if (Date.now() >= deadline) return false;
    await delay(POLL_MS);
  }
}

/**
 * Stops the gateway whose files are in the profile home `home`: SIGTERM,
 * then SIGKILL after `graceMs`.
 */
export async function stopGateway(home: string, options: StopGatewayOptions): Promise<StopOutcome> {
  const files = gatewayFiles(home);
  const kill = options.kill ?? Deno.kill;
  const state = await files.readState();
  const pid = await files.readPid() ??
    (state && state.status !== "stopped" ? state.pid : undefined);
  if (pid === undefined) return { kind: "not_running" };
  if (!(await files.isRunning(pid))) {
    await files.clearStale(pid);
    return { kind: "stale", pid };
  }
  const group = state?.pid === pid ? state.pgid : null;
  const own = await processGroupOf(Deno.pid);
  const target = group !== null && group !== own ? -group : pid;
  const send = (signal: Deno.Signal) => {
    try {
      kill(target, signal);
    } catch {
      // Gone meanwhile.
    }
  };
  send("SIGTERM");
  if (await goneWithin(files, pid, options.graceMs)) {
    await files.clearStale(pid);
    return { kind: "stopped", pid, forced: false };
  }
  if (await files.isRunning(pid)) send("SIGKILL");
  if (await goneWithin(files, pid, options.killWaitMs ?? 5_000)) {
    await files.clearStale(pid);
    return { kind: "stopped", pid, forced: true };
  }
  return { kind: "still_running", pid };
}

/** A gateway log past this size is moved aside at the next `gateway start` (bytes). */
export const GATEWAY_LOG_ROTATE_BYTES = 10 * 1024 * 1024;

/**
 * Moves the log at `path` to `<path>.1` (replacing an older one) when it
 * has grown past {@link GATEWAY_LOG_ROTATE_BYTES}, so a gateway started
 * again and again keeps at most about twice that on disk.
 */
export async function rotateLog(path: string): Promise<void> {
  if (await fileSize(path) <= GATEWAY_LOG_ROTATE_BYTES) return;
  await Deno.rename(path, `${path}.1`);
}

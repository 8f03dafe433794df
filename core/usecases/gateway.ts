/**
 * The messaging gateway's status as `herald gateway status` and the
 * dashboard's `GET /api/status` show it, read from what the gateway process
 * leaves in its profile home: the pid file (held locked while the process
 * lives) and the state file `gateway.json` (pid, start time, a heartbeat
 * every few seconds, each platform's state and last error). The files are
 * reached through {@link GatewayProcessFiles}
 * (adapters/channels/gateway_files.ts implements it).
 *
 * A gateway counts as running when its process is alive (the pid file's
 * lock is held and the pid runs) and its heartbeat is fresh; alive with a
 * stale heartbeat it is `unresponsive`. A pid file whose process is gone is
 * stale: with `clean` it is removed and the state file marked stopped.
 *
 * @module
 */

import { z } from "zod";

/** How often a running gateway rewrites its state file (ms). */
export const HEARTBEAT_INTERVAL_MS = 5_000;

/** How long a stopping gateway gets between SIGTERM and SIGKILL (`gateway stop`, update, uninstall). */
export const GATEWAY_STOP_GRACE_MS = 30_000;

/** A heartbeat older than this (ms) means the gateway stopped answering. */
export const HEARTBEAT_STALE_MS = 30_000;

/**
 * A platform's connection state: the values of core/channels' `ChannelState`
 * (not imported: core/channels depends on core/agent, which uses these use cases).
 */
const CHANNEL_STATES = ["starting", "connected", "retrying", "stopped", "refused"] as const;

/** A platform's connection state, as the state file records it. */
export type GatewayChannelState = typeof CHANNEL_STATES[number];

/** One platform in the state file. */
export const GatewayPlatformRecord = z.object({
  platform: z.string(),
  label: z.string(),
  state: z.enum(CHANNEL_STATES),
  /** Why it last failed (never a secret). */
  last_error: z.string().nullable().default(null),
  /** When it entered `state` (ms since the epoch). */
  since: z.number(),
  /** Why sending replies fails, while it does (they wait and are retried; never a secret). */
  send_error: z.string().nullable().default(null),
  /** Since when sends have been failing (ms since the epoch). */
  send_failing_since: z.number().nullable().default(null),
});
/** One platform in the state file. */
export type GatewayPlatformRecord = z.infer<typeof GatewayPlatformRecord>;

/** The runner's counts in the state file. */
export const GatewayCounts = z.object({
  chats: z.number(),
  conversations: z.number(),
  running: z.number(),
  queued: z.number(),
  undelivered: z.number(),
  /** Scheduled-job ticks running (0 or 1); absent in files of older gateways. */
  jobs: z.number().default(0),
});
/** The runner's counts in the state file. */
export type GatewayCounts = z.infer<typeof GatewayCounts>;

/** Where the gateway process is in its life. */
export type GatewayPhase = "starting" | "running" | "stopping" | "stopped";

/** The state file `gateway.json` a gateway process writes in its profile home. */
export const GatewayStateRecord = z.object({
  version: z.literal(1),
  profile: z.string(),
  pid: z.number().int().positive(),
  /**
   * The process group `herald gateway stop` signals (the gateway leads it,
   * or `herald gateway start` made it); null: only the pid is signalled.
   */
  pgid: z.number().int().positive().nullable().default(null),
  /** Set by `herald gateway start` so it can tell its own child's state from an older one. */
  launch_id: z.string().nullable().default(null),
  status: z.enum(["starting", "running", "stopping", "stopped"]),
  started_at: z.number(),
  heartbeat_at: z.number(),
  stopped_at: z.number().nullable().default(null),
  platforms: z.array(GatewayPlatformRecord).default([]),
  counts: GatewayCounts.nullable().default(null),
});
/** The state file `gateway.json` a gateway process writes in its profile home. */
export type GatewayStateRecord = z.infer<typeof GatewayStateRecord>;

/**
 * Reads a state file's text; undefined for anything that is not one (an
 * empty, truncated or foreign file is "no state", never a crash).
 */
export function parseGatewayState(text: string): GatewayStateRecord | undefined {
  if (text.trim() === "") return undefined;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return undefined;
  }
  const parsed = GatewayStateRecord.safeParse(value);
  return parsed.success ? parsed.data : undefined;
}

/** What the gateway's files say and whether its process lives: the port of {@link gatewayStatus}. */
export interface GatewayProcessFiles {
  /** The state file, or undefined when there is none (or it cannot be read as one). */
  readState(): Promise<GatewayStateRecord | undefined>;
  /** The pid in the pid file, or undefined when there is none. */
  readPid(): Promise<number | undefined>;
  /** Whether the gateway with `pid` still lives (the pid file's lock is held and the pid runs). */
  isRunning(pid: number): Promise<boolean>;
  /**
   * Removes the pid file of a gateway `pid` that is gone and marks its state
   * file stopped; false when a gateway holds the pid file now.
   */
  clearStale(pid: number): Promise<boolean>;
}

/** One platform as the status shows it. */
export interface GatewayPlatformView {
  platform: string;
  label: string;
  state: GatewayChannelState;
  last_error: string | null;
  /** When it entered `state` (ms since the epoch). */
  since: number;
  /** Why sending replies fails, while it does (they wait and are retried). */
  send_error: string | null;
  /** Since when sends have been failing (ms since the epoch). */
  send_failing_since: number | null;
}

/** The gateway's state in one word. */
export type GatewayStatusState = GatewayPhase | "unresponsive";

/** The gateway of a profile, as `herald gateway status --json` prints it. */
export interface GatewayStatusView {
  profile: string;
  /** The process lives and its heartbeat is fresh. */
  running: boolean;
  state: GatewayStatusState;
  pid: number | null;
  started_at: number | null;
  uptime_seconds: number | null;
  heartbeat_at: number | null;
  /** When it last stopped cleanly, when it is stopped. */
  stopped_at: number | null;
  /** A pid file was left by a gateway that is gone (removed when asked to clean). */
  stale_pid_file: boolean;
  platforms: GatewayPlatformView[];
  counts: GatewayCounts | null;
}

/** Options of {@link gatewayStatus}. */
export interface GatewayStatusOptions {
  /** Now, in ms since the epoch. */
  now: number;
  /** Remove a stale pid file (the CLI does; the dashboard's probe only reports it). */
  clean?: boolean;
}

function platformViews(record: GatewayStateRecord | undefined): GatewayPlatformView[] {
  return (record?.platforms ?? []).map((p) => ({
    platform: p.platform,
    label: p.label,
    state: p.state,
    last_error: p.last_error,
    since: p.since,
    send_error: p.send_error,
    send_failing_since: p.send_failing_since,
  }));
}

/**
 * The gateway status of the profile whose gateway files are `files`.
 *
 * @example
 * ```ts
 * const view = await gatewayStatus(gatewayFiles(paths.home), { now: Date.now(), clean: true });
 * view.running; // false
 * ```
 */
export async function gatewayStatus(
  profile: string,
  files: GatewayProcessFiles,
  options: GatewayStatusOptions,
): Promise<GatewayStatusView> {
  const [pidFromFile, record] = await Promise.all([files.readPid(), files.readState()]);
  const pid = pidFromFile ?? (record && record.status !== "stopped" ? record.pid : undefined);
  const stopped = (stale: boolean): GatewayStatusView => ({
    profile,
    running: false,
    state: "stopped",
    pid: null,
    started_at: null,
    uptime_seconds: null,
    heartbeat_at: record?.heartbeat_at ?? null,
    stopped_at: record?.stopped_at ?? null,
    stale_pid_file: stale,
    // A gateway that is not running connects nothing, whatever it last said.
    platforms: platformViews(record).map((p) =>
      p.state === "refused" || p.state === "stopped" ? p : { ...p, state: "stopped" }
    ),
    counts: null,
  });
  if (pid === undefined) return stopped(false);
  if (!(await files.isRunning(pid))) {
    if (options.clean) await files.clearStale(pid);
    return stopped(true);
  }
  // No state of this pid yet: it has just taken the pid file and is starting.
  const current = record && record.pid === pid ? record : undefined;
  const fresh = current !== undefined &&
    options.now - current.heartbeat_at <= HEARTBEAT_STALE_MS;
  return {
    profile,
    running: fresh,
    state: current === undefined ? "starting" : fresh ? current.status : "unresponsive",
    pid,
    started_at: current?.started_at ?? null,
    uptime_seconds: current
      ? Math.max(0, Math.round((options.now - current.started_at) / 1000))
      : null,
    heartbeat_at: current?.heartbeat_at ?? null,
    stopped_at: null,
    stale_pid_file: false,
    platforms: platformViews(current),
    counts: current?.counts ?? null,
  };
}

/**
 * `herald gateway [run]|start|stop|restart|status|install`: the messaging
 * gateway, one long-lived process per profile that connects every platform
 * the profile enables (adapters/runtime/gateway.ts) and answers each chat
 * through the profile's agent.
 *
 * - `run` (the default) runs it in the foreground, logging to standard
 *   output, until SIGINT or SIGTERM (a second one stops at once);
 * - `start` runs it in the background (output in the profile's
 *   `logs/gateway.log`) and waits until it says it started;
 * - `stop` ends it (SIGTERM, SIGKILL after {@link GATEWAY_STOP_GRACE_MS});
 * - `status [--json]` shows whether it runs and each platform's state;
 * - `install [--force]` writes a systemd user unit (launchd on macOS).
 *
 * The process work is adapters/runtime/gateway_process.ts (loaded lazily); the status is
 * core/usecases/gateway.ts.
 *
 * @module
 */

import { listenHttp } from "../listen.ts";
import type { Command } from "commander";
import { HeraldError } from "../../core/errors.ts";
import { DEFAULT_PROFILE } from "../../core/profiles/mod.ts";
import {
  GATEWAY_STOP_GRACE_MS,
  gatewayStatus,
  type GatewayStatusView,
} from "../../core/usecases/gateway.ts";
import { gatewayFiles } from "../../adapters/channels/gateway_files.ts";
import {
  enableCommands,
  installService,
  serviceManagerFor,
  servicePath,
} from "../../adapters/channels/gateway_service.ts";
import { heraldCommand } from "../../adapters/process/mod.ts";
import { importLazily } from "../../adapters/lazy.ts";
import type { CliContext } from "../context.ts";
import { EXIT } from "../errors.ts";
import { OutputClosedError, printJson } from "../io.ts";
import { displayPath } from "./_common.ts";

/** How long `start` waits for the gateway to say it started (ms). */
export const START_TIMEOUT_MS = 60_000;

/**
 * The gateway's process module (the runner, the platforms' contract, the
 * ledger), loaded only by the commands that run or signal a gateway.
 */
function gatewayProcess() {
  // Through a variable: Deno pre-loads the graph behind a literal dynamic import.
  return importLazily<typeof import("../../adapters/runtime/gateway_process.ts")>(
    "adapters/runtime/gateway_process.ts",
  );
}

/** `"work"` → ` of profile "work"`; nothing for the default profile. */
function ofProfile(profile: string): string {
  return profile === DEFAULT_PROFILE ? "" : ` of profile "${profile}"`;
}

/** ` -p work` when the profile is not the default. */
function profileOption(profile: string): string {
  return profile === DEFAULT_PROFILE ? "" : ` -p ${profile}`;
}

/** Seconds as `3d 4h`, `2h 5m`, `5m 3s`, `12s`. */
export function formatUptime(seconds: number): string {
  const s = Math.max(0, Math.floor(seconds));
  const days = Math.floor(s / 86_400), hours = Math.floor(s / 3600) % 24;
  const minutes = Math.floor(s / 60) % 60, rest = s % 60;
  if (days > 0) return `${days}d ${hours}h`;
  if (hours > 0) return `${hours}h ${minutes}m`;
  if (minutes > 0) return `${minutes}m ${rest}s`;
  return `${rest}s`;
}

/** The platform lines of a status, indented. */
function platformLines(view: GatewayStatusView): string {
  if (view.platforms.length === 0) return "";
  const width = Math.max(...view.platforms.map((p) => p.platform.length));
  return view.platforms.map((p) => {
    const line = `  ${p.platform.padEnd(width)}  ${p.state}${
      p.last_error ? `: ${p.last_error}` : ""
    }\n`;
    if (p.send_error === null) return line;
    const since = p.send_failing_since === null
      ? ""
      : ` for ${formatUptime((Date.now() - p.send_failing_since) / 1000)}`;
    return `${line}  ${" ".repeat(width)}  sending replies fails${since}: ${p.send_error} ` +
      "(they wait and are retried)\n";
  }).join("");
}

/** The human form of a status. */
function describeStatus(c: CliContext, view: GatewayStatusView, logPath: string): string {
  const who = `Gateway${ofProfile(view.profile)}`;
  if (view.state === "stopped") {
    const note = view.stale_pid_file ? " (stale pid file removed)" : "";
    const hint = `Start it with \`herald${profileOption(view.profile)} gateway start\`\n`;
    return `${who}: not running${note}\n${hint}`;
  }
  const up = view.uptime_seconds === null ? "" : `, up ${formatUptime(view.uptime_seconds)}`;
  const state = view.state === "running"
    ? "running"
    : view.state === "unresponsive"
    ? "not responding (its heartbeat is late)"
    : view.state;
  const platforms = view.platforms.length === 0
    ? "  no platform enabled (set platforms.<id>.enabled: true in config.yaml)\n"
    : platformLines(view);
  return `${who}: ${state} (pid ${view.pid}${up})\n${platforms}Log: ${displayPath(c, logPath)}\n`;
}

async function status(c: CliContext, json: boolean): Promise<void> {
  const paths = await c.paths();
  const files = gatewayFiles(paths.home);
  const view = await gatewayStatus(paths.name, files, { now: Date.now(), clean: true });
  if (json) return printJson(c.io, view);
  c.io.out(describeStatus(c, view, files.logPath));
}

async function start(c: CliContext): Promise<void> {
  const paths = await c.home();
  const files = gatewayFiles(paths.home);
  const { startGateway } = await gatewayProcess();
  const outcome = await startGateway({
    paths,
    root: c.root,
    env: c.env,
    command: heraldCommand(),
    timeoutMs: START_TIMEOUT_MS,
  });
  const who = `Gateway${ofProfile(paths.name)}`;
  const log = displayPath(c, files.logPath);
  switch (outcome.kind) {
    case "already_running":
      c.io.out(`${who} is already running (pid ${outcome.pid})\n`);
      return;
    case "started": {
      const view = await gatewayStatus(paths.name, files, { now: Date.now() });
      c.io.out(`${who} started (pid ${outcome.pid})\n${platformLines(view)}Log: ${log}\n`);
      return;
    }
    case "exited":
      if (outcome.log !== "") c.io.err(`${outcome.log}\n`);
      throw new HeraldError(
        "gateway_start_failed",
        "state",
        `${who} ended (exit code ${outcome.code}) before it started; its output is above and ` +
          `in ${log}`,
      );
    case "timeout":
      throw new HeraldError(
        "gateway_start_timeout",
        "unavailable",
        `${who} did not say it started within ${START_TIMEOUT_MS / 1000} s` +
          (outcome.pid === undefined ? "" : ` (pid ${outcome.pid})`) +
          `; it may still be starting: see \`herald${
            profileOption(paths.name)
          } gateway status\` and ${log}`,
      );
  }
}

async function stop(c: CliContext): Promise<void> {
  const paths = await c.paths();
  const { stopGateway } = await gatewayProcess();
  const outcome = await stopGateway(paths.home, { graceMs: GATEWAY_STOP_GRACE_MS });
  const who = `Gateway${ofProfile(paths.name)}`;
  switch (outcome.kind) {
    case "not_running":
      c.io.out(`${who}: not running\n`);
      return;
    case "stale":
      c.io.out(`${who}: not running (stale pid file removed)\n`);
      return;
    case "stopped":
      c.io.out(
        outcome.forced
          ? `${who} did not stop within ${
            GATEWAY_STOP_GRACE_MS / 1000
          } s and was killed (pid ${outcome.pid})\n`
          : `${who} stopped (pid ${outcome.pid})\n`,
      );
      return;
    case "still_running":
      throw new HeraldError(
        "gateway_stop_failed",
        "state",
        `${who} (pid ${outcome.pid}) is still running after SIGKILL; check it with ` +
          `\`ps -p ${outcome.pid}\``,
      );
  }
}

async function install(c: CliContext, force: boolean): Promise<void> {
  const manager = serviceManagerFor(Deno.build.os);
  if (!manager) {
    throw new HeraldError(
      "gateway_service_unsupported",
      "unavailable",
      `\`herald gateway install\` writes systemd (Linux) and launchd (macOS) services; on ` +
        `${Deno.build.os} run \`herald${profileOption(c.profile)} gateway run\` from your ` +
        "system's own service manager",
    );
  }
  const paths = await c.paths();
  const path = servicePath(manager, paths.name, c.env);
  const written = await installService(
    {
      manager,
      profile: paths.name,
      command: heraldCommand(),
      root: c.root,
      logPath: gatewayFiles(paths.home).logPath,
      userHome: c.env.HOME ?? "",
    },
    path,
    force,
  );
  c.io.out(`${written.replaced ? "Replaced" : "Wrote"} ${displayPath(c, written.path)}\n`);
  c.io.out("Enable and start it with:\n");
  for (const line of enableCommands(manager, paths.name, written.path)) c.io.out(`  ${line}\n`);
}

/** The signals that stop a foreground gateway on this system. */
function stopSignals(): Deno.Signal[] {
  return Deno.build.os === "windows" ? ["SIGINT", "SIGBREAK"] : ["SIGINT", "SIGTERM"];
}

async function run(c: CliContext): Promise<void> {
  const paths = await c.home();
  const { LAUNCH_ID_ENV, runGateway } = await gatewayProcess();
  const stop = new AbortController();
  let asked = 0;
  const onSignal = () => {
    asked++;
    if (asked === 1) {
      stop.abort();
      return;
    }
    c.io.err("herald: stopping the gateway at once\n");
    Deno.exit(EXIT.failure);
  };
  const signals = c.signals ? stopSignals() : [];
  for (const signal of signals) Deno.addSignalListener(signal, onSignal);
  // A log line never ends the gateway: a closed standard output only silences it.
  const write = (text: string, to: "out" | "err") => {
    try {
      c.io[to](text);
    } catch (error) {
      if (!(error instanceof OutputClosedError)) throw error;
    }
  };
  try {
    await runGateway({
      paths,
      root: c.root,
      env: c.env,
      cwd: Deno.cwd(),
      log: (line) => write(`${new Date().toISOString()} ${line}\n`, "out"),
      warn: (line) => write(`herald: warning: ${line}\n`, "err"),
      stop: stop.signal,
      listen: listenHttp,
      ...(c.env[LAUNCH_ID_ENV] ? { launchId: c.env[LAUNCH_ID_ENV] } : {}),
    });
  } finally {
    for (const signal of signals) Deno.removeSignalListener(signal, onSignal);
  }
}

/** Adds the `gateway` command family to `program`. */
export function registerGateway(program: Command, ctx: () => CliContext): void {
  const gateway = program.command("gateway").description(
    "the messaging gateway (Telegram, the API server, ...): run, start, stop, restart, status, install",
  );

  gateway.command("run", { isDefault: true })
    .description("run the gateway in the foreground until Ctrl-C (what the service runs)")
    .action(() => run(ctx()));

  gateway.command("start")
    .description("run the gateway in the background (output in the profile's logs/gateway.log)")
    .action(() => start(ctx()));

  gateway.command("stop")
    .description("stop the running gateway")
    .action(() => stop(ctx()));

  gateway.command("restart")
    .description("stop the running gateway, then start it again")
    .action(async () => {
      const c = ctx();
      await stop(c);
      await start(c);
    });

  gateway.command("status")
    .description("whether the gateway runs, and each platform's state and last error")
    .option("--json", "print JSON")
    .action((options: { json?: boolean }) => status(ctx(), options.json ?? false));

  gateway.command("install")
    .description("write a user service that runs the gateway (systemd; launchd on macOS)")
    .option("--force", "replace a service file that is already there")
    .action((options: { force?: boolean }) => install(ctx(), options.force ?? false));
}

/**
 * `herald dashboard`: serves the dashboard app. One process manages every
 * profile. A profile alias launch (`herald -p work dashboard`) attaches to a
 * machine dashboard already listening, or starts one; `--isolated` serves
 * one profile on its own.
 *
 * SIGINT or SIGTERM stops it within about a second, whatever is connected:
 * every WebSocket is closed with 1001 (running turns aborted, terminal
 * sessions killed as whole process groups), then the HTTP server shuts
 * down (idle keep-alive connections closed), each step with a bounded wait.
 *
 * @module
 */

import type { Command } from "commander";
import { HeraldError } from "../../core/errors.ts";
import { DEFAULT_PROFILE } from "../../core/profiles/mod.ts";
import { VERSION } from "../../core/version.ts";
import { heraldCommand } from "../../adapters/process/mod.ts";
import { createApp } from "../../server/app.ts";
import { newSessionToken } from "../../server/auth.ts";
import { isLoopbackHost, urlHost } from "../../server/origin.ts";
import type { ServerDeps } from "../../server/deps.ts";
import { LiveSockets, settlesWithin } from "../../server/ws/live.ts";
import type { CliContext } from "../context.ts";
import { EXIT } from "../errors.ts";

/** The port the dashboard listens on unless told otherwise. */
export const DEFAULT_DASHBOARD_PORT = 9219;

/** How long a stop waits for the WebSockets' work (turns, terminals) to end. */
const SOCKETS_STOP_WAIT_MS = 800;
/** How long a stop then waits for HTTP requests still running; they are cut off after it. */
const HTTP_STOP_WAIT_MS = 200;

interface DashboardOptions {
  isolated?: boolean;
  open: boolean;
  host: string;
  port: string;
  insecure?: boolean;
  tui?: boolean;
  shell?: boolean;
}

function parsePort(value: string): number {
  const port = Number(value);
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    throw new HeraldError(
      "usage",
      "usage",
      `--port must be a whole number from 0 to 65535, got "${value}"`,
    );
  }
  return port;
}

/** Asks `http://host:port/api/status` whether a Herald dashboard answers there. */
async function runningDashboard(
  host: string,
  port: number,
): Promise<{ version: string } | undefined> {
  try {
    const response = await fetch(`http://${urlHost(host)}:${port}/api/status`, {
      signal: AbortSignal.timeout(1500),
    });
    const body = await response.json().catch(() => undefined) as { version?: unknown } | undefined;
    return typeof body?.version === "string" ? { version: body.version } : undefined;
  } catch {
    return undefined;
  }
}

function openBrowser(url: string): void {
  const command = Deno.build.os === "darwin"
    ? "open"
    : Deno.build.os === "windows"
    ? "explorer"
    : "xdg-open";
  try {
    const child = new Deno.Command(command, {
      args: [url],
      stdin: "null",
      stdout: "null",
      stderr: "null",
    }).spawn();
    child.status.catch(() => {});
    child.unref();
  } catch {
    // No browser opener: the URL is printed anyway.
  }
}

/** Adds `dashboard` to `program`. */
export function registerDashboard(program: Command, ctx: () => CliContext): void {
  program.command("dashboard")
    .description("serve the local web dashboard and its API (default http://127.0.0.1:9219)")
    .option("--isolated", "serve only the selected profile, as its own server")
    .option("--no-open", "do not open a browser")
    .option("--host <host>", "address to listen on", "127.0.0.1")
    .option(
      "--port <port>",
      "port to listen on (0 picks a free one)",
      String(DEFAULT_DASHBOARD_PORT),
    )
    .option(
      "--insecure",
      "allow listening on a non-loopback address (anyone who can reach it needs only the token)",
    )
    .option("--tui", "the web terminal runs Herald's chat TUI (the default)")
    .option("--shell", "the web terminal runs your shell instead of Herald's chat TUI")
    .action(async (options: DashboardOptions) => {
      const c = ctx();
      if (options.tui && options.shell) {
        throw new HeraldError(
          "dashboard_terminal_mode",
          "usage",
          "Choose one thing for the web terminal: --tui (Herald's chat, the default) or --shell",
        );
      }
      const port = parsePort(options.port);
      const host = options.host.trim();
      if (!isLoopbackHost(host) && !options.insecure) {
        throw new HeraldError(
          "dashboard_public_bind",
          "usage",
          `Refusing to listen on "${host}": it is not a loopback address, so other machines could reach the dashboard. ` +
            "Keep the default 127.0.0.1, or add --insecure if you really mean it",
        );
      }
      const aliasLaunch = c.profile !== DEFAULT_PROFILE && !options.isolated;
      const displayHost = isLoopbackHost(host) ? "127.0.0.1" : host;
      if (aliasLaunch && port !== 0) {
        const running = await runningDashboard(displayHost, port);
        if (running) {
          const url = `http://${urlHost(displayHost)}:${port}/?profile=${
            encodeURIComponent(c.profile)
          }`;
          c.io.out(`Herald dashboard ${running.version} is already running: ${url}\n`);
          if (options.open) openBrowser(url);
          return;
        }
      }
      if (c.profile !== DEFAULT_PROFILE) await c.paths(); // an unknown profile fails before listening
      else await c.home();

      const token = c.env.HERALD_DASHBOARD_SESSION_TOKEN?.trim() || newSessionToken();
      const sockets = new LiveSockets();
      const deps: ServerDeps = {
        root: c.root,
        token,
        bind: { host, port },
        version: VERSION,
        startedAt: Date.now(),
        pinnedProfile: options.isolated ? c.profile : undefined,
        env: c.env,
        ptyMode: options.shell ? "shell" : "chat",
        cwd: Deno.cwd(),
        heraldCommand: heraldCommand(),
        sockets,
      };
      // Created before listening; with --port 0 the real port is filled in once known.
      const app = createApp(deps);
      let server: Deno.HttpServer<Deno.NetAddr>;
      const listening = Promise.withResolvers<Deno.NetAddr>();
      try {
        server = Deno.serve(
          {
            hostname: host,
            port,
            onListen: (addr) => listening.resolve(addr as Deno.NetAddr),
          },
          (request, info) => app.fetch(request, { info }),
        );
      } catch (error) {
        if (error instanceof Deno.errors.AddrInUse) {
          throw new HeraldError(
            "dashboard_port_in_use",
            "state",
            `Port ${port} on ${host} is already in use (another dashboard?); choose another with --port`,
          );
        }
        throw error;
      }
      // A stop: the WebSockets first (closed with 1001, their turns and
      // terminals ended), then the HTTP server; each waited for a bounded time.
      const stopRequested = Promise.withResolvers<void>();
      let stopped: Promise<boolean> | undefined;
      const stop = () => {
        stopRequested.resolve();
        stopped ??= (async () => {
          await sockets.closeAll(SOCKETS_STOP_WAIT_MS);
          return await settlesWithin(server.shutdown(), HTTP_STOP_WAIT_MS);
        })();
      };
      // Listened for before the URL is printed, so a signal right after it still stops cleanly.
      if (c.signals) {
        Deno.addSignalListener("SIGINT", stop);
        Deno.addSignalListener("SIGTERM", stop);
      }
      try {
        const address = await listening.promise;
        deps.bind.port = address.port;
        const base = `http://${urlHost(displayHost)}:${address.port}/`;
        const query = aliasLaunch ? `?profile=${encodeURIComponent(c.profile)}` : "";
        const url = isLoopbackHost(host) ? `${base}${query}` : `${base}${query}#token=${token}`;
        c.io.out(`Herald dashboard ${VERSION} listening on ${url}\n`);
        if (options.isolated) c.io.out(`Serving only profile "${c.profile}".\n`);
        if (!isLoopbackHost(host)) {
          c.io.err(
            "herald: warning: listening on a non-loopback address; the URL above carries the session token\n",
          );
        }
        if (options.open) openBrowser(url);

        await Promise.race([server.finished, stopRequested.promise]);
        if (stopped && !(await stopped)) {
          // HTTP requests still running after the bounded waits: a stop asked for is a stop.
          c.io.err("herald: stopped with requests still running; they were cut off\n");
          if (c.signals) Deno.exit(EXIT.ok);
        }
      } finally {
        if (c.signals) {
          Deno.removeSignalListener("SIGINT", stop);
          Deno.removeSignalListener("SIGTERM", stop);
        }
      }
    });
}

/**
 * What the dashboard server needs from the outside world. The CLI builds
 * this and calls `createApp` (server/app.ts); tests build their own.
 *
 * @module
 */

import type { EventBus } from "../core/events/mod.ts";
import type { LiveSockets } from "./ws/live.ts";

/** Where the server listens; decides CORS, the WebSocket origin guard and token injection. */
export interface BindAddress {
  host: string;
  port: number;
}

/** Dependencies of the dashboard app. */
export interface ServerDeps {
  /** The Herald root home (the default profile's home; named profiles under profiles/). */
  root: string;
  /** The per-process session token that gates /api and WebSockets. */
  token: string;
  bind: BindAddress;
  /** Herald's version, for /api/status. */
  version: string;
  /** Epoch ms the server started, for uptime. */
  startedAt: number;
  /**
   * A profile every request is pinned to (`--isolated`, or the default when
   * launched through a profile alias); absent for a machine dashboard.
   */
  pinnedProfile?: string;
  /** Process environment (credentials fallback, child processes). */
  env: Record<string, string | undefined>;
  /** Command that runs the `herald` CLI in child processes (update, restart, pty, MCP installs). */
  heraldCommand: readonly string[];
  /** What the web terminal (`/api/pty`) runs: `herald chat`, the TUI (default), or the user's shell (`--shell`). */
  ptyMode?: "chat" | "shell";
  /** Working directory for chat sessions and terminals (default: the server's). */
  cwd?: string;
  /** Clock, for tests. */
  now?: () => number;
  /**
   * Where the WebSocket routes register their open sockets, so a stopping
   * server can close them all (server/ws/live.ts); absent: not tracked.
   */
  sockets?: LiveSockets;
  /**
   * The process's event bus: the gateway's conversations publish to it and
   * `events.subscribe` watches it, so one client sees what another (later a
   * kanban worker or a cron run) started. Absent: the app makes its own.
   */
  events?: EventBus;
}

/** The deps every route family receives: {@link ServerDeps} with the app's one event bus filled in. */
export interface RouteDeps extends ServerDeps {
  events: EventBus;
}

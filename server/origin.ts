/**
 * Who may talk to the dashboard: loopback detection, the browser origins the
 * dashboard calls its own, CORS, the Host guard against DNS rebinding, and
 * the WebSocket origin guard.
 *
 * @module
 */

import type { BindAddress } from "./deps.ts";

const LOOPBACK_NAMES = new Set(["localhost", "127.0.0.1", "::1", "[::1]"]);

/** True for a loopback host name or address (127.0.0.0/8, ::1, localhost). */
export function isLoopbackHost(host: string): boolean {
  const name = host.toLowerCase().replace(/^\[(.*)\]$/, "$1");
  return LOOPBACK_NAMES.has(name) || /^127(\.\d{1,3}){3}$/.test(name) || name === "::1";
}

/**
 * `host` as it goes in a URL: an IPv6 address in brackets (`::1` is
 * `[::1]`), anything else (a name, an IPv4 address, an already bracketed
 * address) as it is.
 */
export function urlHost(host: string): string {
  return host.includes(":") && !host.startsWith("[") ? `[${host}]` : host;
}

/** The origins last computed for each bind, with the host and port they were computed for. */
const originsOfBind = new WeakMap<
  BindAddress,
  { host: string; port: number; origins: readonly string[] }
>();

/**
 * The http origins the dashboard itself is served from. Computed once per
 * bind host and port (the port is filled in after the app is created when
 * the dashboard listens on port 0).
 */
export function dashboardOrigins(bind: BindAddress): readonly string[] {
  const { host, port } = bind;
  const cached = originsOfBind.get(bind);
  if (cached?.host === host && cached.port === port) return cached.origins;
  const names = isLoopbackHost(host) || host === "0.0.0.0" || host === "::"
    ? ["127.0.0.1", "localhost", "[::1]"]
    : [urlHost(host)];
  const origins = names.map((name) => `http://${name}:${port}`);
  originsOfBind.set(bind, { host, port, origins });
  return origins;
}

/** The value of Access-Control-Allow-Origin for a request's Origin, or null to send none. */
export function corsOrigin(origin: string | undefined, bind: BindAddress): string | null {
  if (origin === undefined) return null;
  if (origin === "null") return "null";
  return dashboardOrigins(bind).includes(origin) ? origin : null;
}

/** A Host header split into its name and port. */
export interface HostHeader {
  /** The host name or address, lower-cased; IPv6 addresses keep their brackets. */
  name: string;
  port?: number;
}

const HOST_NAME = /^(?:\[[0-9a-f:.]+\]|[a-z0-9](?:[a-z0-9.-]*[a-z0-9])?)$/;

/**
 * Parses a Host header exactly: a name (a DNS name, an IPv4 address or a
 * bracketed IPv6 address) and an optional decimal port from 1 to 65535.
 * Anything else (`localhost:evil.example`, `a b`, `::1` without brackets)
 * is undefined.
 *
 * @example
 * ```ts
 * parseHostHeader("[::1]:9219"); // { name: "[::1]", port: 9219 }
 * parseHostHeader("localhost:evil.example"); // undefined
 * ```
 */
export function parseHostHeader(value: string): HostHeader | undefined {
  const match = /^(\[[^\]]*\]|[^:\[\]]*)(?::(\d{1,5}))?$/.exec(value.toLowerCase());
  if (!match) return undefined;
  const [, name, portText] = match;
  if (!HOST_NAME.test(name)) return undefined;
  if (portText === undefined) return { name };
  const port = Number(portText);
  return port >= 1 && port <= 65535 ? { name, port } : undefined;
}

/**
 * The Host-header guard. Every bind needs a well-formed Host; on a loopback
 * bind it must also name a loopback host, so a rebound DNS name cannot reach
 * the dashboard (or the token in its page).
 */
export function hostAllowed(hostHeader: string | undefined, bind: BindAddress): boolean {
  if (hostHeader === undefined || hostHeader === "") return false;
  const host = parseHostHeader(hostHeader);
  if (host === undefined) return false;
  return isLoopbackHost(bind.host) ? isLoopbackHost(host.name) : true;
}

/** True for origins a web page has (http and https); everything else is a non-web origin. */
export function isWebOrigin(origin: string): boolean {
  return /^https?:\/\//i.test(origin);
}

/**
 * The WebSocket origin guard. On loopback binds non-web origins (file, null,
 * app schemes, or none) are trusted, because the token still authenticates;
 * cross-site http(s) origins are rejected on every bind; public binds also
 * reject non-web origins. The page's own origin (`http://` plus the Host the
 * request was sent to) is accepted on public binds too, so the dashboard
 * works from another machine whatever address it was reached by.
 */
export function webSocketOriginAllowed(
  origin: string | undefined,
  bind: BindAddress,
  hostHeader?: string,
): boolean {
  if (origin === undefined || origin === "" || !isWebOrigin(origin)) {
    return isLoopbackHost(bind.host);
  }
  const wanted = origin.toLowerCase();
  if (dashboardOrigins(bind).includes(wanted)) return true;
  if (isLoopbackHost(bind.host) || hostHeader === undefined) return false;
  return wanted === `http://${hostHeader.toLowerCase()}`;
}

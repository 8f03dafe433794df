/**
 * Desktop remote attach: a desktop shell (or the CLI) attaches to a
 * dashboard running elsewhere when `HERALD_DESKTOP_REMOTE_URL` and
 * `HERALD_DESKTOP_REMOTE_TOKEN` are both set. Resolution is pure; the
 * liveness probe takes the caller's `fetch`.
 *
 * @module
 */

/** A usable remote dashboard. */
export interface RemoteDashboard {
  /** Base URL without a trailing slash, e.g. `https://box.example:9219`. */
  baseUrl: string;
  /** The JSON-RPC WebSocket URL (ws or wss, following the base URL's scheme), without the token. */
  webSocketUrl: string;
  /** The liveness probe URL (`/api/status`). */
  statusUrl: string;
  token: string;
}

/** The outcome of resolving the remote-attach settings. */
export type RemoteResolution =
  | { ok: true; configured: true; remote: RemoteDashboard }
  | { ok: true; configured: false }
  | { ok: false; code: "remote_incomplete" | "remote_bad_url"; message: string };

/** Reads `HERALD_DESKTOP_REMOTE_URL` and `HERALD_DESKTOP_REMOTE_TOKEN` from `env`. */
export function resolveRemoteDashboard(env: Record<string, string | undefined>): RemoteResolution {
  const url = env.HERALD_DESKTOP_REMOTE_URL?.trim() ?? "";
  const token = env.HERALD_DESKTOP_REMOTE_TOKEN?.trim() ?? "";
  if (url === "" && token === "") return { ok: true, configured: false };
  if (url === "" || token === "") {
    const missing = url === "" ? "HERALD_DESKTOP_REMOTE_URL" : "HERALD_DESKTOP_REMOTE_TOKEN";
    return {
      ok: false,
      code: "remote_incomplete",
      message:
        `${missing} is not set: HERALD_DESKTOP_REMOTE_URL and HERALD_DESKTOP_REMOTE_TOKEN must be set together`,
    };
  }
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return {
      ok: false,
      code: "remote_bad_url",
      message: `HERALD_DESKTOP_REMOTE_URL "${url}" is not a URL`,
    };
  }
  if (parsed.protocol !== "http:" && parsed.protocol !== "https:") {
    return {
      ok: false,
      code: "remote_bad_url",
      message: `HERALD_DESKTOP_REMOTE_URL must be http or https, not "${
        parsed.protocol.replace(/:$/, "")
      }"`,
    };
  }
  if (parsed.username || parsed.password || parsed.search || parsed.hash) {
    return {
      ok: false,
      code: "remote_bad_url",
      message:
        "HERALD_DESKTOP_REMOTE_URL must not carry credentials, a query or a fragment; put the token in HERALD_DESKTOP_REMOTE_TOKEN",
    };
  }
  const baseUrl = `${parsed.protocol}//${parsed.host}${parsed.pathname.replace(/\/+$/, "")}`;
  const wsScheme = parsed.protocol === "https:" ? "wss:" : "ws:";
  return {
    ok: true,
    configured: true,
    remote: {
      baseUrl,
      webSocketUrl: `${wsScheme}//${parsed.host}${parsed.pathname.replace(/\/+$/, "")}/api/ws`,
      statusUrl: `${baseUrl}/api/status`,
      token,
    },
  };
}

/** The result of probing a remote dashboard's `/api/status`. */
export type ProbeResult =
  | { alive: true; version: string }
  | { alive: false; reason: string };

/** Probes `/api/status` with the given `fetch`, giving up after `timeoutMs`. */
export async function probeRemoteDashboard(
  remote: RemoteDashboard,
  fetcher: typeof fetch,
  timeoutMs = 5000,
): Promise<ProbeResult> {
  try {
    const response = await fetcher(remote.statusUrl, {
      headers: { "X-Herald-Session-Token": remote.token, Accept: "application/json" },
      signal: AbortSignal.timeout(timeoutMs),
    });
    if (!response.ok) {
      await response.body?.cancel();
      return { alive: false, reason: `${remote.statusUrl} answered HTTP ${response.status}` };
    }
    const body = await response.json().catch(() => undefined) as { version?: unknown } | undefined;
    if (typeof body?.version !== "string") {
      return { alive: false, reason: `${remote.statusUrl} did not answer like a Herald dashboard` };
    }
    return { alive: true, version: body.version };
  } catch (error) {
    const reason = (error as Error).name === "TimeoutError"
      ? `no answer from ${remote.statusUrl} within ${timeoutMs} ms`
      : `${remote.statusUrl}: ${(error as Error).message}`;
    return { alive: false, reason };
  }
}

/**
 * `GET /api/status`: the public liveness probe.
 *
 * @module
 */

import type { Hono } from "hono";
import { listProfileNames } from "../../core/usecases/profiles.ts";
import { gatewayStatus } from "../../core/usecases/gateway.ts";
import { DEFAULT_PROFILE } from "../../core/profiles/mod.ts";
import { openProfileHome, profilePaths, readActiveProfileSync } from "../../adapters/home/mod.ts";
import { gatewayFiles } from "../../adapters/channels/gateway_files.ts";
import type { ServerDeps } from "../deps.ts";

/** How long a status answer may be reused, in milliseconds. */
const STATUS_TTL_MS = 1000;

/** Registers the status route. */
export function registerStatusRoutes(app: Hono, deps: ServerDeps): void {
  // The status probe is polled often (liveness checks, the page, desktop
  // shells), so its answer is built at most once per second: reading the
  // profiles folder on every call would cost most of its time.
  let cached: { at: number; body: Promise<string>; text?: string } | undefined;
  const home = openProfileHome(deps.root, deps.env);
  // The gateway of the pinned profile, else of the active one (`herald profile use`).
  const gateway = async (now: number) => {
    let profile = deps.pinnedProfile;
    try {
      profile ??= readActiveProfileSync(deps.root);
    } catch {
      // An unreadable active_profile: the CLI says so; the probe shows the default profile.
    }
    profile ??= DEFAULT_PROFILE;
    const { home } = profilePaths(deps.root, profile);
    const status = await gatewayStatus(profile, gatewayFiles(home), { now });
    // The probe needs no token: it says whether the gateway and each platform run, not the
    // process's pid, its counts or the platforms' error texts (`herald gateway status` has those).
    return {
      profile: status.profile,
      running: status.running,
      state: status.state,
      platforms: status.platforms.map(({ platform, label, state }) => ({ platform, label, state })),
    };
  };
  const build = async (now: number): Promise<string> =>
    JSON.stringify({
      ok: true,
      version: deps.version,
      uptime_seconds: Math.round((now - deps.startedAt) / 1000),
      home: deps.root,
      pinned_profile: deps.pinnedProfile ?? null,
      profiles: deps.pinnedProfile ? [deps.pinnedProfile] : await listProfileNames(home),
      gateway: await gateway(now),
      auth: { token_required: true, header: "X-Herald-Session-Token" },
    });
  app.get("/api/status", async (c) => {
    const now = (deps.now ?? Date.now)();
    if (!cached || now - cached.at >= STATUS_TTL_MS || now < cached.at) {
      const entry: NonNullable<typeof cached> = { at: now, body: build(now) };
      entry.body.then((text) => (entry.text = text), () => {
        if (cached === entry) cached = undefined;
      });
      cached = entry;
    }
    return c.body(cached.text ?? await cached.body, 200, { "Content-Type": "application/json" });
  });
}

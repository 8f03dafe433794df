/**
 * `GET /api/status`: the public liveness probe.
 *
 * @module
 */

import type { Hono } from "hono";
import { listProfiles } from "../../adapters/home/mod.ts";
import type { ServerDeps } from "../deps.ts";

/** How long the profile list in the status answer may be reused, in milliseconds. */
const PROFILES_TTL_MS = 1000;

/** Registers the status route. */
export function registerStatusRoutes(app: Hono, deps: ServerDeps): void {
  // The status probe is polled often (liveness checks, the page); reading the
  // profiles folder on every call would cost most of its time.
  let profiles: { at: number; names: Promise<string[]> } | undefined;
  const profileNames = (now: number) => {
    if (deps.pinnedProfile) return Promise.resolve([deps.pinnedProfile]);
    if (!profiles || now - profiles.at > PROFILES_TTL_MS) {
      profiles = { at: now, names: listProfiles(deps.root) };
      profiles.names.catch(() => (profiles = undefined));
    }
    return profiles.names;
  };
  app.get("/api/status", async (c) => {
    const now = (deps.now ?? Date.now)();
    return c.json({
      ok: true,
      version: deps.version,
      uptime_seconds: Math.round((now - deps.startedAt) / 1000),
      home: deps.root,
      pinned_profile: deps.pinnedProfile ?? null,
      profiles: await profileNames(now),
      gateway: { running: false, state: "stopped", platforms: [] },
      auth: { token_required: true, header: "X-Herald-Session-Token" },
    });
  });
}

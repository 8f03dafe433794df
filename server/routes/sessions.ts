/**
 * `/api/sessions`: the profile's stored sessions: list (sessions the model
 * never answered only with `?all=true`), full-text search
 * (the same search as the agent's `session_search` tool, without its size
 * cap), one session, its messages page by page (or around one message),
 * its export (`herald.session.v1`, as `herald sessions export` prints it), a
 * new title (`PATCH`), and delete (rows, transcript and request dumps).
 * The work is core's (core/usecases/sessions.ts); a profile without a state
 * database simply has no sessions yet.
 *
 * @module
 */

import type { Context, Hono } from "hono";
import { z } from "zod";
import {
  deleteSession,
  exportSession,
  listSessions,
  renameSession,
  searchStoredSessions,
  sessionMessagesPage,
  sessionSummary,
} from "../../core/usecases/sessions.ts";
import type { ServerDeps } from "../deps.ts";
import { scopedBody, scopedContext, scopedWrite } from "../profile_scope.ts";
import { ApiError } from "../errors.ts";
import { intQuery } from "../_input.ts";

/** `PATCH /api/sessions/:id`: the new title (and optionally the profile). */
const PatchBody = z.looseObject({ title: z.string() });

/** A yes/no query parameter (`1`, `true`, `0`, `false`), false when absent. */
function flagQuery(c: Context, name: string): boolean {
  const raw = c.req.query(name)?.trim().toLowerCase();
  if (raw === undefined || raw === "" || raw === "0" || raw === "false") return false;
  if (raw === "1" || raw === "true") return true;
  throw new ApiError(400, "bad_request", `?${name} must be true or false; got "${raw}"`);
}

/** The file name an exported session is saved as: `herald-<id>.json`, safe in a header. */
function exportFileName(id: string): string {
  return `herald-${id.replace(/[^A-Za-z0-9_.-]/g, "_")}.json`;
}

/** Registers the sessions routes. */
export function registerSessionsRoutes(app: Hono, deps: ServerDeps): void {
  app.get("/api/sessions", async (c) => {
    const profile = await scopedContext(c, deps);
    const limit = intQuery(c, "limit", 20, { min: 1, max: 200 });
    const offset = intQuery(c, "offset", 0, { min: 0, max: Number.MAX_SAFE_INTEGER });
    const source = c.req.query("source")?.trim() || undefined;
    // Sessions the model never answered are left out unless ?all=true.
    const all = flagQuery(c, "all");
    const sessions = await listSessions(profile, { limit, offset, source, all });
    return c.json({ profile: profile.name, limit, offset, source: source ?? null, all, sessions });
  });

  app.get("/api/sessions/search", async (c) => {
    const profile = await scopedContext(c, deps);
    const result = await searchStoredSessions(profile, {
      query: c.req.query("q") ?? "",
      limit: intQuery(c, "limit", 3, { min: 1, max: 10 }),
      role: c.req.query("role")?.trim() || undefined,
      sort: c.req.query("sort"),
      detail: c.req.query("detail"),
      includeInternal: flagQuery(c, "include_internal"),
    });
    return c.json({ profile: profile.name, ...result });
  });

  app.get("/api/sessions/:id", async (c) => {
    const profile = await scopedContext(c, deps);
    const session = await sessionSummary(profile, c.req.param("id"));
    return c.json({ profile: profile.name, session });
  });

  app.get("/api/sessions/:id/messages", async (c) => {
    const profile = await scopedContext(c, deps);
    const id = c.req.param("id");
    const limit = intQuery(c, "limit", 100, { min: 1, max: 500 });
    const offset = intQuery(c, "offset", 0, { min: 0, max: Number.MAX_SAFE_INTEGER });
    const around = intQuery(c, "around", 0, { min: 1, max: Number.MAX_SAFE_INTEGER }) ||
      undefined;
    const page = await sessionMessagesPage(profile, id, {
      limit,
      offset,
      order: c.req.query("order"),
      around,
    });
    return c.json({
      profile: profile.name,
      session_id: id,
      limit,
      offset,
      around: around ?? null,
      ...page,
    });
  });

  app.get("/api/sessions/:id/export", async (c) => {
    const profile = await scopedContext(c, deps);
    const id = c.req.param("id");
    const exported = await exportSession(profile, id);
    // The same text `herald sessions export <id>` prints, as a file to save.
    return c.body(JSON.stringify(exported, null, 2) + "\n", 200, {
      "Content-Type": "application/json; charset=utf-8",
      "Content-Disposition": `attachment; filename="${exportFileName(id)}"`,
    });
  });

  app.patch("/api/sessions/:id", async (c) => {
    const { profile, body } = await scopedBody(c, deps, PatchBody);
    const session = await renameSession(profile, c.req.param("id"), body.title);
    return c.json({ profile: profile.name, session });
  });

  app.delete("/api/sessions/:id", async (c) => {
    const profile = await scopedWrite(c, deps);
    const deleted = await deleteSession(profile, c.req.param("id"));
    return c.json({ ok: true, profile: profile.name, ...deleted });
  });
}

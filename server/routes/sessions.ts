/**
 * `/api/sessions`: the profile's stored sessions: list, full-text search
 * (the same search as the agent's `session_search` tool), one session, its
 * messages page by page, and delete (rows, transcript and request dumps).
 * A profile without a state database simply has no sessions yet.
 *
 * @module
 */

import type { Context, Hono } from "hono";
import { searchSessions } from "../../core/sessions/search.ts";
import type { SessionRecord, SessionStore } from "../../core/sessions/store.ts";
import { messageView, sessionView } from "../../core/sessions/views.ts";
import { ToolError } from "../../core/tools/types.ts";
import { type ProfilePaths, profileSessionFiles } from "../../adapters/home/mod.ts";
import { openStateStore } from "../../adapters/sqlite/mod.ts";
import type { ServerDeps } from "../deps.ts";
import { ApiError } from "../errors.ts";
import { scopedProfile } from "../profile_scope.ts";
import { intQuery, optionalJsonBody } from "../_input.ts";

async function exists(path: string): Promise<boolean> {
  try {
    return (await Deno.stat(path)).isFile;
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return false;
    throw error;
  }
}

/** Runs `work` with the profile's store, or with none when the database does not exist yet. */
async function withStore<T>(
  paths: ProfilePaths,
  work: (store: SessionStore | undefined) => Promise<T> | T,
): Promise<T> {
  if (!(await exists(paths.stateDb))) return await work(undefined);
  const store = openStateStore(paths.stateDb);
  try {
    return await work(store);
  } finally {
    store.close();
  }
}

function notFound(id: string): ApiError {
  return new ApiError(404, "session_not_found", `Session "${id}" not found`);
}

function requireSession(store: SessionStore | undefined, id: string): SessionRecord {
  const session = store?.getSession(id);
  if (!store || !session) throw notFound(id);
  return session;
}

function sortOf(c: Context): "relevance" | "newest" | "oldest" | undefined {
  const sort = c.req.query("sort");
  if (sort === undefined || sort === "") return undefined;
  if (sort === "relevance" || sort === "newest" || sort === "oldest") return sort;
  throw new ApiError(
    400,
    "bad_request",
    `?sort must be relevance, newest or oldest; got "${sort}"`,
  );
}

/** Registers the sessions routes. */
export function registerSessionsRoutes(app: Hono, deps: ServerDeps): void {
  app.get("/api/sessions", async (c) => {
    const paths = await scopedProfile(c, deps);
    const limit = intQuery(c, "limit", 20, { min: 1, max: 200 });
    const offset = intQuery(c, "offset", 0, { min: 0, max: Number.MAX_SAFE_INTEGER });
    const source = c.req.query("source")?.trim() || undefined;
    const sessions = await withStore(
      paths,
      (store) =>
        store
          ? store.listSessions({ limit, offset, source }).map((s) => sessionView(s, store))
          : [],
    );
    return c.json({ profile: paths.name, limit, offset, source: source ?? null, sessions });
  });

  app.get("/api/sessions/search", async (c) => {
    const paths = await scopedProfile(c, deps);
    const query = c.req.query("q")?.trim();
    if (!query) throw new ApiError(400, "bad_request", "?q (the words to find) is required");
    const limit = intQuery(c, "limit", 3, { min: 1, max: 10 });
    const role = c.req.query("role")?.trim() || undefined;
    const sort = sortOf(c);
    const result = await withStore(paths, (store) => {
      if (!store) return { shape: "discovery" as const, query, count: 0, results: [] };
      try {
        return searchSessions(store, { query, limit, role_filter: role, sort });
      } catch (error) {
        if (error instanceof ToolError) throw new ApiError(400, error.code, error.message);
        throw error;
      }
    });
    return c.json({ profile: paths.name, ...result });
  });

  app.get("/api/sessions/:id", async (c) => {
    const paths = await scopedProfile(c, deps);
    const id = c.req.param("id");
    const session = await withStore(
      paths,
      (store) => sessionView(requireSession(store, id), store!),
    );
    return c.json({ profile: paths.name, session });
  });

  app.get("/api/sessions/:id/messages", async (c) => {
    const paths = await scopedProfile(c, deps);
    const id = c.req.param("id");
    const limit = intQuery(c, "limit", 100, { min: 1, max: 500 });
    const offset = intQuery(c, "offset", 0, { min: 0, max: Number.MAX_SAFE_INTEGER });
    const order = c.req.query("order") ?? "oldest";
    if (order !== "oldest" && order !== "latest") {
      throw new ApiError(400, "bad_request", `?order must be oldest or latest; got "${order}"`);
    }
    const page = await withStore(paths, (store) => {
      requireSession(store, id);
      const all = store!.getMessages(id);
      // `latest` counts the offset back from the newest message; pages stay in time order.
      const end = order === "latest" ? Math.max(0, all.length - offset) : undefined;
      const start = order === "latest" ? Math.max(0, end! - limit) : offset;
      return {
        total: all.length,
        messages: all.slice(start, end ?? start + limit).map(messageView),
      };
    });
    return c.json({ profile: paths.name, session_id: id, limit, offset, order, ...page });
  });

  app.delete("/api/sessions/:id", async (c) => {
    const body = await optionalJsonBody(c);
    const paths = await scopedProfile(c, deps, body);
    const id = c.req.param("id");
    const files = await withStore(paths, async (store) => {
      requireSession(store, id);
      store!.deleteSession(id);
      return await profileSessionFiles(paths).deleteSessionFiles(id);
    });
    return c.json({ ok: true, profile: paths.name, deleted: id, files });
  });
}

/**
 * Background actions: `POST /api/herald/update` (pinned to the checkout's
 * current branch: `herald update --branch <b>`, or a bare `herald update`
 * when HEAD is detached), `POST /api/gateway/restart`, and
 * `GET /api/actions/:id` for status and an output tail. A request made
 * while an action of the same kind is live returns that action with
 * `reused: true`.
 *
 * Environment overrides (JSON arrays of strings), for tests and packagers:
 * `HERALD_UPDATE_COMMAND` replaces `herald update --yes` (the `--branch` arguments
 * are still appended), `HERALD_GATEWAY_RESTART_COMMAND` replaces
 * `herald gateway restart`; `HERALD_CHECKOUT` names the checkout whose
 * branch an update follows (default: the checkout this server runs from; a
 * compiled binary has none, so its update runs without `--branch`).
 *
 * @module
 */

import type { Hono } from "hono";
import type { ServerDeps } from "../deps.ts";
import { ApiError } from "../errors.ts";
import { isDirectory } from "../../adapters/fs/mod.ts";
import { heraldCheckout } from "../../adapters/process/mod.ts";
import { type ActionKind, ActionRunner } from "../action_runner.ts";
import { checkoutHead } from "../_git.ts";
import { childEnv, commandFromEnv } from "../_cli.ts";
import { intQuery, jsonBody } from "../_input.ts";

const KINDS: readonly ActionKind[] = ["herald-update", "gateway-restart"];

/** Registers the actions routes. */
export function registerActionsRoutes(app: Hono, deps: ServerDeps): void {
  const runner = new ActionRunner(deps.now ?? Date.now);

  app.post("/api/herald/update", async (c) => {
    await jsonBody(c, { optional: true });
    // --yes: nobody is at a terminal to confirm; the update still refuses what is unsafe.
    const base = commandFromEnv(deps, "HERALD_UPDATE_COMMAND", [
      ...deps.heraldCommand,
      "update",
      "--yes",
    ]);
    const checkout = deps.env.HERALD_CHECKOUT?.trim() || heraldCheckout();
    const started = runner.start("herald-update", async () => {
      const head = checkout
        ? await checkoutHead(checkout)
        : { kind: "none" as const, reason: "this build is not a Git checkout" };
      const branch = head.kind === "branch" ? head.branch : null;
      return {
        command: branch ? [...base, "--branch", branch] : base,
        env: childEnv(deps),
        cwd: checkout && await isDirectory(checkout) ? checkout : deps.root,
        details: {
          checkout: checkout ?? null,
          branch,
          head: head.kind,
          ...(head.kind === "none" ? { note: head.reason } : {}),
        },
      };
    });
    return c.json({ ok: true, reused: started.reused, action: runner.get(started.id) }, 202);
  });

  app.post("/api/gateway/restart", async (c) => {
    await jsonBody(c, { optional: true });
    const command = commandFromEnv(deps, "HERALD_GATEWAY_RESTART_COMMAND", [
      ...deps.heraldCommand,
      "gateway",
      "restart",
    ]);
    const started = runner.start(
      "gateway-restart",
      () => Promise.resolve({ command, env: childEnv(deps), cwd: deps.root }),
    );
    return c.json({ ok: true, reused: started.reused, action: runner.get(started.id) }, 202);
  });

  app.get("/api/actions", (c) => {
    return c.json({ actions: runner.list() });
  });

  app.get("/api/actions/:id", (c) => {
    const id = c.req.param("id");
    const lines = intQuery(c, "lines", 200, { min: 1, max: 2000 });
    // A kind name stands for the latest action of that kind.
    const action = KINDS.includes(id as ActionKind)
      ? runner.list(lines).find((view) => view.kind === id)
      : runner.get(id, lines);
    if (!action) throw new ApiError(404, "action_not_found", `No action "${id}"`);
    return c.json({ action });
  });
}

/**
 * `/api/env`: the profile's `.env` secrets. Listing shows names and a
 * redacted preview, never a value; `POST /api/env/reveal` is the one place
 * a value is returned. The work is core's (core/usecases/env.ts).
 *
 * @module
 */

import type { Context, Hono } from "hono";
import { z } from "zod";
import { parseInput } from "../../core/validation.ts";
import { deleteEnv, listEnv, revealEnv, setEnv } from "../../core/usecases/env.ts";
import type { ServerDeps } from "../deps.ts";
import { scopedBody, scopedContext } from "../profile_scope.ts";
import { absentAsUndefined, requiredString } from "../_input.ts";

const KEY_REQUIRED = '"key" (the variable name) is required';

const envKey = requiredString("key", { message: KEY_REQUIRED });

/** `PUT /api/env`: one variable and its value. */
const EnvSetBody = z.looseObject({
  key: envKey,
  value: z.string({ error: '"value" is required (to remove a variable, send DELETE /api/env)' })
    .refine(
      (value) => value !== "",
      '"value" is required (to remove a variable, send DELETE /api/env)',
    ),
});

/** `POST /api/env/reveal`: the variable to reveal. */
const EnvKeyBody = z.looseObject({ key: envKey });

/** `DELETE /api/env`: the variable, in the body or as `?key=`. */
const EnvDeleteBody = z.looseObject({ key: absentAsUndefined(z.string()) });

/** Registers the env routes. */
export function registerEnvRoutes(app: Hono, deps: ServerDeps): void {
  app.get("/api/env", async (c) => {
    return c.json(await listEnv(await scopedContext(c, deps)));
  });

  app.put("/api/env", async (c) => {
    const { profile, body } = await scopedBody(c, deps, EnvSetBody);
    return c.json({ ok: true, ...await setEnv(profile, body.key, body.value) });
  });

  const remove = async (c: Context) => {
    const { profile, body } = await scopedBody(c, deps, EnvDeleteBody, { optional: true });
    const { key } = parseInput(EnvKeyBody, { key: body.key ?? c.req.query("key") }, "The request");
    return c.json({ ok: true, ...await deleteEnv(profile, key) });
  };
  app.delete("/api/env", remove);

  app.post("/api/env/reveal", async (c) => {
    const { profile, body } = await scopedBody(c, deps, EnvKeyBody);
    c.header("Cache-Control", "no-store");
    return c.json(await revealEnv(profile, body.key));
  });
}

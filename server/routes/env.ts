/**
 * `/api/env`: the profile's `.env` secrets. Listing shows names and a
 * redacted preview, never a value; `POST /api/env/reveal` is the one place
 * a value is returned. Writes are atomic and leave the file at 0600.
 *
 * @module
 */

import type { Context, Hono } from "hono";
import { redact } from "../../core/config/mod.ts";
import { ensureProfileHome, readEnvFile, writeEnvValue } from "../../adapters/home/mod.ts";
import type { ServerDeps } from "../deps.ts";
import { ApiError } from "../errors.ts";
import { scopedProfile } from "../profile_scope.ts";
import { jsonBody, optionalJsonBody, stringField } from "../_input.ts";
import { removeEnvVariables } from "../_profile_io.ts";
import { envUsage } from "../_env_usage.ts";

const ENV_KEY = /^[A-Za-z_][A-Za-z0-9_]*$/;

function envKey(value: string | undefined): string {
  if (value === undefined || value.trim() === "") {
    throw new ApiError(400, "bad_request", '"key" (the variable name) is required');
  }
  const key = value.trim();
  if (!ENV_KEY.test(key) || key.length > 128) {
    throw new ApiError(
      400,
      "env_key_invalid",
      `"${key.slice(0, 128)}" is not an environment variable name: use letters, digits and "_", ` +
        "not starting with a digit",
    );
  }
  return key;
}

function notSet(key: string, file: string): ApiError {
  return new ApiError(404, "env_not_set", `${key} is not set in ${file}`);
}

/** Registers the env routes. */
export function registerEnvRoutes(app: Hono, deps: ServerDeps): void {
  app.get("/api/env", async (c) => {
    const paths = await scopedProfile(c, deps);
    const parsed = await readEnvFile(paths.env);
    const variables = [...parsed.values.entries()]
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([name, value]) => ({
        name,
        set: true,
        preview: redact(value),
        used_by: envUsage(name),
      }));
    return c.json({ profile: paths.name, file: paths.env, variables, warnings: parsed.warnings });
  });

  app.put("/api/env", async (c) => {
    const body = await jsonBody(c);
    const paths = await scopedProfile(c, deps, body);
    const key = envKey(stringField(body, "key"));
    const value = stringField(body, "value");
    if (value === undefined || value === "") {
      throw new ApiError(
        400,
        "bad_request",
        '"value" is required (to remove a variable, send DELETE /api/env)',
      );
    }
    await ensureProfileHome(paths);
    await writeEnvValue(paths.env, key, value);
    return c.json({ ok: true, profile: paths.name, key, set: true, preview: redact(value) });
  });

  const remove = async (c: Context) => {
    const body = await optionalJsonBody(c);
    const paths = await scopedProfile(c, deps, body);
    const key = envKey(stringField(body, "key") ?? c.req.query("key"));
    const removed = await removeEnvVariables(paths, [key]);
    if (removed.length === 0) throw notSet(key, paths.env);
    return c.json({ ok: true, profile: paths.name, key, set: false });
  };
  app.delete("/api/env", remove);

  app.post("/api/env/reveal", async (c) => {
    const body = await jsonBody(c);
    const paths = await scopedProfile(c, deps, body);
    const key = envKey(stringField(body, "key"));
    const value = (await readEnvFile(paths.env)).values.get(key);
    if (value === undefined) throw notSet(key, paths.env);
    c.header("Cache-Control", "no-store");
    return c.json({ profile: paths.name, key, value });
  });
}

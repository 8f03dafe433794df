/**
 * `/api/config`: the profile's effective configuration (defaults filled in,
 * secrets redacted), edits by dotted key or by a partial config object
 * (validated like `herald config set`, comments kept, secrets to `.env`),
 * the raw file text with its version, and the schema as JSON Schema (for
 * the dashboard's generated form; the same for every profile, but an
 * unknown `?profile` is a 404 there too). The work is core's
 * (core/usecases/config.ts); a whole-file save that names an old version is
 * refused with 409 `config_changed`.
 *
 * @module
 */

import type { Hono } from "hono";
import { z } from "zod";
import { type ConfigEdit, configJsonSchema, configValueFromJson } from "../../core/config/mod.ts";
import {
  editConfigObject,
  readRawConfig,
  saveRawConfig,
  showConfig,
} from "../../core/usecases/config.ts";
import type { ServerDeps } from "../deps.ts";
import { scopedBody, scopedContext, scopedProfile } from "../profile_scope.ts";
import { absentAsUndefined, jsonObjectField, requiredString } from "../_input.ts";

const EDIT_HINT =
  'Send {"config": {...}} (a partial configuration) or {"set": {"dotted.key": value}}';

/** `PUT /api/config`: a partial configuration, dotted-key edits, or both. */
const ConfigEditBody = z.looseObject({
  config: absentAsUndefined(jsonObjectField('"config" must be an object')),
  set: absentAsUndefined(jsonObjectField('"set" must be an object of dotted keys')),
}).refine((body) => body.config !== undefined || body.set !== undefined, EDIT_HINT);

const VERSION_REQUIRED = '"version" is required: send the version that GET /api/config/raw ' +
  "returned with the text, so a change saved since is not overwritten";

/** `PUT /api/config/raw`: the whole file and the version it was loaded at. */
const RawConfigBody = z.looseObject({
  text: z.string({ error: '"text" (the whole config.yaml) is required' }),
  version: requiredString("version", { message: VERSION_REQUIRED }),
});

/** The `{"set": {...}}` map as typed edits: a string is read like the CLI's text. */
function setEdits(set: Readonly<Record<string, unknown>> | undefined): ConfigEdit[] {
  return Object.entries(set ?? {}).map(([key, value]) => ({
    key,
    value: configValueFromJson(key, value),
  }));
}

/** Registers the config routes. */
export function registerConfigRoutes(app: Hono, deps: ServerDeps): void {
  app.get("/api/config", async (c) => {
    return c.json(await showConfig(await scopedContext(c, deps)));
  });

  app.put("/api/config", async (c) => {
    const { profile, body } = await scopedBody(c, deps, ConfigEditBody);
    const result = await editConfigObject(profile, body.config ?? {}, setEdits(body.set));
    const after = await showConfig(profile);
    return c.json({
      ok: true,
      profile: result.profile,
      file: result.file,
      changed: result.changed,
      removed: result.removed,
      secrets: result.secrets.map((secret) => secret.name),
      config: after.config,
      warnings: after.warnings,
    });
  });

  app.get("/api/config/schema", async (c) => {
    // The schema is every profile's, but `?profile` is checked like the other config routes'.
    await scopedProfile(c, deps);
    return c.json(configJsonSchema());
  });

  app.get("/api/config/raw", async (c) => {
    return c.json(await readRawConfig(await scopedContext(c, deps)));
  });

  app.put("/api/config/raw", async (c) => {
    const { profile, body } = await scopedBody(c, deps, RawConfigBody);
    return c.json({ ok: true, ...await saveRawConfig(profile, body.text, body.version) });
  });
}

/**
 * `/api/model/*`: the profile's main model and auxiliary slots as a session
 * would resolve them (never a key, only whether one is present), the
 * provider table, and `POST /api/model/set`. The work is core's
 * (core/usecases/model.ts), including the subscription's tool-gateway defaults.
 *
 * @module
 */

import type { Hono } from "hono";
import { z } from "zod";
import {
  describeAuxiliaryModels,
  describeModel,
  listModelOptions,
  setModel,
} from "../../core/usecases/model.ts";
import type { ServerDeps } from "../deps.ts";
import { scopedBody, scopedContext } from "../profile_scope.ts";
import { absentAsUndefined } from "../_input.ts";

/** `POST /api/model/set`: any of the model's fields; at least one (core checks). */
const ModelSetBody = z.looseObject({
  provider: absentAsUndefined(z.string()),
  model: absentAsUndefined(z.string()),
  base_url: absentAsUndefined(z.string()),
  api_key: absentAsUndefined(z.string()),
  context_length: absentAsUndefined(z.number()),
});

/** Registers the model routes. */
export function registerModelRoutes(app: Hono, deps: ServerDeps): void {
  app.get("/api/model/info", async (c) => {
    return c.json(await describeModel(await scopedContext(c, deps)));
  });

  app.get("/api/model/options", async (c) => {
    return c.json(await listModelOptions(await scopedContext(c, deps)));
  });

  app.get("/api/model/auxiliary", async (c) => {
    return c.json(await describeAuxiliaryModels(await scopedContext(c, deps)));
  });

  app.post("/api/model/set", async (c) => {
    const { profile, body } = await scopedBody(c, deps, ModelSetBody);
    const { provider, model, base_url, api_key, context_length } = body;
    return c.json({
      ok: true,
      ...await setModel(profile, { provider, model, base_url, api_key, context_length }),
    });
  });
}

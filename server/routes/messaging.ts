/**
 * `/api/messaging/platforms`: the platform catalog with each platform's
 * status in the profile, saving a platform's setup (secrets to `.env`,
 * enable/disable to config.yaml), and the test call: the configuration
 * first, then the platform's own API (Telegram's `getMe`, LINE's bot info)
 * with the profile's credentials. The work is core's
 * (core/usecases/messaging.ts).
 *
 * @module
 */

import type { Hono } from "hono";
import { z } from "zod";
import {
  listPlatforms,
  requirePlatform,
  savePlatform,
  testPlatform,
} from "../../core/usecases/messaging.ts";
import type { ServerDeps } from "../deps.ts";
import { scopedBody, scopedContext, scopedWrite } from "../profile_scope.ts";
import { absentAsUndefined, stringRecord } from "../_input.ts";

/** `PUT /api/messaging/platforms/:platform`: any of on/off, secrets to store, secrets to remove. */
const PlatformSetupBody = z.looseObject({
  enabled: absentAsUndefined(z.boolean({ error: '"enabled" must be true or false' })),
  env: stringRecord("env"),
  clear_env: absentAsUndefined(
    z.array(z.string(), { error: '"clear_env" must be a list of strings' }),
  ),
});

/** Registers the messaging routes. */
export function registerMessagingRoutes(app: Hono, deps: ServerDeps): void {
  app.get("/api/messaging/platforms", async (c) => {
    return c.json(await listPlatforms(await scopedContext(c, deps)));
  });

  app.put("/api/messaging/platforms/:platform", async (c) => {
    const { profile, body } = await scopedBody(c, deps, PlatformSetupBody);
    const id = requirePlatform(c.req.param("platform")).id;
    const { enabled, env, clear_env } = body;
    return c.json({ ok: true, ...await savePlatform(profile, id, { enabled, env, clear_env }) });
  });

  app.post("/api/messaging/platforms/:platform/test", async (c) => {
    const profile = await scopedWrite(c, deps);
    const id = requirePlatform(c.req.param("platform")).id;
    return c.json(await testPlatform(profile, id));
  });
}

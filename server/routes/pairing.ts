/**
 * `/api/pairing`: who asked the profile's bots for a pairing code and who
 * is paired, approving a code and revoking a person, as `herald pairing`
 * does. The work is core's (core/usecases/pairing.ts), over the profile's
 * `pairing.json`.
 *
 * | route | body | answer |
 * | --- | --- | --- |
 * | `GET /api/pairing` | | `{profile, pending, approved}` |
 * | `POST /api/pairing/approve` | `{code, platform?}` | `{ok, platform, user_id, user_name, approved_at}` |
 * | `POST /api/pairing/revoke` | `{platform, user_id}` | `{ok, platform, user_id, revoked}` |
 *
 * An unknown code or person is a 404, text that cannot be a code a 400.
 *
 * @module
 */

import type { Hono } from "hono";
import { z } from "zod";
import { approvePairing, listPairing, revokePairing } from "../../core/usecases/pairing.ts";
import type { ServerDeps } from "../deps.ts";
import { scopedBody, scopedContext } from "../profile_scope.ts";
import { absentAsUndefined, requiredString } from "../_input.ts";

const PLATFORM_ID = /^[a-z0-9_-]+$/;
const PLATFORM_MESSAGE = '"platform" must be a platform id such as telegram or line';

const platformId = requiredString("platform", { trim: true }).transform((value) =>
  value.toLowerCase()
).refine((value) => PLATFORM_ID.test(value), PLATFORM_MESSAGE);

/** `POST /api/pairing/approve`: the code the person was given, and optionally its platform. */
const ApproveBody = z.looseObject({
  code: requiredString("code", {
    message: '"code" (the pairing code, such as ABCD2345) is required',
  }),
  platform: absentAsUndefined(platformId),
});

/** `POST /api/pairing/revoke`: the person, as the listing names them. */
const RevokeBody = z.looseObject({
  platform: platformId,
  user_id: requiredString("user_id", { trim: true }),
});

/** Registers the pairing routes. */
export function registerPairingRoutes(app: Hono, deps: ServerDeps): void {
  const now = () => (deps.now ?? Date.now)();

  app.get("/api/pairing", async (c) => {
    return c.json(await listPairing(await scopedContext(c, deps), now()));
  });

  app.post("/api/pairing/approve", async (c) => {
    const { profile, body } = await scopedBody(c, deps, ApproveBody);
    return c.json({
      ok: true,
      ...await approvePairing(profile, body.code, now(), { platform: body.platform }),
    });
  });

  app.post("/api/pairing/revoke", async (c) => {
    const { profile, body } = await scopedBody(c, deps, RevokeBody);
    return c.json({
      ok: true,
      ...await revokePairing(profile, `${body.platform}:${body.user_id}`),
    });
  });
}

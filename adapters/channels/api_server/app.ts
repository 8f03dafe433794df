/**
 * The API server's Hono app: an OpenAI-compatible HTTP API over the
 * profile's agent. Every `/v1` route needs `Authorization: Bearer <key>`
 * (compared in constant time; missing or wrong is a 401 in OpenAI's error
 * shape). `GET /health` answers without the key and says nothing about
 * the profile.
 *
 * | route | what |
 * | --- | --- |
 * | `GET /v1/models`, `GET /v1/models/{id}` | the one model, named after the profile |
 * | `POST /v1/chat/completions` | chat_completions.ts |
 * | `POST /v1/responses`, `GET`/`DELETE /v1/responses/{id}` | responses.ts |
 *
 * @module
 */

import { Hono } from "hono";
import { chatCompletions } from "./chat_completions.ts";
import type { ApiServerDeps } from "./deps.ts";
import { ApiRequestError, errorResponse, toOpenAiError } from "./errors.ts";
import { createResponse, deleteResponse, getResponse } from "./responses.ts";
import { API_SERVER_ID } from "./settings.ts";

export type { ApiServerDeps } from "./deps.ts";

const encoder = new TextEncoder();

/** A constant-time check of a presented key against `expected`. */
function keyChecker(expected: string): (candidate: string | undefined) => boolean {
  const want = encoder.encode(expected);
  return (candidate) => {
    if (candidate === undefined) return false;
    const got = encoder.encode(candidate);
    // Every byte of the expected key is compared, whatever the candidate's length.
    let difference = got.length ^ want.length;
    for (let i = 0; i < want.length; i++) difference |= want[i] ^ (got[i] ?? 0);
    return difference === 0;
  };
}

function bearer(request: Request): string | undefined {
  const authorization = request.headers.get("authorization");
  if (!authorization || !/^bearer\s/i.test(authorization)) return undefined;
  return authorization.slice(7).trim();
}

/**
 * Creates the app (no listening: mod.ts serves it).
 *
 * @example
 * ```ts
 * const app = createApiServerApp(deps);
 * const answer = await app.request("/v1/models", { headers: { authorization: `Bearer ${key}` } });
 * ```
 */
export function createApiServerApp(deps: ApiServerDeps): Hono {
  const app = new Hono();
  const validKey = keyChecker(deps.settings.key);
  const model = () => ({
    id: deps.settings.modelName,
    object: "model",
    created: Math.floor(deps.startedAt / 1000),
    owned_by: "herald",
  });

  app.onError((error, c) => {
    if (toOpenAiError(error).status >= 500) {
      const message = error instanceof Error ? error.message : String(error);
      deps.log(`API server: ${c.req.method} ${c.req.path} failed: ${message}`);
    }
    return errorResponse(error);
  });
  app.notFound((c) => {
    throw new ApiRequestError(
      404,
      "unknown_url",
      `Unknown route ${c.req.method} ${c.req.path}; this server serves /v1/models, ` +
        "/v1/chat/completions and /v1/responses",
    );
  });

  app.get("/health", (c) => c.json({ status: "ok", platform: API_SERVER_ID }));

  app.use("/v1/*", async (c, next) => {
    const presented = bearer(c.req.raw);
    if (!validKey(presented)) {
      throw new ApiRequestError(
        401,
        "invalid_api_key",
        presented === undefined
          ? "No API key was sent; send the server's API_SERVER_KEY as `Authorization: Bearer <key>`"
          : "The API key is not this server's API_SERVER_KEY",
      );
    }
    await next();
  });

  app.get("/v1/models", (c) => c.json({ object: "list", data: [model()] }));
  app.get("/v1/models/:id", (c) => {
    if (c.req.param("id") !== deps.settings.modelName) {
      throw new ApiRequestError(
        404,
        "model_not_found",
        `Model "${c.req.param("id")}" not found; this server has one: "${deps.settings.modelName}"`,
      );
    }
    return c.json(model());
  });
  app.post("/v1/chat/completions", (c) => chatCompletions(c.req.raw, deps));
  app.post("/v1/responses", (c) => createResponse(c.req.raw, deps));
  app.get("/v1/responses/:id", (c) => getResponse(c.req.param("id"), deps));
  app.delete("/v1/responses/:id", (c) => deleteResponse(c.req.param("id"), deps));
  return app;
}

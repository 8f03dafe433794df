/**
 * server/errors.ts: an error's kind is its HTTP status, from one table, and
 * its details travel in the envelope.
 */

import assert from "node:assert/strict";
import { Hono } from "hono";
import {
  ConfigParseError,
  ERROR_KINDS,
  FileLockTimeoutError,
  HeraldError,
  NotFoundError,
  ProfileExistsError,
  ValueTooLargeError,
} from "../../core/errors.ts";
import { BundleExistsError, BundleNotFoundError } from "../../core/skills/mod.ts";
import { McpServerExistsError } from "../../core/mcp/mod.ts";
import { handleError, STATUS_OF_KIND } from "../../server/errors.ts";

/** Answers GET / by throwing `error` through the app's error handler. */
async function answer(error: Error): Promise<{ status: number; body: Record<string, unknown> }> {
  const app = new Hono();
  app.onError(handleError);
  app.get("/", () => {
    throw error;
  });
  const response = await app.request("/");
  return { status: response.status, body: (await response.json()).error };
}

Deno.test("each error kind answers its status from the one table", async () => {
  const expected = {
    usage: 400,
    not_found: 404,
    conflict: 409,
    too_large: 413,
    parse: 422,
    unavailable: 503,
    state: 500,
    internal: 500,
  };
  assert.deepEqual(STATUS_OF_KIND, expected);
  for (const kind of ERROR_KINDS) {
    const { status, body } = await answer(new HeraldError(`test_${kind}`, kind, "It failed"));
    assert.equal(status, expected[kind], kind);
    assert.deepEqual(body, { code: `test_${kind}`, message: "It failed" }, kind);
  }
});

Deno.test("domain errors keep the statuses the routes answered before", async () => {
  const cases: [Error, number][] = [
    [new NotFoundError("Session", "ses_1"), 404],
    [new BundleNotFoundError("backend", "skill-bundles"), 404],
    [new BundleExistsError("backend", "skill-bundles/backend.yaml"), 409],
    [new McpServerExistsError("github"), 409],
    [new ProfileExistsError("work", "/home/work"), 409],
    [new ValueTooLargeError("config_value", "model.default", 70_000, 65_536), 413],
    [new ConfigParseError("config.yaml", 3, 5, "bad indentation"), 422],
    [new FileLockTimeoutError("config.yaml", 10_000), 503],
  ];
  for (const [error, status] of cases) {
    assert.equal((await answer(error)).status, status, error.name);
  }
});

Deno.test("an error's details go into the envelope", async () => {
  const { status, body } = await answer(
    new ValueTooLargeError("config_value", "model.default", 70_000, 65_536),
  );
  assert.equal(status, 413);
  assert.equal(body.code, "value_too_large");
  assert.deepEqual(body.details, {
    scope: "config_value",
    key: "model.default",
    size: 70_000,
    limit: 65_536,
  });
  const lock = await answer(new FileLockTimeoutError("/h/config.yaml", 10_000));
  assert.deepEqual(lock.body.details, { file: "/h/config.yaml", timeout_ms: 10_000 });
});

Deno.test("a parse error is a 422 with file, line and column in details and beside the message", async () => {
  const { status, body } = await answer(new ConfigParseError("/h/config.yaml", 3, 5, "bad indent"));
  assert.equal(status, 422);
  assert.equal(body.code, "config_parse");
  assert.match(String(body.message), /config\.yaml:3:5: bad indent/);
  const where = { file: "/h/config.yaml", line: 3, column: 5, reason: "bad indent" };
  assert.deepEqual(body.details, where);
  for (const [key, value] of Object.entries(where)) assert.equal(body[key], value, key);
});

Deno.test("an error without details has no details field, and an unknown error is a 500", async () => {
  const bare = await answer(new HeraldError("doctor_failed", "state", "1 check failed"));
  assert.equal(bare.status, 500);
  assert.equal("details" in bare.body, false);
  const unknown = await answer(new Error("boom"));
  assert.equal(unknown.status, 500);
  assert.deepEqual(unknown.body, { code: "internal_error", message: "boom" });
});

/**
 * core/errors.ts: every error carries a kind and the structured details a
 * caller acts on.
 */

import assert from "node:assert/strict";
import {
  ConfigParseError,
  ConfigValueError,
  ERROR_KINDS,
  HeraldError,
  isCallerKind,
  ModelError,
  StoreError,
} from "../../core/errors.ts";

Deno.test("a parse error carries file, line, column and reason as details", () => {
  const error = new ConfigParseError("/h/config.yaml", 4, 7, "unexpected end");
  assert.equal(error.kind, "parse");
  assert.equal(error.code, "config_parse");
  assert.deepEqual(error.details, {
    file: "/h/config.yaml",
    line: 4,
    column: 7,
    reason: "unexpected end",
  });
  assert.ok(Object.isFrozen(error.details));
});

Deno.test("details leave out undefined values and never hold a config value", () => {
  const model = new ModelError("model_auth", "Bad key");
  assert.deepEqual(model.details, {});
  const value = new ConfigValueError("model.api_key", "sk-secret", "expected a number");
  assert.deepEqual(value.details, { key: "model.api_key", reason: "expected a number" });
});

Deno.test("the cause survives beside the details", () => {
  const cause = new Error("disk I/O error");
  const error = new StoreError("state.db", "cannot write", { cause });
  assert.equal(error.cause, cause);
  assert.deepEqual(error.details, { file: "state.db", reason: "cannot write" });
  assert.equal(new HeraldError("x", "usage", "m").cause, undefined);
});

Deno.test("model errors are unavailable when the provider is busy or down", () => {
  assert.equal(new ModelError("model_rate_limited", "Slow down").kind, "unavailable");
  assert.equal(new ModelError("model_unavailable", "Down").kind, "unavailable");
  assert.equal(new ModelError("model_bad_response", "Garbage").kind, "state");
  assert.equal(new ModelError("model_not_configured", "None").kind, "usage");
});

Deno.test("caller kinds are the ones fixed by asking differently", () => {
  assert.deepEqual(
    ERROR_KINDS.filter(isCallerKind),
    ["usage", "not_found", "conflict", "too_large"],
  );
});

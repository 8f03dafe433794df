/**
 * The size limits on config edits: one config value, the whole config.yaml
 * an edit produces, and one `.env` value. Each refusal names the key, the
 * size and the limit, and plans nothing to write.
 */

import assert from "node:assert/strict";
import { ValueTooLargeError } from "../../core/errors.ts";
import {
  appendConfigListValue,
  MAX_CONFIG_TEXT_BYTES,
  MAX_CONFIG_VALUE_BYTES,
  MAX_ENV_VALUE_BYTES,
  planConfigSet,
  setEnvValue,
} from "../../core/config/mod.ts";

function tooLarge(key: string, limit: number) {
  return (error: unknown) => {
    assert.ok(error instanceof ValueTooLargeError, String(error));
    assert.equal(error.code, "value_too_large");
    assert.equal(error.kind, "too_large");
    assert.equal(error.key, key);
    assert.equal(error.limit, limit);
    assert.ok(error.size > limit);
    assert.ok(error.message.includes(`"${key}"`), error.message);
    assert.ok(error.message.includes(`${error.size} bytes`), error.message);
    assert.match(error.message, /over the (64 KiB|1 MiB) limit/);
    return true;
  };
}

Deno.test("a config value over the limit is refused naming the key, its size and the limit", () => {
  const big = "x".repeat(MAX_CONFIG_VALUE_BYTES + 1);
  assert.throws(
    () => planConfigSet("", "config.yaml", "model.default", big),
    tooLarge("model.default", MAX_CONFIG_VALUE_BYTES),
  );
  assert.throws(
    () => appendConfigListValue("", "config.yaml", "approvals.allow", big),
    tooLarge("approvals.allow", MAX_CONFIG_VALUE_BYTES),
  );
  // Bytes, not characters: 2 bytes each in UTF-8.
  const wide = "é".repeat(MAX_CONFIG_VALUE_BYTES / 2 + 1);
  assert.throws(() => planConfigSet("", "config.yaml", "model.default", wide), ValueTooLargeError);
  const atLimit = planConfigSet(
    "",
    "config.yaml",
    "model.default",
    "x".repeat(MAX_CONFIG_VALUE_BYTES),
  );
  assert.equal(atLimit.kind, "config");
});

Deno.test("a secret over the .env limit is refused before anything is planned", () => {
  const big = "k".repeat(MAX_ENV_VALUE_BYTES + 1);
  assert.throws(
    () => planConfigSet("", "config.yaml", "model.api_key", big),
    tooLarge("model.api_key", MAX_ENV_VALUE_BYTES),
  );
  assert.throws(
    () => planConfigSet("", "config.yaml", "OPENAI_API_KEY", big),
    tooLarge("OPENAI_API_KEY", MAX_ENV_VALUE_BYTES),
  );
  assert.throws(() => setEnvValue("A=1\n", "BIG", big), tooLarge("BIG", MAX_ENV_VALUE_BYTES));
  assert.equal(
    setEnvValue("", "OK", "k".repeat(MAX_ENV_VALUE_BYTES)).length,
    MAX_ENV_VALUE_BYTES + 4,
  );
});

Deno.test("an edit that would grow config.yaml past the file limit is refused", () => {
  const value = "v".repeat(MAX_CONFIG_VALUE_BYTES - 100);
  let text = "";
  let refused: unknown;
  for (let i = 0; i < 40 && !refused; i++) {
    try {
      text = planConfigSet(text, "config.yaml", `mcp_servers.s${i}.command`, value).text!;
    } catch (error) {
      refused = error;
    }
  }
  assert.ok(refused, "the file limit was reached");
  assert.ok(tooLarge(String((refused as ValueTooLargeError).key), MAX_CONFIG_TEXT_BYTES)(refused));
  assert.match((refused as Error).message, /config\.yaml/);
  assert.ok(new TextEncoder().encode(text).length <= MAX_CONFIG_TEXT_BYTES);
});

Deno.test("a config.yaml already over the file limit can be trimmed but not grown", () => {
  const oversized = "plugins:\n" + ("  - " + "p".repeat(1000) + "\n").repeat(1100);
  assert.ok(oversized.length > MAX_CONFIG_TEXT_BYTES);
  const trimmed = planConfigSet(oversized, "config.yaml", "plugins", ["one"]);
  assert.equal(trimmed.text, "plugins:\n  - one\n");
  assert.throws(
    () => planConfigSet(oversized, "config.yaml", "agent.max_turns", 3),
    tooLarge("agent.max_turns", MAX_CONFIG_TEXT_BYTES),
  );
});

/**
 * Resolving the fallback chain from config: the primary first, then each
 * usable `fallback_providers` entry with its keys; unusable entries are
 * warnings; `/model provider:model` switches; the failure classes; the
 * state file's records.
 */

import assert from "node:assert/strict";
import { ConfigSchema, type HeraldConfig } from "../../../core/config/schema.ts";
import { parseConfig } from "../../../core/config/mod.ts";
import { ModelError } from "../../../core/errors.ts";
import { classifyModelFailure, failureReason } from "../../../core/models/failure.ts";
import { resolveRouteChain, switchedRoute } from "../../../core/models/fallback.ts";
import {
  emptyKeyState,
  parseKeyState,
  recordedStatus,
  withKeyStatus,
  withoutKeyStatus,
} from "../../../core/models/key_state.ts";
import { resolveModelSettings } from "../../../core/models/settings.ts";
import { parseModelSpec } from "../../../core/providers.ts";

function config(value: Record<string, unknown>): HeraldConfig {
  return ConfigSchema.parse(value);
}

function env(values: Record<string, string> = {}): (name: string) => string | undefined {
  return (name) => values[name];
}

const KEYS = {
  OPENROUTER_API_KEY: "sk-or-1",
  OPENROUTER_API_KEY_2: "sk-or-2",
  ANTHROPIC_API_KEY: "sk-ant-1",
};

Deno.test("the chain is the primary with its numbered keys, then each usable fallback", () => {
  const c = config({
    model: { provider: "openrouter", default: "gpt-x", timeout: 40 },
    fallback_providers: [
      { provider: "anthropic", model: "claude-x" },
      { provider: "custom", model: "local" },
      { provider: "openrouter", model: "gpt-x" },
      { provider: "ollama", model: "qwen3:8b", timeout: 300 },
    ],
  });
  const e = env(KEYS);
  const { routes, warnings } = resolveRouteChain(c, e, resolveModelSettings(c, e));
  assert.deepEqual(
    routes.map((r) => [r.settings.provider, r.settings.model, r.keys.map((k) => k.source)]),
    [
      ["openrouter", "gpt-x", ["OPENROUTER_API_KEY", "OPENROUTER_API_KEY_2"]],
      ["anthropic", "claude-x", ["ANTHROPIC_API_KEY"]],
      ["ollama", "qwen3:8b", [""]],
    ],
  );
  assert.equal(routes[0].settings.timeoutSeconds, 40);
  assert.equal(routes[1].settings.timeoutSeconds, 40, "model.timeout applies to fallbacks");
  assert.equal(routes[1].settings.baseUrl, "https://api.anthropic.com");
  assert.equal(routes[2].settings.timeoutSetting, "fallback_providers.3.timeout");
  assert.equal(routes[2].settings.apiKey, undefined, "a keyless endpoint gets no key");
  assert.deepEqual(warnings.length, 1, "the custom entry has no endpoint; the repeat is dropped");
  assert.match(
    warnings[0],
    /^fallback_providers\.1 \(custom\/local\) is skipped: No endpoint for custom/,
  );
});

Deno.test("a fallback's key_env names its own variable and numbered keys", () => {
  const c = config({
    model: { provider: "openrouter", default: "gpt-x" },
    fallback_providers: [{
      provider: "custom",
      model: "m",
      base_url: "http://127.0.0.1:8080/v1",
      key_env: "LOCAL_KEY",
    }],
  });
  const e = env({ ...KEYS, LOCAL_KEY: "k1", LOCAL_KEY_3: "k3" });
  const { routes } = resolveRouteChain(c, e, resolveModelSettings(c, e));
  assert.deepEqual(routes[1].keys, [{ source: "LOCAL_KEY", key: "k1" }, {
    source: "LOCAL_KEY_3",
    key: "k3",
  }]);
});

Deno.test("an entry missing its model is reported and the list falls back to its default", () => {
  const loaded = parseConfig(
    "fallback_providers:\n  - provider: anthropic\n",
    "config.yaml",
  );
  assert.deepEqual(loaded.config.fallback_providers, []);
  assert.match(loaded.warnings[0].message, /fallback_providers\.0\.model/);
});

Deno.test("/model provider:model moves to that provider's endpoint, a fallback's when it has one", () => {
  const c = config({
    model: { provider: "openrouter", default: "gpt-x" },
    fallback_providers: [{
      provider: "anthropic",
      model: "claude-x",
      base_url: "http://127.0.0.1:7/",
    }],
  });
  const e = env(KEYS);
  const current = resolveModelSettings(c, e);
  const same = switchedRoute(c, e, current, "gpt-y");
  assert.deepEqual([same.settings.provider, same.settings.model], ["openrouter", "gpt-y"]);
  assert.equal(same.keys.length, 2);
  const other = switchedRoute(c, e, current, "claude-y", "anthropic");
  assert.deepEqual(
    [other.settings.provider, other.settings.model, other.settings.baseUrl],
    ["anthropic", "claude-y", "http://127.0.0.1:7/"],
  );
  const openai = () => switchedRoute(c, e, current, "gpt-4o", "openai");
  assert.throws(
    openai,
    (error: unknown) =>
      error instanceof ModelError && error.code === "model_not_configured" &&
      /No API key for openai/.test(error.message),
  );
});

Deno.test("a /model argument names a provider only when the part before : is a known one", () => {
  assert.deepEqual(parseModelSpec("anthropic:claude-x"), {
    provider: "anthropic",
    model: "claude-x",
  });
  assert.deepEqual(parseModelSpec("qwen3:8b"), { model: "qwen3:8b" });
  assert.deepEqual(parseModelSpec("ollama:qwen3:8b"), { provider: "ollama", model: "qwen3:8b" });
  assert.deepEqual(parseModelSpec("gpt-4o"), { model: "gpt-4o" });
  assert.deepEqual(parseModelSpec("openai:"), { provider: "openai", model: "" });
});

Deno.test("failures sort into auth, payment, rate limit, unavailable and fatal", () => {
  const error = (code: ConstructorParameters<typeof ModelError>[0], status?: number) =>
    new ModelError(code, "x", "p", status);
  assert.equal(classifyModelFailure(error("model_auth", 401)), "auth");
  assert.equal(classifyModelFailure(error("model_auth", 403)), "auth");
  assert.equal(classifyModelFailure(error("model_bad_request", 402)), "payment");
  assert.equal(classifyModelFailure(error("model_rate_limited", 429)), "rate_limit");
  const quota = new ModelError("model_rate_limited", "x", "p", 429, {
    cause: Object.assign(new Error("429"), { code: "insufficient_quota" }),
  });
  assert.equal(classifyModelFailure(quota), "payment");
  assert.equal(classifyModelFailure(error("model_unavailable", 503)), "unavailable");
  assert.equal(classifyModelFailure(error("model_unavailable")), "unavailable");
  assert.equal(classifyModelFailure(error("model_bad_request", 404)), "fatal");
  assert.equal(classifyModelFailure(error("model_bad_response", 200)), "fatal");
  assert.equal(classifyModelFailure(new TypeError("handler")), "fatal");
  assert.equal(failureReason(error("model_auth", 401)), "rejected the key (HTTP 401)");
});

Deno.test("state records hold the masked key and are read back only for that key", () => {
  const key = { source: "OPENAI_API_KEY", key: "sk-proj-0123456789abcdef" };
  const state = withKeyStatus(emptyKeyState(), "openai", key, {
    cooldownUntil: Date.UTC(2026, 0, 1, 12),
    lastError: { status: 429, failure: "rate_limit", at: Date.UTC(2026, 0, 1, 11, 59) },
    rateLimitStreak: 0,
  }, Date.UTC(2026, 0, 1, 11, 59));
  const text = JSON.stringify(state);
  assert.ok(!text.includes(key.key));
  assert.equal(state.providers.openai.OPENAI_API_KEY.key, "sk-…cdef");
  assert.deepEqual(recordedStatus(parseKeyState(text), "openai", key), {
    rateLimitStreak: 0,
    cooldownUntil: Date.UTC(2026, 0, 1, 12),
    lastError: { status: 429, failure: "rate_limit", at: Date.UTC(2026, 0, 1, 11, 59) },
  });
  assert.equal(
    recordedStatus(state, "openai", { ...key, key: "sk-proj-another-key-9999" }),
    undefined,
  );
  assert.deepEqual(withoutKeyStatus(state, "openai").providers, {});
  assert.deepEqual(parseKeyState('{"version": 2}'), emptyKeyState());
});

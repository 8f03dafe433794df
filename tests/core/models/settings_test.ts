import assert from "node:assert/strict";
import { ConfigSchema, type HeraldConfig } from "../../../core/config/schema.ts";
import { ModelError } from "../../../core/errors.ts";
import { detectProviderFromEnv, resolveModelSettings } from "../../../core/models/settings.ts";
import { routeOf } from "../../../core/models/fallback.ts";
import { providerInfo, providerKeyVariable } from "../../../core/providers.ts";

function config(value: Record<string, unknown>): HeraldConfig {
  return ConfigSchema.parse(value);
}

function env(values: Record<string, string> = {}): (name: string) => string | undefined {
  return (name) => values[name];
}

/** Asserts a model_not_configured error with exactly `message`. */
function notConfigured(run: () => unknown, message: string | RegExp): void {
  assert.throws(run, (error: unknown) => {
    assert.ok(error instanceof ModelError, `expected a ModelError, got ${error}`);
    assert.equal(error.code, "model_not_configured");
    assert.equal(error.kind, "usage");
    if (typeof message === "string") assert.equal(error.message, message);
    else assert.match(error.message, message);
    return true;
  });
}

Deno.test("settings take the provider's default endpoint and its key from the environment", () => {
  const settings = resolveModelSettings(
    config({ model: { provider: "openrouter", default: "anthropic/claude-sonnet-4" } }),
    env({ OPENROUTER_API_KEY: "sk-or-1" }),
  );
  assert.deepEqual(settings, {
    provider: "openrouter",
    model: "anthropic/claude-sonnet-4",
    baseUrl: "https://openrouter.ai/api/v1",
    apiKey: "sk-or-1",
    configSection: "model",
    maxRetries: 3,
    maxTokens: undefined,
  });
});

Deno.test("model.api_key, base_url, max_tokens and agent.api_max_retries are used", () => {
  const settings = resolveModelSettings(
    config({
      model: {
        provider: "openai",
        default: "gpt-test",
        api_key: "sk-config",
        base_url: "http://127.0.0.1:9999/v1",
        max_tokens: 2048,
      },
      agent: { api_max_retries: 7 },
    }),
    env({ OPENAI_API_KEY: "sk-env" }),
  );
  assert.equal(settings.apiKey, "sk-config");
  assert.equal(settings.baseUrl, "http://127.0.0.1:9999/v1");
  assert.equal(settings.maxTokens, 2048);
  assert.equal(settings.maxRetries, 7);
});

Deno.test("a missing key names the provider, the command and the .env name", () => {
  notConfigured(
    () => resolveModelSettings(config({ model: { provider: "openrouter", default: "x" } }), env()),
    "No API key for openrouter: run `herald config set model.api_key <key>` " +
      "(stored in .env as OPENROUTER_API_KEY)",
  );
});

Deno.test("a key still written as ${NAME} counts as missing", () => {
  notConfigured(
    () =>
      resolveModelSettings(
        config({
          model: { provider: "anthropic", default: "claude", api_key: "${ANTHROPIC_API_KEY}" },
        }),
        env(),
      ),
    /^No API key for anthropic: .*ANTHROPIC_API_KEY\)$/,
  );
});

Deno.test("a missing model name says to set model.default", () => {
  notConfigured(
    () => resolveModelSettings(config({ model: { provider: "ollama" } }), env()),
    "No model name is configured for ollama: run `herald config set model.default <model>`",
  );
});

Deno.test("a provider without a default endpoint needs model.base_url", () => {
  notConfigured(
    () => resolveModelSettings(config({ model: { provider: "custom", default: "m" } }), env()),
    /^No endpoint for custom: run `herald config set model\.base_url <url>`/,
  );
  notConfigured(
    () =>
      resolveModelSettings(
        config({ model: { provider: "custom", default: "m", base_url: "localhost:8080" } }),
        env(),
      ),
    /^The endpoint "localhost:8080" for custom is not a URL/,
  );
});

Deno.test("no provider anywhere says to run herald setup or set model.provider", () => {
  notConfigured(
    () => resolveModelSettings(config({ model: { default: "m" } }), env()),
    /^No model is set up yet: run `herald setup`.*`herald config set model\.provider <id>`/,
  );
});

Deno.test("keyless local servers need no key", () => {
  const settings = resolveModelSettings(
    config({ model: { provider: "llamacpp", default: "qwen" } }),
    env(),
  );
  assert.equal(settings.apiKey, undefined);
  assert.equal(settings.baseUrl, "http://127.0.0.1:8080/v1");
  const custom = resolveModelSettings(
    config({ model: { base_url: "http://127.0.0.1:5000/v1", default: "m" } }),
    env({ ANTHROPIC_API_KEY: "sk-ant" }),
  );
  assert.equal(custom.provider, "custom", "a base_url without a provider is a custom endpoint");
});

Deno.test("the provider is detected from the environment when config names none", () => {
  assert.equal(detectProviderFromEnv(env()), undefined);
  assert.equal(detectProviderFromEnv(env({ OPENAI_API_KEY: "a" })), "openai");
  assert.equal(
    detectProviderFromEnv(env({ OPENAI_API_KEY: "a", OPENROUTER_API_KEY: "b" })),
    "openrouter",
  );
  assert.equal(
    detectProviderFromEnv(env({ OPENAI_API_KEY: "a", ANTHROPIC_API_KEY: "c" })),
    "anthropic",
  );
  assert.equal(detectProviderFromEnv(env({ ANTHROPIC_API_KEY: " " })), undefined);
  const settings = resolveModelSettings(
    config({ model: { default: "claude-x" } }),
    env({ ANTHROPIC_API_KEY: "sk-ant" }),
  );
  assert.equal(settings.provider, "anthropic");
  assert.equal(settings.apiKey, "sk-ant");
});

Deno.test("overrides win, and another provider does not inherit the configured endpoint or key", () => {
  const base = config({
    model: {
      provider: "custom",
      default: "local-model",
      base_url: "http://127.0.0.1:8080/v1",
      api_key: "local-key",
    },
  });
  const sameProvider = resolveModelSettings(base, env(), { model: "other-model" });
  assert.equal(sameProvider.model, "other-model");
  assert.equal(sameProvider.apiKey, "local-key");
  assert.equal(sameProvider.baseUrl, "http://127.0.0.1:8080/v1");

  const switched = resolveModelSettings(base, env({ OPENROUTER_API_KEY: "sk-or" }), {
    provider: "openrouter",
  });
  assert.equal(switched.provider, "openrouter");
  assert.equal(switched.baseUrl, "https://openrouter.ai/api/v1");
  assert.equal(switched.apiKey, "sk-or");

  const moved = resolveModelSettings(base, env(), { baseUrl: "http://127.0.0.1:1/v1" });
  assert.equal(moved.baseUrl, "http://127.0.0.1:1/v1");
});

Deno.test("custom reads CUSTOM_API_KEY first and OPENAI_API_KEY only as a fallback", () => {
  const custom = config({
    model: { provider: "custom", base_url: "http://127.0.0.1:8080/v1", default: "m" },
  });
  assert.equal(providerInfo("custom").keyEnv, "CUSTOM_API_KEY");
  const both = env({ CUSTOM_API_KEY: "sk-custom", OPENAI_API_KEY: "sk-openai" });
  assert.equal(resolveModelSettings(custom, both).apiKey, "sk-custom");
  const legacy = env({ OPENAI_API_KEY: "sk-openai", OPENAI_API_KEY_2: "sk-openai-2" });
  assert.equal(resolveModelSettings(custom, legacy).apiKey, "sk-openai", "older setups still work");
  assert.equal(providerKeyVariable(providerInfo("custom"), legacy), "OPENAI_API_KEY");
  const route = routeOf(resolveModelSettings(custom, legacy), legacy);
  assert.deepEqual(route.keys.map((key) => key.source), ["OPENAI_API_KEY", "OPENAI_API_KEY_2"]);
  assert.equal(resolveModelSettings(custom, env()).apiKey, undefined, "custom may be keyless");
  // Other providers have no fallback variable.
  notConfigured(
    () => resolveModelSettings(config({ model: { provider: "openrouter", default: "m" } }), both),
    /^No API key for openrouter/,
  );
});

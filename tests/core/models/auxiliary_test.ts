import assert from "node:assert/strict";
import { ConfigSchema, type HeraldConfig } from "../../../core/config/schema.ts";
import { ModelError } from "../../../core/errors.ts";
import { callAuxiliary, resolveAuxiliarySettings } from "../../../core/models/auxiliary.ts";
import type { ModelClientFactory } from "../../../core/models/settings.ts";
import { createModelClient } from "../../../adapters/models/mod.ts";
import { startModelServer } from "../../fakes/model_server.ts";

function config(value: Record<string, unknown>): HeraldConfig {
  return ConfigSchema.parse(value);
}

function env(values: Record<string, string> = {}): (name: string) => string | undefined {
  return (name) => values[name];
}

const MAIN = { provider: "openrouter", default: "main-model" };
const KEYS = env({ OPENROUTER_API_KEY: "sk-or", ANTHROPIC_API_KEY: "sk-ant" });

Deno.test("an empty auxiliary slot falls back to the main model, keeping its own timeout", () => {
  const settings = resolveAuxiliarySettings(
    config({ model: MAIN, auxiliary: { title_generation: { timeout: 30 } } }),
    KEYS,
    "title_generation",
  );
  assert.equal(settings.provider, "openrouter");
  assert.equal(settings.model, "main-model");
  assert.equal(settings.apiKey, "sk-or");
  assert.equal(settings.timeoutSeconds, 30);
  assert.equal(settings.timeoutSetting, "auxiliary.title_generation.timeout");
  const unset = resolveAuxiliarySettings(config({ model: MAIN }), KEYS, "compression");
  assert.equal(unset.model, "main-model");
  assert.equal(unset.timeoutSeconds, undefined);
});

Deno.test("a slot's own model is used with the main provider's endpoint and key", () => {
  const settings = resolveAuxiliarySettings(
    config({ model: MAIN, auxiliary: { vision: { model: "small-vision" } } }),
    KEYS,
    "vision",
  );
  assert.equal(settings.provider, "openrouter");
  assert.equal(settings.model, "small-vision");
  assert.equal(settings.baseUrl, "https://openrouter.ai/api/v1");
  assert.equal(settings.apiKey, "sk-or");
  assert.equal(settings.configSection, "auxiliary.vision");
});

Deno.test("a slot with its own provider uses that provider's key", () => {
  const settings = resolveAuxiliarySettings(
    config({
      model: MAIN,
      auxiliary: { kanban_decomposer: { provider: "anthropic", model: "claude-haiku" } },
    }),
    KEYS,
    "kanban_decomposer",
  );
  assert.equal(settings.provider, "anthropic");
  assert.equal(settings.model, "claude-haiku");
  assert.equal(settings.apiKey, "sk-ant");
  assert.equal(settings.baseUrl, "https://api.anthropic.com");
});

Deno.test("a slot with only a base_url is a custom endpoint", () => {
  const settings = resolveAuxiliarySettings(
    config({ model: MAIN, auxiliary: { vision: { base_url: "http://127.0.0.1:7000/v1" } } }),
    KEYS,
    "vision",
  );
  assert.equal(settings.provider, "custom");
  assert.equal(settings.baseUrl, "http://127.0.0.1:7000/v1");
  assert.equal(settings.model, "main-model");
});

Deno.test("a slot that cannot be used falls back to the main model", () => {
  const settings = resolveAuxiliarySettings(
    config({ model: MAIN, auxiliary: { mcp: { provider: "openai", model: "gpt-mini" } } }),
    KEYS,
    "mcp",
  );
  assert.equal(settings.provider, "openrouter");
  assert.equal(settings.model, "main-model");
});

Deno.test("with neither the slot nor the main model usable, no auxiliary client is configured", () => {
  for (
    const value of [
      {},
      { model: { provider: "openrouter" } },
      { model: MAIN, auxiliary: { approval: { provider: "openai", model: "gpt-mini" } } },
    ]
  ) {
    assert.throws(
      () => resolveAuxiliarySettings(config(value), env(), "approval"),
      (error: unknown) => {
        assert.ok(error instanceof ModelError);
        assert.equal(error.code, "model_not_configured");
        assert.match(error.message, /no auxiliary client is configured/i);
        assert.equal(
          error.message,
          "No auxiliary client is configured for approval: set auxiliary.approval.model " +
            "(and provider) or configure the main model",
        );
        return true;
      },
    );
  }
});

Deno.test("callAuxiliary sends the slot's model and returns the text", async () => {
  await using server = await startModelServer({ replies: [{ text: "A short title" }] });
  const cfg = config({
    model: { provider: "custom", base_url: server.openaiBaseUrl, default: "main-model" },
    auxiliary: { title_generation: { model: "title-model" } },
  });
  const factory: ModelClientFactory = (settings) => createModelClient(settings);
  const title = await callAuxiliary(factory, cfg, env(), "title_generation", {
    system: "Write a title.",
    prompt: "We talked about the weather in Tokyo.",
  });
  assert.equal(title, "A short title");
  const body = server.requests[0].body as { model: string; messages: unknown[] };
  assert.equal(body.model, "title-model");
  assert.deepEqual(body.messages, [
    { role: "system", content: "Write a title." },
    { role: "user", content: "We talked about the weather in Tokyo." },
  ]);
});

Deno.test("callAuxiliary applies the slot's timeout and names it", async () => {
  await using server = await startModelServer({
    replies: [{ text: "late", hang: "before-response" }],
  });
  const cfg = config({
    model: { provider: "custom", base_url: server.openaiBaseUrl, default: "main-model" },
    auxiliary: { title_generation: { timeout: 0.1 } },
  });
  await assert.rejects(
    callAuxiliary(createModelClient, cfg, env(), "title_generation", { system: "", prompt: "x" }),
    (error: unknown) =>
      error instanceof ModelError && error.code === "model_unavailable" &&
      error.message.includes("auxiliary.title_generation.timeout"),
  );
});

Deno.test("callAuxiliary rejects with the signal's reason when aborted", async () => {
  await using server = await startModelServer({
    replies: [{ text: "late", hang: "before-response" }],
  });
  const cfg = config({
    model: { provider: "custom", base_url: server.openaiBaseUrl, default: "main-model" },
  });
  const controller = new AbortController();
  const reason = new Error("stop");
  const pending = callAuxiliary(createModelClient, cfg, env(), "compression", {
    system: "",
    prompt: "x",
    signal: controller.signal,
  });
  while (server.requests.length === 0) await new Promise((r) => setTimeout(r, 5));
  controller.abort(reason);
  await assert.rejects(pending, (error) => error === reason);
});

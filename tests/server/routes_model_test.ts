/**
 * `/api/model/*`: the main model and auxiliary slots as a session resolves
 * them (whether a key is present, never the key), the provider table, and
 * `POST /api/model/set` including the subscription's tool-gateway defaults.
 */

import assert from "node:assert/strict";
import { parseConfig } from "../../core/config/mod.ts";
import { tempDir } from "../_helpers.ts";
import { routesApp } from "./_routes.ts";

type Json = Record<string, unknown>;

Deno.test("model info reports provider, model, endpoint and whether a key is present, never the key", async () => {
  await using home = await tempDir();
  const { json, main } = await routesApp(home.path);
  const none = await json("GET", "/api/model/info");
  assert.equal(none.status, 200);
  assert.equal(none.body.provider, null);
  assert.equal(none.body.ready, false);
  assert.match(String(none.body.problem), /No model is set up yet: run `herald setup`/);

  await Deno.writeTextFile(
    main.config,
    "model:\n  provider: openrouter\n  default: some/model\n  context_length: 64000\n",
  );
  const keyless = (await json("GET", "/api/model/info")).body;
  assert.equal(keyless.base_url, "https://openrouter.ai/api/v1");
  assert.equal(keyless.base_url_source, "provider_default");
  assert.equal(keyless.context_length, 64000);
  assert.deepEqual(keyless.credential, {
    env: "OPENROUTER_API_KEY",
    present: false,
    source: null,
    required: true,
  });
  assert.equal(keyless.ready, false);

  await Deno.writeTextFile(main.env, "OPENROUTER_API_KEY=sk-or-v1-secret-abcdef\n");
  const info = await json("GET", "/api/model/info");
  assert.equal(info.body.provider, "openrouter");
  assert.equal(info.body.model, "some/model");
  assert.equal(info.body.wire, "openai");
  assert.equal((info.body.credential as Json).present, true);
  assert.equal((info.body.credential as Json).source, "env_file");
  assert.equal(info.body.ready, true);
  assert.ok(!JSON.stringify(info.body).includes("sk-or-v1-secret"));
});

Deno.test("model info finds a key in the server environment after the profile's .env", async () => {
  await using home = await tempDir();
  const { json, main } = await routesApp(home.path, {
    env: { HOME: home.path, ANTHROPIC_API_KEY: "sk-ant-from-environment" },
  });
  await Deno.writeTextFile(main.config, "model:\n  default: claude-x\n");
  const info = (await json("GET", "/api/model/info")).body;
  assert.equal(info.provider, "anthropic");
  assert.equal(info.provider_source, "detected");
  assert.equal((info.credential as Json).source, "environment");
  assert.ok(!JSON.stringify(info).includes("sk-ant-from"));
});

Deno.test("model options list every provider with labels, wire format, endpoint and key presence", async () => {
  await using home = await tempDir();
  const { json, main } = await routesApp(home.path);
  await Deno.writeTextFile(main.env, "ANTHROPIC_API_KEY=sk-ant-123456789012\n");
  await Deno.writeTextFile(main.config, "model:\n  provider: anthropic\n  default: c\n");
  const { body } = await json("GET", "/api/model/options");
  const providers = body.providers as Json[];
  const anthropic = providers.find((p) => p.id === "anthropic")!;
  assert.equal(anthropic.wire, "anthropic");
  assert.equal(anthropic.base_url, "https://api.anthropic.com");
  assert.equal(anthropic.key_present, true);
  assert.equal(anthropic.current, true);
  const openrouter = providers.find((p) => p.id === "openrouter")!;
  assert.equal(openrouter.key_present, false);
  assert.equal(openrouter.oauth, "pkce");
  const subscription = providers.find((p) => p.id === "herald-subscription")!;
  assert.equal(subscription.key_env, "HERALD_SUBSCRIPTION_TOKEN");
  assert.equal(subscription.oauth, "device_code");
  assert.equal(providers.find((p) => p.id === "custom")!.needs_base_url, true);
  assert.ok(!JSON.stringify(body).includes("sk-ant-1234"));
});

Deno.test("auxiliary lists known tasks even when empty, each resolved with a fallback flag", async () => {
  await using home = await tempDir();
  const { json, main } = await routesApp(home.path);
  await Deno.writeTextFile(
    main.config,
    [
      "model:",
      "  provider: custom",
      "  base_url: http://127.0.0.1:9/v1",
      "  default: main-model",
      "auxiliary:",
      "  title_generation:",
      "    model: small-model",
      "    timeout: 20",
      "  compression:",
      "    provider: anthropic",
      "    model: claude-small",
      "",
    ].join("\n"),
  );
  const { body } = await json("GET", "/api/model/auxiliary");
  const tasks = body.tasks as Json[];
  assert.deepEqual(tasks.map((t) => t.task), [
    "kanban_decomposer",
    "profile_describer",
    "compression",
    "title_generation",
  ]);
  const decomposer = tasks[0];
  assert.equal(decomposer.fallback, true);
  assert.equal((decomposer.resolved as Json).model, "main-model");
  const title = tasks.find((t) => t.task === "title_generation")!;
  assert.equal(title.fallback, false);
  assert.deepEqual(title.resolved, {
    provider: "custom",
    model: "small-model",
    base_url: "http://127.0.0.1:9/v1",
    timeout_seconds: 20,
    credential_present: false,
  });
  const compression = tasks.find((t) => t.task === "compression")!;
  assert.equal(compression.fallback, true, "no Anthropic key: the main model is used");
  assert.match(String(compression.note), /cannot be used/);
});

Deno.test("model set writes provider and model, sends the key to .env and drops the old endpoint", async () => {
  await using home = await tempDir();
  const { json, main } = await routesApp(home.path);
  await Deno.writeTextFile(
    main.config,
    "# mine\nmodel:\n  provider: custom # local\n  base_url: http://127.0.0.1:8080/v1\n  default: llama\n",
  );
  const { status, body } = await json("POST", "/api/model/set", {
    provider: "openrouter",
    model: "anthropic/claude-x",
    api_key: "sk-or-v1-brand-new-key",
  });
  assert.equal(status, 200, JSON.stringify(body));
  assert.equal(body.provider, "openrouter");
  assert.equal(body.base_url, null);
  assert.deepEqual(body.cleared, ["model.base_url"]);
  assert.deepEqual(body.secrets, ["OPENROUTER_API_KEY"]);
  assert.equal(body.tool_gateway, undefined);
  assert.ok(!JSON.stringify(body).includes("brand-new-key"));
  const text = await Deno.readTextFile(main.config);
  assert.ok(text.includes("# mine"));
  assert.match(text, /api_key: \$\{OPENROUTER_API_KEY\}/);
  assert.match(await Deno.readTextFile(main.env), /OPENROUTER_API_KEY=sk-or-v1-brand-new-key/);
  const info = (await json("GET", "/api/model/info")).body;
  assert.equal(info.ready, true);
});

Deno.test("model set refuses empty requests, bad URLs and unknown providers without an endpoint", async () => {
  await using home = await tempDir();
  const { json } = await routesApp(home.path);
  assert.equal((await json("POST", "/api/model/set", {})).status, 400);
  const url = await json("POST", "/api/model/set", { base_url: "ftp://x" });
  assert.equal(url.body.error?.code, "base_url_invalid");
  const unknown = await json("POST", "/api/model/set", { provider: "nope", model: "m" });
  assert.equal(unknown.body.error?.code, "provider_unknown");
  const custom = await json("POST", "/api/model/set", {
    provider: "my-gateway",
    base_url: "http://127.0.0.1:7000/v1",
    model: "m",
  });
  assert.equal(custom.status, 200);
});

Deno.test("choosing the subscription provider routes managed tools through the gateway except tools with the user's own key", async () => {
  await using home = await tempDir();
  const { json, work } = await routesApp(home.path);
  await Deno.writeTextFile(work.env, "FAL_KEY=fal-user-own-key-1234\nEXA_API_KEY=\n");
  await Deno.writeTextFile(
    work.config,
    "tool_gateway:\n  tts:\n    use_gateway: false # was off\n",
  );
  const { status, body } = await json("POST", "/api/model/set", {
    provider: "herald-subscription",
    model: "herald/default",
    api_key: "hst-subscription-token-0001",
    profile: "work",
  });
  assert.equal(status, 200, JSON.stringify(body));
  assert.deepEqual(body.tool_gateway, {
    applied: ["web_search", "tts"],
    skipped: [{ tool: "image_generation", key_env: "FAL_KEY" }],
  });
  assert.deepEqual(body.secrets, ["HERALD_SUBSCRIPTION_TOKEN"]);
  const text = await Deno.readTextFile(work.config);
  assert.ok(text.includes("# was off"));
  const config = parseConfig(text, work.config).config;
  assert.equal(config.model.provider, "herald-subscription");
  assert.equal(config.tool_gateway.web_search?.use_gateway, true);
  assert.equal(config.tool_gateway.tts?.use_gateway, true);
  assert.equal(config.tool_gateway.image_generation, undefined);
  assert.match(await Deno.readTextFile(work.env), /HERALD_SUBSCRIPTION_TOKEN=hst-subscription/);
  const info = (await json("GET", "/api/model/info?profile=work")).body;
  assert.equal(info.base_url, "https://inference.herald-subscription.invalid/v1");
  assert.equal((info.credential as Json).present, true);
});

Deno.test("the subscription defaults look only at the profile's own .env, not another profile's", async () => {
  await using home = await tempDir();
  const { json, main } = await routesApp(home.path);
  await Deno.writeTextFile(main.env, "TAVILY_API_KEY=tvly-default-profile-key\n");
  const { body } = await json("POST", "/api/model/set", {
    provider: "herald-subscription",
    profile: "work",
  });
  assert.deepEqual((body.tool_gateway as Json).applied, ["web_search", "image_generation", "tts"]);
  const inDefault = await json("POST", "/api/model/set", { provider: "herald-subscription" });
  assert.deepEqual((inDefault.body.tool_gateway as Json).skipped, [
    { tool: "web_search", key_env: "TAVILY_API_KEY" },
  ]);
});

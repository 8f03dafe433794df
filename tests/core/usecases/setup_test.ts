/**
 * The setup use cases over a real profile home and the scripted model
 * server: the provider rule every config edit applies, the providers setup
 * offers, listing and saving a choice (the key only in `.env`), the test
 * call, and doctor's online check of the endpoint.
 */

import assert from "node:assert/strict";
import {
  checkKnownProvider,
  planConfigEdits,
  providerProblem,
  UnknownProviderError,
} from "../../../core/config/mod.ts";
import { checkConfig, editConfig, editConfigObject } from "../../../core/usecases/config.ts";
import {
  checkModelEndpoint,
  listedModel,
  listEndpointModels,
  listProfileModels,
  readSetupState,
  saveSetup,
  setupProvider,
  setupProviders,
  testModel,
} from "../../../core/usecases/setup.ts";
import { profilePaths } from "../../../adapters/home/mod.ts";
import { createModelProbe } from "../../../adapters/models/probe.ts";
import { openProfileContext } from "../../../adapters/runtime/profile_context.ts";
import { startModelServer } from "../../fakes/model_server.ts";
import { rawServer } from "../../adapters/models/_setup.ts";
import type { ModelSettings } from "../../../core/models/settings.ts";
import { tempDir } from "../../_helpers.ts";

function profileAt(root: string, env: Record<string, string> = {}) {
  const paths = profilePaths(root, "default");
  return { paths, profile: openProfileContext(paths, env) };
}

function isUnknownProvider(suggestion?: string) {
  return (error: unknown) =>
    error instanceof UnknownProviderError && error.code === "provider_unknown" &&
    error.kind === "usage" && error.details.suggestion === suggestion;
}

Deno.test("a provider typo is refused with a suggestion and the known list, even with an endpoint", () => {
  const typo = providerProblem("openruter");
  assert.equal(typo?.suggestion, "openrouter");
  assert.match(typo!.message, /^Unknown provider "openruter"; did you mean "openrouter"\? /);
  assert.match(typo!.message, /Known providers: openai, openrouter, anthropic, ollama/);
  assert.ok(providerProblem("ollamma", "http://127.0.0.1:11434/v1"));
  assert.equal(providerProblem("openrouter"), null);
  assert.equal(providerProblem("auto"), null);
  assert.equal(providerProblem("my-gateway", "http://127.0.0.1:7000/v1"), null);
  assert.match(providerProblem("my-gateway")!.message, /use "custom" and set model\.base_url/);
  assert.throws(() => checkKnownProvider("anthropik"), isUnknownProvider("anthropic"));
  assert.throws(() => checkKnownProvider("my-gateway"), isUnknownProvider(undefined));
});

Deno.test("config edits refuse an unknown model.provider from the CLI and the dashboard alike", async () => {
  await using home = await tempDir();
  const { paths, profile } = profileAt(home.path);
  await assert.rejects(
    () => editConfig(profile, [{ key: "model.provider", value: "openruter" }]),
    isUnknownProvider("openrouter"),
  );
  await assert.rejects(
    () => editConfigObject(profile, { model: { provider: "openruter" } }),
    isUnknownProvider("openrouter"),
  );
  await assert.rejects(() => Deno.stat(paths.config), Deno.errors.NotFound);
  // A name of one's own is fine once the same edit gives it an endpoint.
  const plan = planConfigEdits("", "config.yaml", [
    { key: "model.provider", value: "my-gateway" },
    { key: "model.base_url", value: "http://127.0.0.1:7000/v1" },
  ]);
  assert.deepEqual(plan.changed, ["model.provider", "model.base_url"]);
  await editConfig(profile, [{ key: "model.provider", value: "openrouter" }]);
  assert.match(await Deno.readTextFile(paths.config), /provider: openrouter/);
});

Deno.test("doctor's config checks fail on an unknown provider already in config.yaml", async () => {
  await using home = await tempDir();
  const { paths, profile } = profileAt(home.path);
  await Deno.mkdir(paths.home, { recursive: true });
  await Deno.writeTextFile(paths.config, "model:\n  provider: openruter\n  default: m\n");
  const model = (await checkConfig(profile)).find((check) => check.name === "model")!;
  assert.equal(model.status, "fail");
  assert.match(model.detail, /did you mean "openrouter"\?/);
});

Deno.test("setup offers every known provider, custom last, and asks what each needs", () => {
  const providers = setupProviders();
  assert.equal(providers.at(-1)!.id, "custom");
  assert.equal(providers.at(-1)!.label, "custom (OpenAI-compatible local server)");
  const byId = new Map(providers.map((provider) => [provider.id, provider]));
  assert.deepEqual(
    [byId.get("ollama")!.asks_base_url, byId.get("ollama")!.asks_key],
    [true, false],
  );
  assert.equal(byId.get("ollama")!.default_base_url, "http://127.0.0.1:11434/v1");
  assert.deepEqual(
    [byId.get("openrouter")!.asks_base_url, byId.get("openrouter")!.asks_key],
    [false, true],
  );
  assert.deepEqual(
    [byId.get("custom")!.asks_base_url, byId.get("custom")!.asks_key],
    [true, true],
  );
  assert.equal(byId.get("custom")!.key_optional, true);
  assert.equal(setupProvider("my-gateway").asks_base_url, true);
  assert.throws(() => setupProvider("openruter"), isUnknownProvider("openrouter"));
});

Deno.test("a setup choice is listed with the typed key, saved with the key only in .env, and tested", async () => {
  await using home = await tempDir();
  await using server = await startModelServer({
    requireKey: "sk-setup-secret-4242",
    models: ["gpt-test", "other-model"],
    replies: [{ text: "OK" }],
  });
  const { paths, profile } = profileAt(home.path);
  const probe = createModelProbe();
  const choice = {
    provider: "custom",
    base_url: server.openaiBaseUrl,
    api_key: "sk-setup-secret-4242",
  };
  const listed = await listEndpointModels(profile, probe, choice);
  assert.ok(listed.ok);
  assert.deepEqual(listed.models, ["gpt-test", "other-model"]);

  const saved = await saveSetup(profile, { ...choice, model: "gpt-test" });
  assert.deepEqual(saved.secrets, ["CUSTOM_API_KEY"]);
  const config = await Deno.readTextFile(paths.config);
  assert.ok(!config.includes("sk-setup-secret-4242"), config);
  assert.match(config, /provider: custom/);
  assert.match(config, new RegExp(`base_url: ${server.openaiBaseUrl}`));
  assert.match(config, /default: gpt-test/);
  assert.match(await Deno.readTextFile(paths.env), /^CUSTOM_API_KEY=sk-setup-secret-4242$/m);
  assert.equal(Deno.statSync(paths.env).mode! & 0o777, 0o600);

  const state = await readSetupState(profile);
  assert.deepEqual(
    [state.provider, state.model, state.base_url, state.key_present],
    ["custom", "gpt-test", server.openaiBaseUrl, true],
  );
  // Without a typed key, the stored one is sent.
  assert.ok(
    (await listEndpointModels(profile, probe, {
      provider: "custom",
      base_url: server.openaiBaseUrl,
    })).ok,
  );
  const test = await testModel(profile, probe);
  assert.ok(test.ok, JSON.stringify(test));
  assert.equal(test.text, "OK");
  const call = server.requests.find((request) => request.path === "/v1/chat/completions")!;
  assert.equal((call.body as { model: string }).model, "gpt-test");
});

Deno.test("a provider's default endpoint is not written, and a test of nothing configured is an outcome", async () => {
  await using home = await tempDir();
  const { paths, profile } = profileAt(home.path);
  const test = await testModel(profile, createModelProbe());
  assert.ok(!test.ok && test.code === "model_not_configured");
  await saveSetup(profile, {
    provider: "ollama",
    base_url: "http://127.0.0.1:11434/v1",
    model: "qwen3:8b",
  });
  const config = await Deno.readTextFile(paths.config);
  assert.ok(!config.includes("base_url"), config);
  assert.match(config, /default: qwen3:8b/);
});

Deno.test("the online check passes when the model is listed and fails naming what is wrong", async () => {
  await using home = await tempDir();
  await using server = await startModelServer({ requireKey: "sk-doc", models: ["gpt-test"] });
  const { paths, profile } = profileAt(home.path);
  const probe = createModelProbe();
  assert.equal(await checkModelEndpoint(profile, probe), null, "nothing configured: skipped");

  await saveSetup(profile, {
    provider: "custom",
    base_url: server.openaiBaseUrl,
    model: "gpt-test",
    api_key: "sk-doc",
  });
  const ok = await checkModelEndpoint(profile, probe);
  assert.equal(ok?.status, "ok", ok?.detail);
  assert.match(ok!.detail, /"gpt-test" is available/);

  await saveSetup(profile, {
    provider: "custom",
    base_url: server.openaiBaseUrl,
    model: "gpt-tset",
  });
  const missing = await checkModelEndpoint(profile, probe);
  assert.equal(missing?.status, "fail");
  assert.match(
    missing!.detail,
    /"gpt-tset" is not among the 1 models .* \(did you mean "gpt-test"\?\)/,
  );

  await Deno.writeTextFile(paths.env, "CUSTOM_API_KEY=sk-wrong\n");
  const refused = await checkModelEndpoint(profile, probe);
  assert.equal(refused?.status, "fail");
  assert.match(refused!.detail, /rejected the key \(HTTP 401\)/);

  const view = await listProfileModels(profile, probe);
  assert.equal(view.state.model, "gpt-tset");
  assert.ok(view.listing && !view.listing.ok && view.listing.code === "auth");
});

Deno.test("the online check falls back to a test call when the endpoint lists no models", async () => {
  await using home = await tempDir();
  const calls: string[] = [];
  await using server = await startModelServer({ replies: [{ text: "OK" }] });
  const { profile } = profileAt(home.path);
  await saveSetup(profile, { provider: "custom", base_url: server.openaiBaseUrl, model: "m" });
  const probe = createModelProbe({
    fetch: (input, init) => {
      const url = input instanceof Request ? input.url : String(input);
      calls.push(url);
      return url.endsWith("/models")
        ? Promise.resolve(new Response("no such route", { status: 404 }))
        : fetch(input, init);
    },
  });
  const check = await checkModelEndpoint(profile, probe);
  assert.equal(check?.status, "ok", check?.detail);
  assert.match(check!.detail, /answered a test message/);
  assert.ok(calls.some((url) => url.endsWith("/chat/completions")));
});

/** A stand-in for OpenRouter: a public model list, and `GET /api/v1/key` that checks the key. */
function openRouterLike(key: string) {
  return rawServer((request) => {
    const path = new URL(request.url).pathname;
    if (path === "/api/v1/models") return Response.json({ data: [{ id: "anthropic/claude-x" }] });
    if (path !== "/api/v1/key") return new Response("not here", { status: 404 });
    return request.headers.get("authorization") === `Bearer ${key}`
      ? Response.json({ data: { label: "mine" } })
      : Response.json({ error: { message: "No auth credentials found" } }, { status: 401 });
  });
}

Deno.test("a public model list does not pass a wrong OpenRouter key: the key check is asked", async () => {
  await using home = await tempDir();
  await using openrouter = await openRouterLike("sk-or-right");
  const { profile } = profileAt(home.path);
  const choice = {
    provider: "openrouter",
    base_url: `${openrouter.url}/api/v1`,
    model: "anthropic/claude-x",
  };
  await saveSetup(profile, { ...choice, api_key: "sk-or-wrong" });
  const refused = await checkModelEndpoint(profile, createModelProbe());
  assert.equal(refused?.status, "fail", refused?.detail);
  assert.match(refused!.detail, /\/api\/v1\/key rejected the key \(HTTP 401\)/);

  await saveSetup(profile, { ...choice, api_key: "sk-or-right" });
  const ok = await checkModelEndpoint(profile, createModelProbe());
  assert.equal(ok?.status, "ok", ok?.detail);
  assert.match(ok!.detail, /"anthropic\/claude-x" is available/);
});

Deno.test("a listed model is found under Ollama's :latest and a provider's dated id", async () => {
  assert.equal(listedModel("llama3.2", ["qwen3:8b", "llama3.2:latest"]), "llama3.2:latest");
  assert.equal(listedModel("llama3.2:latest", ["llama3.2"]), "llama3.2");
  assert.equal(
    listedModel("claude-sonnet-4-5", ["claude-sonnet-4-5-20250929"]),
    "claude-sonnet-4-5-20250929",
  );
  assert.equal(
    listedModel("claude-3-5-sonnet-latest", ["claude-3-5-sonnet-20241022"]),
    "claude-3-5-sonnet-20241022",
  );
  assert.equal(listedModel("gpt-4o", ["gpt-4o-2024-08-06"]), "gpt-4o-2024-08-06");
  assert.equal(listedModel("gpt-4", ["gpt-4o", "gpt-4-turbo"]), undefined);
  assert.equal(listedModel("a.b", ["axb-20250101"]), undefined);

  await using home = await tempDir();
  await using server = await startModelServer({ models: ["llama3.2:latest"] });
  const { profile } = profileAt(home.path);
  await saveSetup(profile, {
    provider: "ollama",
    base_url: server.openaiBaseUrl,
    model: "llama3.2",
  });
  const check = await checkModelEndpoint(profile, createModelProbe());
  assert.equal(check?.status, "ok", check?.detail);
  assert.match(check!.detail, /"llama3\.2" is available \(listed as "llama3\.2:latest"\)/);
  assert.ok(!server.requests.some((request) => request.method === "POST"), "no test call needed");
});

Deno.test("a model the list does not name gets a test call before the check fails", async () => {
  await using home = await tempDir();
  await using server = await startModelServer({
    models: ["other-model"],
    replies: [{ text: "OK" }],
  });
  const { profile } = profileAt(home.path);
  await saveSetup(profile, { provider: "custom", base_url: server.openaiBaseUrl, model: "alias" });
  const check = await checkModelEndpoint(profile, createModelProbe());
  assert.equal(check?.status, "ok", check?.detail);
  assert.match(check!.detail, /does not list "alias", but it answered a test message/);
  const call = server.requests.find((request) => request.path === "/v1/chat/completions")!;
  assert.equal((call.body as { model: string }).model, "alias");
});

Deno.test("every test call of setup and doctor has a timeout and no retries", async () => {
  await using home = await tempDir();
  await using server = await startModelServer({ replies: [{ text: "OK" }, { text: "OK" }] });
  const { profile } = profileAt(home.path);
  await saveSetup(profile, { provider: "custom", base_url: server.openaiBaseUrl, model: "m" });
  const real = createModelProbe({
    fetch: (input, init) => {
      const url = input instanceof Request ? input.url : String(input);
      return url.endsWith("/models")
        ? Promise.resolve(new Response("no such route", { status: 404 }))
        : fetch(input, init);
    },
  });
  const sent: ModelSettings[] = [];
  const probe = {
    ...real,
    testCall: (settings: ModelSettings) => {
      sent.push(settings);
      return real.testCall(settings);
    },
  };
  assert.equal((await checkModelEndpoint(profile, probe))?.status, "ok");
  assert.ok((await testModel(profile, probe)).ok);
  assert.equal(sent.length, 2);
  for (const settings of sent) {
    assert.equal(settings.maxRetries, 0);
    assert.equal(settings.timeoutSeconds, 60);
  }
});

Deno.test("doctor warns, not fails, on a provider name of its own near a known one that has an endpoint", async () => {
  await using home = await tempDir();
  await using server = await startModelServer({ models: ["gpt-test"] });
  const { paths, profile } = profileAt(home.path);
  await Deno.mkdir(paths.home, { recursive: true });
  await Deno.writeTextFile(
    paths.config,
    `model:\n  provider: ollama2\n  base_url: ${server.openaiBaseUrl}\n  default: gpt-test\n`,
  );
  const model = (await checkConfig(profile)).find((check) => check.name === "model")!;
  assert.equal(model.status, "warn", model.detail);
  assert.match(
    model.detail,
    /"ollama2" is not a known provider; it is used as an OpenAI-compatible/,
  );
  assert.match(model.detail, /If you meant "ollama"/);
  const endpoint = await checkModelEndpoint(profile, createModelProbe());
  assert.equal(endpoint?.status, "ok", endpoint?.detail);
  await assert.rejects(
    () => editConfig(profile, [{ key: "model.provider", value: "ollama3" }]),
    isUnknownProvider("ollama"),
  );
});

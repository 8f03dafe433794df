/**
 * The model probe (adapters/models/probe.ts) against the scripted model
 * server and raw HTTP servers: model lists in both wire formats, a refused
 * key, an endpoint without a list, an HTML page, a closed port; the test
 * call; and connection errors of real model calls naming the URL and the
 * setting to check.
 */

import assert from "node:assert/strict";
import { ModelError } from "../../../core/errors.ts";
import { createModelClient } from "../../../adapters/models/client.ts";
import { createModelProbe, modelsUrl } from "../../../adapters/models/probe.ts";
import { startModelServer } from "../../fakes/model_server.ts";
import { rawServer } from "./_setup.ts";

/** A port nothing listens on. */
function closedPort(): number {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const { port } = listener.addr;
  listener.close();
  return port;
}

Deno.test("the probe lists an OpenAI-compatible server's models with the key", async () => {
  await using server = await startModelServer({ requireKey: "sk-probe", models: ["a", "b"] });
  const probe = createModelProbe();
  const listed = await probe.listModels({
    provider: "custom",
    wire: "openai",
    baseUrl: `${server.openaiBaseUrl}/`,
    apiKey: "sk-probe",
  });
  assert.deepEqual(listed, { ok: true, url: `${server.openaiBaseUrl}/models`, models: ["a", "b"] });
  assert.equal(server.requests[0].headers.authorization, "Bearer sk-probe");
});

Deno.test("the probe lists Anthropic's models with x-api-key and the version header", async () => {
  await using server = await startModelServer({ requireKey: "sk-ant", models: ["claude-x"] });
  const listed = await createModelProbe().listModels({
    provider: "anthropic",
    wire: "anthropic",
    baseUrl: server.anthropicBaseUrl,
    apiKey: "sk-ant",
  });
  assert.ok(listed.ok);
  assert.deepEqual(listed.models, ["claude-x"]);
  assert.equal(listed.url, `${server.url}/v1/models`);
  assert.equal(server.requests[0].headers["x-api-key"], "sk-ant");
  assert.ok(server.requests[0].headers["anthropic-version"]);
});

Deno.test("a refused key is an auth outcome that names the URL and the login command", async () => {
  await using server = await startModelServer({ requireKey: "sk-right" });
  const listed = await createModelProbe().listModels({
    provider: "openrouter",
    wire: "openai",
    baseUrl: server.openaiBaseUrl,
    apiKey: "sk-wrong-key-value",
  });
  assert.equal(listed.ok, false);
  assert.ok(!listed.ok && listed.code === "auth");
  assert.ok(listed.message.includes(`${server.openaiBaseUrl}/models`), listed.message);
  assert.match(listed.message, /HTTP 401/);
  assert.match(listed.message, /herald login openrouter/);
  assert.ok(!listed.message.includes("sk-wrong-key-value"));
});

Deno.test("an endpoint without a model list, and an HTML page, are told apart", async () => {
  await using missing = await rawServer(() => new Response("not here", { status: 404 }));
  const unsupported = await createModelProbe().listModels({
    provider: "custom",
    wire: "openai",
    baseUrl: missing.url,
  });
  assert.ok(!unsupported.ok && unsupported.code === "unsupported", JSON.stringify(unsupported));
  await using site = await rawServer(() =>
    new Response("<!doctype html><html><body>Welcome</body></html>", {
      headers: { "content-type": "text/html" },
    })
  );
  const html = await createModelProbe().listModels({
    provider: "custom",
    wire: "openai",
    baseUrl: site.url,
  });
  assert.ok(!html.ok && html.code === "bad_response");
  assert.match(html.message, /HTML page/);
});

Deno.test("a closed port is unreachable: the URL, the reason and the setting to check", async () => {
  const base = `http://127.0.0.1:${closedPort()}/v1`;
  const listed = await createModelProbe().listModels({
    provider: "custom",
    wire: "openai",
    baseUrl: base,
  });
  assert.ok(!listed.ok && listed.code === "unreachable");
  assert.equal(
    listed.message,
    `Cannot reach ${base}/models: connection refused; is the server running? ` +
      "check model.base_url (herald config get model.base_url)",
  );
});

Deno.test("the test call sends one short message and reports the answer", async () => {
  await using server = await startModelServer({ replies: [{ text: "OK" }] });
  const outcome = await createModelProbe().testCall({
    provider: "custom",
    model: "gpt-test",
    baseUrl: server.openaiBaseUrl,
    maxRetries: 0,
  });
  assert.deepEqual(outcome, { ok: true, text: "OK", finishReason: "stop" });
  const body = server.requests[0].body as { max_tokens: number; messages: unknown[] };
  assert.equal(body.messages.length, 1);
  assert.ok(body.max_tokens > 0);
});

Deno.test("a failed test call is an outcome with the model error's code", async () => {
  await using server = await startModelServer({ requireKey: "sk-right" });
  const outcome = await createModelProbe().testCall({
    provider: "openrouter",
    model: "gpt-test",
    baseUrl: server.openaiBaseUrl,
    apiKey: "sk-wrong",
    maxRetries: 0,
  });
  assert.ok(!outcome.ok && outcome.code === "model_auth", JSON.stringify(outcome));
});

Deno.test("the models URL follows each wire format", () => {
  assert.equal(
    modelsUrl({ wire: "openai", baseUrl: "http://h:1/v1/" }),
    "http://h:1/v1/models",
  );
  assert.equal(
    modelsUrl({ wire: "anthropic", baseUrl: "https://api.anthropic.com" }),
    "https://api.anthropic.com/v1/models",
  );
});

for (const wire of ["openai", "anthropic"] as const) {
  Deno.test(`the ${wire} client names a closed port says to check the server and model.base_url`, async () => {
    const base = `http://127.0.0.1:${closedPort()}${wire === "openai" ? "/v1" : ""}`;
    const provider = wire === "openai" ? "custom" : "anthropic";
    const client = createModelClient(
      { provider, model: "m", baseUrl: base, apiKey: "k", maxRetries: 0 },
      { retryBaseMs: 1 },
    );
    const error = await client.complete({
      system: "",
      messages: [{ role: "user", content: "hi" }],
      tools: [],
    }).then(() => undefined, (e) => e);
    assert.ok(error instanceof ModelError, String(error));
    assert.equal(error.code, "model_unavailable");
    assert.equal(
      error.message,
      `Cannot reach ${provider} at ${base}: connection refused; is the server running? ` +
        "check model.base_url (herald config get model.base_url)",
    );
  });
}

Deno.test("a host name that does not resolve is named as such", async () => {
  const client = createModelClient(
    { provider: "custom", model: "m", baseUrl: "http://no-such-host.invalid/v1", maxRetries: 0 },
  );
  const error = await client.complete({
    system: "",
    messages: [{ role: "user", content: "hi" }],
    tools: [],
  }).then(() => undefined, (e) => e);
  assert.ok(error instanceof ModelError);
  assert.match(error.message, /^Cannot reach custom at http:\/\/no-such-host\.invalid\/v1: /);
  assert.match(error.message, /host name was not found; is the server running\?/);
});

Deno.test("https to a plain HTTP server is a TLS failure naming the URL", async () => {
  await using plain = await rawServer(() => new Response("{}"));
  const base = plain.url.replace("http://", "https://");
  const client = createModelClient(
    { provider: "custom", model: "m", baseUrl: base, maxRetries: 0 },
  );
  const error = await client.complete({
    system: "",
    messages: [{ role: "user", content: "hi" }],
    tools: [],
  }).then(() => undefined, (e) => e);
  assert.ok(error instanceof ModelError);
  assert.ok(error.message.startsWith(`Cannot reach custom at ${base}: the TLS handshake failed`));
  assert.match(error.message, /check model\.base_url/);
});

Deno.test("a redirect is not followed with the key: the outcome names the URL and the setting", async () => {
  await using elsewhere = await rawServer(() => Response.json({ data: [{ id: "m" }] }));
  await using moved = await rawServer(() => Response.redirect(`${elsewhere.url}/v1/models`, 302));
  for (const wire of ["anthropic", "openai"] as const) {
    const listed = await createModelProbe().listModels({
      provider: wire === "anthropic" ? "anthropic" : "custom",
      wire,
      baseUrl: `${moved.url}/v1`,
      apiKey: "sk-secret-redirect",
    });
    assert.ok(!listed.ok, JSON.stringify(listed));
    assert.match(
      listed.message,
      /redirected \(HTTP 302\) to http:\/\/127\.0\.0\.1:\d+\/v1\/models/,
    );
    assert.match(listed.message, /Herald does not follow redirects with your key/);
    assert.match(listed.message, /model\.base_url/);
  }
  assert.equal(elsewhere.hits, 0, "the key never reached the other address");
});

Deno.test("the key check asks <base_url>/key with the key and reports a refusal", async () => {
  await using openrouter = await rawServer((request) =>
    request.headers.get("authorization") === "Bearer sk-or-right"
      ? Response.json({ data: { label: "mine" } })
      : Response.json({ error: { message: "No auth credentials found" } }, { status: 401 })
  );
  const endpoint = {
    provider: "openrouter",
    wire: "openai" as const,
    baseUrl: `${openrouter.url}/api/v1/`,
  };
  const probe = createModelProbe();
  assert.deepEqual(await probe.checkKey({ ...endpoint, apiKey: "sk-or-right" }, "/key"), {
    ok: true,
    url: `${openrouter.url}/api/v1/key`,
  });
  const refused = await probe.checkKey({ ...endpoint, apiKey: "sk-or-wrong" }, "/key");
  assert.ok(!refused.ok && refused.code === "auth", JSON.stringify(refused));
  assert.match(refused.message, /\/api\/v1\/key rejected the key \(HTTP 401\)/);
  assert.match(refused.message, /herald login openrouter/);
});

/** fetchJson: JSON answers, fast-failing 429s, HTML pages, error excerpts and timeouts. */

import assert from "node:assert/strict";
import { ModelError } from "../../../core/errors.ts";
import { fetchJson } from "../../../adapters/models/http.ts";
import { startModelServer } from "../../fakes/model_server.ts";
import { rawServer } from "./_setup.ts";

async function rejection(promise: Promise<unknown>): Promise<ModelError> {
  const error = await promise.then(() => assert.fail("expected a rejection"), (e: unknown) => e);
  assert.ok(error instanceof ModelError, `expected a ModelError, got ${error}`);
  assert.ok(!error.message.includes("\n"), "the message is one line");
  return error;
}

Deno.test("fetchJson parses a JSON answer", async () => {
  await using server = await startModelServer({ models: ["m-one", "m-two"] });
  const list = await fetchJson<{ data: { id: string }[] }>(`${server.openaiBaseUrl}/models`, {
    headers: { authorization: "Bearer k" },
    timeoutMs: 5000,
  });
  assert.deepEqual(list.data.map((model) => model.id), ["m-one", "m-two"]);
  assert.equal(server.requests[0].headers["accept"], "application/json");
  assert.equal(server.requests[0].headers["authorization"], "Bearer k");
});

Deno.test("a 429 fails at once with model_rate_limited and an actionable message", async () => {
  await using api = await rawServer(() =>
    Response.json({ error: { message: "Too many requests" } }, {
      status: 429,
      headers: { "retry-after": "30" },
    })
  );
  const error = await rejection(fetchJson(`${api.url}/v1/models`));
  assert.equal(error.code, "model_rate_limited");
  assert.equal(error.status, 429);
  assert.equal(api.hits, 1);
  assert.equal(
    error.message,
    `${api.url}/v1/models is rate limiting requests (HTTP 429) (retry after 30 s): ` +
      "Too many requests; wait a moment and try again",
  );
});

Deno.test("an HTML page where JSON was expected is rejected naming the URL", async () => {
  await using site = await rawServer(() =>
    new Response("<html><body><h1>Welcome</h1></body></html>", {
      headers: { "content-type": "text/html" },
    })
  );
  const error = await rejection(fetchJson(`${site.url}/models`));
  assert.equal(error.code, "model_bad_response");
  assert.ok(error.message.startsWith(`${site.url}/models answered with an HTML page`));
});

Deno.test("an HTML page sent without a content type is still recognised", async () => {
  await using site = await rawServer(() =>
    new Response(new TextEncoder().encode("<!DOCTYPE html><html><p>hi</p></html>"))
  );
  const error = await rejection(fetchJson(`${site.url}/models`));
  assert.equal(error.code, "model_bad_response");
  assert.match(error.message, /HTML page/);
});

Deno.test("a non-2xx answer quotes the status and a short excerpt of the body", async () => {
  const long = `Upstream exploded: ${"x".repeat(500)}`;
  await using api = await rawServer(() => new Response(long, { status: 502 }));
  const error = await rejection(fetchJson(`${api.url}/v1/models`, { provider: "custom" }));
  assert.equal(error.code, "model_unavailable");
  assert.equal(error.status, 502);
  assert.equal(error.provider, "custom");
  assert.match(error.message, /answered HTTP 502: Upstream exploded: x+…$/);
  assert.ok(error.message.length < 300);
});

Deno.test("a 404 is model_bad_request with the provider's own message", async () => {
  await using api = await rawServer(() =>
    Response.json({ error: { message: "No such route" } }, { status: 404 })
  );
  const error = await rejection(fetchJson(`${api.url}/v2/nothing`));
  assert.equal(error.code, "model_bad_request");
  assert.match(error.message, /answered HTTP 404: No such route$/);
});

Deno.test("text that is not JSON is model_bad_response", async () => {
  await using api = await rawServer(() => new Response("plain words"));
  const error = await rejection(fetchJson(api.url));
  assert.equal(error.code, "model_bad_response");
  assert.match(error.message, /not JSON: plain words$/);
});

Deno.test("a timeout says which timeout expired", async () => {
  await using server = await startModelServer({
    replies: [{ text: "late", hang: "before-response" }],
  });
  const error = await rejection(fetchJson(`${server.openaiBaseUrl}/chat/completions`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ model: "m", messages: [] }),
    timeoutMs: 100,
    timeoutName: "auxiliary.mcp.timeout",
  }));
  assert.equal(error.code, "model_unavailable");
  assert.equal(
    error.message,
    `${server.openaiBaseUrl}/chat/completions did not answer within the 100 ms auxiliary.mcp.timeout`,
  );
});

Deno.test("the caller's abort rejects with the signal's reason", async () => {
  await using server = await startModelServer({
    replies: [{ text: "late", hang: "before-response" }],
  });
  const controller = new AbortController();
  const reason = new Error("user pressed ctrl-c");
  const pending = fetchJson(`${server.openaiBaseUrl}/chat/completions`, {
    method: "POST",
    body: JSON.stringify({ model: "m", messages: [] }),
    signal: controller.signal,
  });
  while (server.requests.length === 0) await new Promise((r) => setTimeout(r, 5));
  controller.abort(reason);
  await assert.rejects(pending, (error) => error === reason);
});

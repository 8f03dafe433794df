/**
 * Behaviour both model clients share, run against the scripted model server
 * over real HTTP in each wire format: streaming, tool calls, usage, retries,
 * error mapping, aborts and timeouts.
 */

import assert from "node:assert/strict";
import { ModelError } from "../../../core/errors.ts";
import type { ModelNotice, ModelRequest } from "../../../core/models/types.ts";
import { createModelClient } from "../../../adapters/models/mod.ts";
import { startModelServer } from "../../fakes/model_server.ts";
import { FAST, rawServer, settingsFor, WIRES } from "./_setup.ts";

const ASK: ModelRequest = {
  system: "You are terse.",
  messages: [{ role: "user", content: "Weather in Tokyo?" }],
  tools: [],
};

/** Asserts that `promise` rejects with a ModelError of `code` and returns it. */
async function rejectsWith(promise: Promise<unknown>, code: string): Promise<ModelError> {
  const error = await promise.then(
    () => assert.fail(`expected a ${code} error`),
    (error: unknown) => error,
  );
  assert.ok(error instanceof ModelError, `expected a ModelError, got ${error}`);
  assert.equal(error.code, code, error.message);
  assert.ok(!error.message.includes("\n"), "the message is one line");
  return error;
}

for (const wire of WIRES) {
  const name = (sentence: string) => `${wire.wire}: ${sentence}`;

  Deno.test(name("streamed text arrives through onText in order"), async () => {
    const text = "It is sunny in Tokyo, 21°C, with a light breeze from the bay.";
    await using server = await startModelServer({ replies: [{ text, chunkSize: 5 }] });
    const deltas: string[] = [];
    const client = createModelClient(settingsFor(server, wire), FAST);
    const answer = await client.complete(ASK, { onText: (delta) => deltas.push(delta) });
    assert.ok(deltas.length > 5, `expected many deltas, got ${deltas.length}`);
    assert.equal(deltas.join(""), text);
    assert.equal(answer.text, text);
    assert.equal(answer.finishReason, "stop");
    assert.deepEqual(answer.toolCalls, []);
    assert.equal(client.provider, wire.provider);
    assert.equal(client.model, wire.model);
  });

  Deno.test(name("tool calls split across chunks come back whole with raw arguments"), async () => {
    const weather = '{"city": "Tokyo", "units": "metric"}';
    const time = '{"tz": "Asia/Tokyo"}';
    await using server = await startModelServer({
      replies: [{
        text: "Checking.",
        toolCalls: [
          { id: "call_w1", name: "get_weather", arguments: weather },
          { id: "call_t2", name: "get_time", arguments: time },
        ],
        chunkSize: 3,
      }],
    });
    const answer = await createModelClient(settingsFor(server, wire), FAST).complete(ASK);
    assert.equal(answer.text, "Checking.");
    assert.equal(answer.finishReason, "tool_calls");
    assert.deepEqual(answer.toolCalls, [
      { id: "call_w1", name: "get_weather", arguments: weather },
      { id: "call_t2", name: "get_time", arguments: time },
    ]);
  });

  Deno.test(name("usage is reported"), async () => {
    await using server = await startModelServer({
      replies: [{ text: "Done.", usage: { input: 1234, output: 56 } }],
    });
    const answer = await createModelClient(settingsFor(server, wire), FAST).complete(ASK);
    assert.deepEqual(answer.usage, {
      inputTokens: 1234,
      outputTokens: 56,
      cacheReadTokens: 0,
      cacheWriteTokens: 0,
    });
  });

  Deno.test(name("a length stop is reported as length"), async () => {
    await using server = await startModelServer({
      replies: [{ text: "Cut", finishReason: "length" }],
    });
    const answer = await createModelClient(settingsFor(server, wire), FAST).complete(ASK);
    assert.equal(answer.finishReason, "length");
  });

  Deno.test(name("a 503 followed by success is retried"), async () => {
    await using server = await startModelServer({
      replies: [{ status: 503, message: "Overloaded, try again." }, { text: "Back again." }],
    });
    const answer = await createModelClient(settingsFor(server, wire), FAST).complete(ASK);
    assert.equal(answer.text, "Back again.");
    assert.equal(server.requests.length, 2);
  });

  Deno.test(name("each retry is announced with its wait and attempt number"), async () => {
    await using server = await startModelServer({
      replies: [{ status: 503, message: "Overloaded." }, { status: 502 }, { text: "Back." }],
    });
    const notices: ModelNotice[] = [];
    const client = createModelClient(settingsFor(server, wire, { maxRetries: 3 }), FAST);
    const answer = await client.complete(ASK, { onNotice: (notice) => notices.push(notice) });
    assert.equal(answer.text, "Back.");
    assert.deepEqual(notices.map((notice) => notice.code), ["model_retry", "model_retry"]);
    assert.deepEqual(
      notices.map((notice) => [notice.retry?.attempt, notice.retry?.attempts]),
      [[2, 4], [3, 4]],
    );
    assert.match(
      notices[0].message,
      /HTTP 503.*; retrying in (under a second|\d+ s), attempt 2 of 4$/,
    );
  });

  Deno.test(
    name("repeated 5xx gives up after maxRetries + 1 attempts with model_unavailable"),
    async () => {
      await using server = await startModelServer({
        replies: [{ status: 500 }, { status: 502 }, { status: 503, message: "Still down." }],
      });
      const client = createModelClient(settingsFor(server, wire, { maxRetries: 2 }), FAST);
      const error = await rejectsWith(client.complete(ASK), "model_unavailable");
      assert.equal(server.requests.length, 3);
      assert.equal(error.status, 503);
      assert.match(error.message, new RegExp(`^${wire.provider} is unavailable \\(HTTP 503\\)`));
      assert.match(error.message, /Still down \(gave up/);
      assert.match(error.message, /gave up after 3 attempts/);
    },
  );

  Deno.test(name("a 401 fails at once with model_auth naming the key to set"), async () => {
    await using server = await startModelServer({ requireKey: "the-right-key" });
    const client = createModelClient(settingsFor(server, wire, { apiKey: "wrong" }), FAST);
    const error = await rejectsWith(client.complete(ASK), "model_auth");
    assert.equal(server.requests.length, 1);
    assert.equal(error.status, 401);
    assert.equal(error.provider, wire.provider);
    assert.ok(
      error.message.startsWith(
        `${wire.provider} rejected the API key (HTTP 401): run \`herald config set model.api_key <key>\` ` +
          `(stored in .env as ${wire.keyEnv})`,
      ),
      error.message,
    );
  });

  Deno.test(name("a 429 fails fast with model_rate_limited and no retry"), async () => {
    await using server = await startModelServer({
      replies: [
        { status: 429, message: "Slow down.", headers: { "retry-after": "20" } },
        { text: "never sent" },
      ],
    });
    const client = createModelClient(settingsFor(server, wire, { maxRetries: 5 }), FAST);
    const error = await rejectsWith(client.complete(ASK), "model_rate_limited");
    assert.equal(server.requests.length, 1);
    assert.match(error.message, /rate limiting requests \(HTTP 429\) \(retry after 20 s\)/);
    assert.match(error.message, /: Slow down; wait a minute/);
    assert.match(error.message, /try again/);
  });

  Deno.test(name("another 4xx is model_bad_request quoting the provider"), async () => {
    await using server = await startModelServer({
      replies: [{ status: 400, message: "messages.0.content: field required" }],
    });
    const client = createModelClient(settingsFor(server, wire), FAST);
    const error = await rejectsWith(client.complete(ASK), "model_bad_request");
    assert.equal(server.requests.length, 1);
    assert.match(error.message, /rejected the request \(HTTP 400\): messages\.0\.content/);
  });

  Deno.test(name("a 200 HTML page is rejected naming the URL"), async () => {
    await using site = await rawServer(() =>
      new Response("<!doctype html><html><body>Welcome to our homepage</body></html>", {
        headers: { "content-type": "text/html; charset=utf-8" },
      })
    );
    const client = createModelClient(
      { provider: wire.provider, model: wire.model, baseUrl: site.url, apiKey: "k", maxRetries: 3 },
      FAST,
    );
    const error = await rejectsWith(client.complete(ASK), "model_bad_response");
    assert.equal(site.hits, 1, "an HTML page is not retried");
    assert.ok(error.message.includes(site.url), error.message);
    assert.match(error.message, /HTML page/);
  });

  Deno.test(name("an unreachable endpoint is retried, then model_unavailable"), async () => {
    const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
    const port = listener.addr.port;
    listener.close();
    const client = createModelClient(
      {
        provider: wire.provider,
        model: wire.model,
        baseUrl: `http://127.0.0.1:${port}${wire.wire === "openai" ? "/v1" : ""}`,
        apiKey: "k",
        maxRetries: 1,
      },
      FAST,
    );
    const error = await rejectsWith(client.complete(ASK), "model_unavailable");
    assert.match(
      error.message,
      new RegExp(`Cannot reach ${wire.provider} at http://127\\.0\\.0\\.1`),
    );
    assert.match(error.message, /gave up after 2 attempts/);
  });

  Deno.test(
    name("aborting mid-stream resolves with the partial text and finishReason aborted"),
    async () => {
      const text = "Half of an answer";
      await using server = await startModelServer({
        replies: [{
          text,
          toolCalls: [{ name: "get_weather", arguments: { city: "Tokyo" } }],
          hang: "mid-stream",
        }],
      });
      const controller = new AbortController();
      let shown = "";
      const answer = await createModelClient(settingsFor(server, wire), FAST).complete(
        { ...ASK, signal: controller.signal },
        {
          onText: (delta) => {
            shown += delta;
            if (shown === text) controller.abort();
          },
        },
      );
      assert.equal(answer.text, text);
      assert.equal(answer.finishReason, "aborted");
      assert.deepEqual(answer.toolCalls, []);
      assert.equal(server.requests.length, 1);
    },
  );

  Deno.test(
    name("aborting before the response headers resolves at once with no text"),
    async () => {
      await using server = await startModelServer({
        replies: [{ text: "never", hang: "before-response" }],
      });
      const controller = new AbortController();
      const pending = createModelClient(settingsFor(server, wire), FAST).complete({
        ...ASK,
        signal: controller.signal,
      });
      while (server.requests.length === 0) await new Promise((r) => setTimeout(r, 5));
      controller.abort();
      const answer = await pending;
      assert.equal(answer.text, "");
      assert.equal(answer.finishReason, "aborted");
    },
  );

  Deno.test(name("an already aborted signal sends nothing"), async () => {
    await using server = await startModelServer();
    const answer = await createModelClient(settingsFor(server, wire), FAST).complete({
      ...ASK,
      signal: AbortSignal.abort(),
    });
    assert.equal(answer.finishReason, "aborted");
    assert.equal(server.requests.length, 0);
  });

  Deno.test(name("the call timeout is model_unavailable naming the timeout"), async () => {
    await using server = await startModelServer({
      replies: [{ text: "too late", hang: "before-response" }],
    });
    const client = createModelClient(
      settingsFor(server, wire, {
        timeoutSeconds: 0.2,
        timeoutSetting: "auxiliary.title_generation.timeout",
      }),
      FAST,
    );
    const error = await rejectsWith(client.complete(ASK), "model_unavailable");
    assert.match(
      error.message,
      /did not finish answering within the 200 ms timeout set by auxiliary\.title_generation\.timeout/,
    );
  });

  Deno.test(name("a keyless endpoint is called without an Authorization header"), async () => {
    await using server = await startModelServer({ replies: [{ text: "Local hello." }] });
    const settings = { ...settingsFor(server, wire), apiKey: undefined };
    const answer = await createModelClient(settings, FAST).complete(ASK);
    assert.equal(answer.text, "Local hello.");
    assert.equal(server.requests[0].headers["authorization"], undefined);
    assert.equal(server.requests[0].headers["x-api-key"], undefined);
  });

  Deno.test(name("an error thrown by onText reaches the caller unchanged"), async () => {
    await using server = await startModelServer({ replies: [{ text: "Hello" }] });
    const boom = new RangeError("terminal went away");
    await assert.rejects(
      createModelClient(settingsFor(server, wire), FAST).complete(ASK, {
        onText: () => {
          throw boom;
        },
      }),
      (error) => error === boom,
    );
    assert.equal(server.requests.length, 1);
  });
}

Deno.test("a custom endpoint without a key works with the scripted server", async () => {
  await using server = await startModelServer({ replies: [{ text: "Hi from custom." }] });
  const client = createModelClient(
    { provider: "custom", model: "local-model", baseUrl: server.openaiBaseUrl, maxRetries: 0 },
    FAST,
  );
  const answer = await client.complete(ASK);
  assert.equal(answer.text, "Hi from custom.");
  assert.equal(server.requests[0].path, "/v1/chat/completions");
  assert.equal(server.requests[0].headers["authorization"], undefined);
});

Deno.test("a client for a provider with no endpoint at all is not configured", () => {
  assert.throws(
    () => createModelClient({ provider: "custom", model: "m", maxRetries: 0 }),
    (error: unknown) =>
      error instanceof ModelError && error.code === "model_not_configured" &&
      error.message === "No endpoint for custom: run `herald config set model.base_url <url>`",
  );
});

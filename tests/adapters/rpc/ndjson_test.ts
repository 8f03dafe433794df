/**
 * Newline-delimited JSON-RPC (adapters/rpc/ndjson.ts) against a real
 * subprocess speaking it on stdio, plus the decoder on its own.
 */

import assert from "node:assert/strict";
import { z } from "zod";
import {
  connectNdjson,
  encodeNdjson,
  NdjsonDecoder,
  type RpcConnectionEnd,
} from "../../../adapters/rpc/mod.ts";
import {
  type IncomingNotification,
  method,
  RpcClosedError,
  RpcError,
  RpcErrorCode,
  RpcFramingError,
} from "../../../core/rpc/mod.ts";
import { closeAndEnd, startStdioChild, streamsOf, until } from "./_child.ts";

const encoder = new TextEncoder();

async function rejection(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error("Expected the promise to reject");
}

const confirmMethods = {
  confirm: method(z.object({ question: z.string() }), ({ question }) => `yes to ${question}`),
};

Deno.test("a peer over ndjson and a real child call each other, answers matched by id in any order", async () => {
  await using stdio = startStdioChild("ndjson");
  const connection = connectNdjson(streamsOf(stdio.child), { methods: confirmMethods });
  const { peer } = connection;
  const heard: IncomingNotification[] = [];
  peer.onNotification((n) => heard.push(n));

  assert.deepEqual(await peer.request("echo", { text: "héllo 👋" }), { text: "héllo 👋" });

  // Three held calls answered in reverse order, all in one write.
  const held = [1, 2, 3].map((n) => peer.request("later", { n }));
  await until(() => stdio.received().length >= 4, "the held calls to arrive");
  assert.equal(await peer.request("flush"), 3);
  assert.deepEqual(await Promise.all(held), [{ n: 1 }, { n: 2 }, { n: 3 }]);

  // The child asks first, this side's method answers, then the child answers.
  assert.deepEqual(await peer.request("ask", { question: "deploy?" }), {
    answer: "yes to deploy?",
  });
  assert.ok(
    stdio.received().some((message) =>
      JSON.stringify(message) === '{"jsonrpc":"2.0","id":"srv-1","result":"yes to deploy?"}'
    ),
    "the child got our answer with its own id",
  );

  assert.equal(await peer.request("notify"), "notified");
  assert.deepEqual(heard.map((n) => [n.method, n.params]), [
    ["progress", { step: 1 }],
    ["progress", { step: 2 }],
    ["progress", { step: 3 }],
  ]);

  const unknown = await rejection(peer.request("teleport", {}));
  assert.ok(unknown instanceof RpcError);
  assert.equal(unknown.code, RpcErrorCode.methodNotFound);
  assert.deepEqual(await closeAndEnd(connection), { reason: "closed" });
});

Deno.test("messages cut into 3-byte pieces, multi-byte characters included, arrive whole and in order", async () => {
  await using stdio = startStdioChild("ndjson", true);
  const connection = connectNdjson(streamsOf(stdio.child));
  const text = "héllo 👋 — ünïcödé";
  assert.deepEqual(await connection.peer.request("echo", { text }), { text });
  const held = [connection.peer.request("later", { a: "é" }), connection.peer.request("later", {})];
  await until(() => stdio.received().length >= 3, "the held calls to arrive");
  assert.equal(await connection.peer.request("flush"), 2);
  assert.deepEqual(await Promise.all(held), [{ a: "é" }, {}]);
  await connection.close();
});

Deno.test("a line over the cap ends the connection with line_too_long; pending requests reject with it", async () => {
  await using stdio = startStdioChild("ndjson");
  const connection = connectNdjson(streamsOf(stdio.child), { maxLineBytes: 256 * 1024 });
  const waiting = connection.peer.request("later", {});
  const flooding = connection.peer.request("bad/long-line", { bytes: 1024 * 1024 });
  const end = await connection.ended;
  assert.equal(end.reason, "error");
  const framing = (end as Extract<RpcConnectionEnd, { reason: "error" }>).error;
  assert.ok(framing instanceof RpcFramingError);
  assert.equal(framing.problem, "line_too_long");
  assert.match(framing.message, /over the 262144-byte limit/);
  for (const pending of [waiting, flooding]) {
    const error = await rejection(pending);
    assert.ok(error instanceof RpcClosedError);
    assert.equal(error.cause, framing);
    assert.match(error.message, /over the 262144-byte limit/);
  }
  assert.ok(connection.peer.closed);
});

Deno.test("a log line on stdout is answered -32700 by default and skipped by a client that asks to", async () => {
  {
    await using stdio = startStdioChild("ndjson");
    const connection = connectNdjson(streamsOf(stdio.child));
    assert.equal(await connection.peer.request("bad/log-line"), "after the log line");
    await until(() => stdio.received().length === 2, "the parse error answer");
    const answer = stdio.received()[1] as { id: unknown; error: { code: number } };
    assert.deepEqual([answer.id, answer.error.code], [null, RpcErrorCode.parseError]);
    await connection.close();
  }
  {
    await using stdio = startStdioChild("ndjson");
    const connection = connectNdjson(streamsOf(stdio.child), { replyToParseErrors: false });
    assert.equal(await connection.peer.request("bad/log-line"), "after the log line");
    assert.equal(await connection.peer.request("echo", {}).then(() => "more"), "more");
    assert.equal(stdio.received().length, 2, "only our two requests reached the child");
    await connection.close();
  }
});

Deno.test("when the child exits, pending requests reject with RpcClosedError and the connection ends with eof", async () => {
  await using stdio = startStdioChild("ndjson");
  const connection = connectNdjson(streamsOf(stdio.child));
  const held = connection.peer.request("later", {});
  const exiting = connection.peer.request("exit");
  for (const pending of [held, exiting]) {
    const error = await rejection(pending);
    assert.ok(error instanceof RpcClosedError);
    assert.match(error.message, /closed before "(later|exit)" was answered: the other side ended/);
  }
  assert.deepEqual(await connection.ended, { reason: "eof" });
  assert.equal((await stdio.child.status).code, 0);
  assert.ok(await rejection(connection.peer.notify("late")) instanceof RpcClosedError);
});

Deno.test("the ndjson decoder keeps partial lines, drops CR and blank lines, and caps a line in bytes", () => {
  const decoder = new NdjsonDecoder(8);
  assert.deepEqual(decoder.push(encoder.encode('{"a":1}\r\n\n  \n{"b"')), ['{"a":1}']);
  assert.deepEqual(decoder.push(encoder.encode(":2}\n")), ['{"b":2}']);
  assert.deepEqual(decoder.push(encoder.encode("12345678")), [], "exactly the cap is kept");
  assert.deepEqual(decoder.push(encoder.encode("\n[]")), ["12345678"]);
  assert.deepEqual(decoder.end(), ["[]"], "a last line without a newline still counts");

  const capped = new NdjsonDecoder(8);
  capped.push(encoder.encode("é€")); // 5 bytes in 2 characters
  assert.throws(
    () => capped.push(encoder.encode("abcd")),
    (error: unknown) => error instanceof RpcFramingError && error.problem === "line_too_long",
  );
});

Deno.test("an outgoing message is its JSON and a newline, and may not contain one", () => {
  assert.deepEqual(encodeNdjson('{"a":"é"}'), encoder.encode('{"a":"é"}\n'));
  assert.throws(() => encodeNdjson('{"a":\n1}'), RangeError);
});

/**
 * `Content-Length`-framed JSON-RPC (adapters/rpc/content_length.ts), the
 * Language Server Protocol's base framing, against a real subprocess
 * speaking it on stdio, plus the decoder on its own.
 */

import assert from "node:assert/strict";
import { z } from "zod";
import {
  connectContentLength,
  ContentLengthDecoder,
  encodeContentLength,
  MAX_HEADER_BYTES,
  type RpcConnection,
  type RpcConnectionEnd,
} from "../../../adapters/rpc/mod.ts";
import {
  type IncomingNotification,
  method,
  RpcClosedError,
  RpcFramingError,
  type RpcFramingProblem,
} from "../../../core/rpc/mod.ts";
import { startStdioChild, streamsOf, until } from "./_child.ts";

const encoder = new TextEncoder();

async function rejection(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error("Expected the promise to reject");
}

/** Asserts that `connection` ended on a framing error with `problem`, and returns it. */
async function endedWith(
  connection: RpcConnection,
  problem: RpcFramingProblem,
): Promise<RpcFramingError> {
  const end = await connection.ended;
  assert.equal(end.reason, "error");
  const error = (end as Extract<RpcConnectionEnd, { reason: "error" }>).error;
  assert.ok(error instanceof RpcFramingError, String(error));
  assert.equal(error.problem, problem);
  return error;
}

/** Asserts that `pending` rejected because the connection closed on `cause`. */
async function closedOn(pending: Promise<unknown>, cause: RpcFramingError): Promise<void> {
  const error = await rejection(pending);
  assert.ok(error instanceof RpcClosedError, String(error));
  assert.equal(error.cause, cause);
}

function throwsProblem(run: () => unknown, problem: RpcFramingProblem, pattern?: RegExp): void {
  assert.throws(run, (error: unknown) => {
    assert.ok(error instanceof RpcFramingError, String(error));
    assert.equal(error.problem, problem);
    if (pattern) assert.match(error.message, pattern);
    return true;
  });
}

Deno.test("a peer over Content-Length and a real child call each other, answers matched by id in any order", async () => {
  await using stdio = startStdioChild("content-length");
  const connection = connectContentLength(streamsOf(stdio.child), {
    methods: {
      confirm: method(z.object({ question: z.string() }), ({ question }) => `yes to ${question}`),
    },
  });
  const { peer } = connection;
  const heard: IncomingNotification[] = [];
  peer.onNotification((n) => heard.push(n));

  const message = "héllo 👋";
  assert.deepEqual(await peer.request("echo", { message }), { message });
  const held = [1, 2, 3].map((n) => peer.request("later", { n }));
  await until(() => stdio.received().length >= 4, "the held calls to arrive");
  assert.equal(await peer.request("flush"), 3, "three answers and this one in one chunk");
  assert.deepEqual(await Promise.all(held), [{ n: 1 }, { n: 2 }, { n: 3 }]);
  assert.deepEqual(await peer.request("ask", { question: "format?" }), {
    answer: "yes to format?",
  });
  assert.equal(await peer.request("notify"), "notified");
  assert.deepEqual(heard.map((n) => n.params), [{ step: 1 }, { step: 2 }, { step: 3 }]);
  await connection.close();
});

Deno.test("messages cut into 3-byte pieces, CR LF pairs and multi-byte characters included, arrive whole", async () => {
  await using stdio = startStdioChild("content-length", true);
  const connection = connectContentLength(streamsOf(stdio.child));
  const text = "héllo 👋 — ünïcödé";
  assert.deepEqual(await connection.peer.request("echo", { text }), { text });
  assert.equal(await connection.peer.request("notify"), "notified");
  await connection.close();
});

Deno.test("a header section over 8 KiB ends the connection with header_too_large", async () => {
  await using stdio = startStdioChild("content-length");
  const connection = connectContentLength(streamsOf(stdio.child));
  const pending = connection.peer.request("bad/huge-header", {}, { timeoutMs: 30_000 });
  const error = await endedWith(connection, "header_too_large");
  assert.match(error.message, /over the 8192-byte limit/);
  await closedOn(pending, error);
});

Deno.test("a header section without Content-Length ends the connection with content_length_missing", async () => {
  await using stdio = startStdioChild("content-length");
  const connection = connectContentLength(streamsOf(stdio.child));
  const pending = connection.peer.request("bad/no-length", {}, { timeoutMs: 30_000 });
  const error = await endedWith(connection, "content_length_missing");
  assert.match(error.message, /no Content-Length \(headers: "Content-Type: application/);
  await closedOn(pending, error);
});

Deno.test("a log line on stdout fails at its newline, not after 8 KiB: header_malformed", async () => {
  await using stdio = startStdioChild("content-length");
  const connection = connectContentLength(streamsOf(stdio.child));
  const pending = connection.peer.request("bad/log-line", {}, { timeoutMs: 30_000 });
  const error = await endedWith(connection, "header_malformed");
  await closedOn(pending, error);
});

Deno.test("a body announced over the cap ends the connection with body_too_large", async () => {
  await using stdio = startStdioChild("content-length");
  const connection = connectContentLength(streamsOf(stdio.child), { maxBodyBytes: 1024 });
  const pending = connection.peer.request("bad/big-body", { bytes: 2048 }, { timeoutMs: 30_000 });
  const error = await endedWith(connection, "body_too_large");
  assert.match(error.message, /announces 2048 bytes, over the 1024-byte limit/);
  await closedOn(pending, error);
});

Deno.test("a child that exits mid-message ends the connection with truncated", async () => {
  await using stdio = startStdioChild("content-length");
  const connection = connectContentLength(streamsOf(stdio.child));
  const pending = connection.peer.request("bad/truncate");
  const error = await endedWith(connection, "truncated");
  assert.match(error.message, /after 11 of 100 body bytes/);
  await closedOn(pending, error);
});

Deno.test("the decoder counts bytes, not characters: the protocol notes' test vector", () => {
  const body =
    '{"jsonrpc":"2.0","method":"window/logMessage","params":{"type":3,"message":"héllo 👋"}}';
  assert.equal(body.length, 87);
  const frame = encodeContentLength(body);
  assert.equal(frame.length, 112);
  assert.equal(
    Array.from(frame.subarray(0, 22), (b) => b.toString(16).padStart(2, "0")).join(""),
    "436f6e74656e742d4c656e6774683a2039300d0a0d0a",
  );
  const decoder = new ContentLengthDecoder();
  const texts = [...frame, ...frame].flatMap((byte) => decoder.push(new Uint8Array([byte])));
  assert.deepEqual(texts, [body, body], "byte by byte");
  assert.deepEqual(new ContentLengthDecoder().push(new Uint8Array([...frame, ...frame])), [
    body,
    body,
  ], "two in one chunk");
});

Deno.test("the decoder takes any header case and a UTF-8 Content-Type, and refuses malformed headers", () => {
  const take = (head: string, body = "{}") =>
    new ContentLengthDecoder().push(encoder.encode(`${head}\r\n\r\n${body}`));
  assert.deepEqual(take("content-length: 2"), ["{}"]);
  assert.deepEqual(
    take("Content-Length:2\r\nContent-Type: application/vscode-jsonrpc; charset=utf8"),
    ["{}"],
  );
  assert.deepEqual(take("Content-Length: 2\r\nContent-Length: 2"), ["{}"]);
  throwsProblem(() => take("Content-Length: 12a"), "content_length_invalid", /"12a"/);
  throwsProblem(() => take("Content-Length: -1"), "content_length_invalid");
  throwsProblem(() => take("Content-Length: 2\r\nContent-Length: 3"), "content_length_invalid");
  throwsProblem(
    () => take("Content-Length: 2\r\nContent-Type: text/plain; charset=latin1"),
    "charset_unsupported",
  );
  throwsProblem(() => take("Content-Length 2"), "header_malformed", /"Content-Length 2"/);
  throwsProblem(() => take("Content-Length: 2\r\nX-Name: é"), "header_malformed", /0xc3/);
  throwsProblem(() => take("\r\nContent-Length: 2"), "header_malformed");
  // A bare LF fails as soon as it arrives, before any header end.
  throwsProblem(
    () => new ContentLengthDecoder().push(encoder.encode("Listening on stdio\n")),
    "header_malformed",
  );
});

Deno.test("a header section of exactly 8 KiB is read; one byte more is refused", () => {
  const padded = (total: number) => {
    const start = "Content-Length: 2\r\nX-Pad: ";
    return `${start}${"p".repeat(total - start.length - 4)}\r\n\r\n`;
  };
  assert.equal(encoder.encode(padded(MAX_HEADER_BYTES)).length, MAX_HEADER_BYTES);
  assert.deepEqual(
    new ContentLengthDecoder().push(encoder.encode(padded(MAX_HEADER_BYTES) + "{}")),
    [
      "{}",
    ],
  );
  throwsProblem(
    () => new ContentLengthDecoder().push(encoder.encode(padded(MAX_HEADER_BYTES + 1) + "{}")),
    "header_too_large",
  );
});

Deno.test("the decoder waits for a whole body and says where a cut-off message stopped", () => {
  const decoder = new ContentLengthDecoder();
  assert.deepEqual(decoder.push(encoder.encode("Content-Length: 4\r\n\r\n[1")), []);
  assert.deepEqual(decoder.push(encoder.encode(",]")), ["[1,]"]);
  assert.deepEqual(decoder.end(), []);
  const cut = new ContentLengthDecoder();
  cut.push(encoder.encode("Content-Len"));
  throwsProblem(() => cut.end(), "truncated", /in its header section/);
});

/**
 * The JSON-RPC peer (core/rpc/peer.ts): two peers wired to each other in
 * memory, each message delivered on a later turn of the event loop, with
 * every text on the wire recorded.
 */

import assert from "node:assert/strict";
import { z } from "zod";
import { HeraldError } from "../../../core/errors.ts";
import {
  CallBudget,
  domainError,
  type IncomingNotification,
  method,
  RpcClosedError,
  RpcError,
  RpcErrorCode,
  type RpcMethods,
  RpcPeer,
  type RpcPeerOptions,
  RpcTimeoutError,
} from "../../../core/rpc/mod.ts";

type Wire = Record<string, unknown>;

/** Two peers whose ports deliver to each other; `wire` holds every text sent, parsed. */
function pair(left: RpcPeerOptions = {}, right: RpcPeerOptions = {}) {
  const wire: { from: "a" | "b"; message: unknown }[] = [];
  const peers: { a?: RpcPeer; b?: RpcPeer } = {};
  const port = (from: "a" | "b", to: "a" | "b") => ({
    send(text: string) {
      wire.push({ from, message: JSON.parse(text) });
      setTimeout(() => peers[to]!.receive(text), 0);
    },
  });
  peers.a = new RpcPeer(port("a", "b"), left);
  peers.b = new RpcPeer(port("b", "a"), right);
  return { a: peers.a, b: peers.b, wire };
}

/** A peer whose port only records, so a test can feed it any text. */
function lone(options: RpcPeerOptions = {}) {
  const sent: Wire[] = [];
  const peer = new RpcPeer({ send: (text) => void sent.push(JSON.parse(text)) }, options);
  return { peer, sent };
}

const tick = () => new Promise((resolve) => setTimeout(resolve, 0));

async function rejection(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error("Expected the promise to reject");
}

const echo: RpcMethods = {
  echo: method(z.object({ text: z.string() }), ({ text }) => ({ text })),
};

Deno.test("two peers call each other both ways and each gets its own answer", async () => {
  const { a, b, wire } = pair(
    { methods: { whoami: method(z.object({}), () => "a") } },
    {
      methods: {
        ...echo,
        add: method(z.object({ x: z.number(), y: z.number() }), ({ x, y }) => x + y),
      },
    },
  );
  const [echoed, sum, who] = await Promise.all([
    a.request("echo", { text: "héllo 👋" }),
    a.request("add", { x: 2, y: 3 }),
    b.request("whoami"),
  ]);
  assert.deepEqual(echoed, { text: "héllo 👋" });
  assert.equal(sum, 5);
  assert.equal(who, "a");
  assert.deepEqual(wire[0], {
    from: "a",
    message: { jsonrpc: "2.0", id: 0, method: "echo", params: { text: "héllo 👋" } },
  });
  assert.deepEqual(
    wire.find((w) => w.from === "b" && (w.message as Wire).method === "whoami")?.message,
    { jsonrpc: "2.0", id: 0, method: "whoami" },
    "no params member when the caller gives none",
  );
  assert.equal(a.pending + b.pending, 0);
});

Deno.test("answers are matched by id, whatever order they come back in", async () => {
  const gates = new Map<string, PromiseWithResolvers<void>>();
  const { a } = pair({}, {
    methods: {
      wait: method(z.object({ name: z.string() }), async ({ name }) => {
        const gate = Promise.withResolvers<void>();
        gates.set(name, gate);
        await gate.promise;
        return `done ${name}`;
      }),
    },
  });
  const first = a.request("wait", { name: "first" });
  const second = a.request("wait", { name: "second" });
  const third = a.request("wait", { name: "third" });
  while (gates.size < 3) await tick();
  const order: string[] = [];
  for (const [name, promise] of [["first", first], ["second", second], ["third", third]] as const) {
    promise.then(() => order.push(name));
  }
  gates.get("third")!.resolve();
  assert.equal(await third, "done third");
  gates.get("first")!.resolve();
  assert.equal(await first, "done first");
  gates.get("second")!.resolve();
  assert.equal(await second, "done second");
  assert.deepEqual(order, ["third", "first", "second"]);
});

Deno.test("notifications reach the listeners in order, or the method that serves them, and get no answer", async () => {
  const served: string[] = [];
  const { a, b, wire } = pair({}, {
    methods: {
      "log/served": method(z.object({ line: z.string() }), ({ line }) => void served.push(line)),
    },
  });
  const heard: IncomingNotification[] = [];
  const stop = b.onNotification((n) => heard.push(n));
  b.onNotification(() => {
    throw new Error("a broken listener");
  });
  await a.notify("progress", { step: 1 });
  await a.notify("progress", { step: 2 });
  await a.notify("log/served", { line: "kept" });
  await a.notify("bare");
  while (heard.length < 3) await tick();
  await tick();
  assert.deepEqual(heard.map((n) => [n.method, n.params]), [
    ["progress", { step: 1 }],
    ["progress", { step: 2 }],
    ["bare", undefined],
  ]);
  assert.deepEqual(served, ["kept"]);
  assert.deepEqual(wire.map((w) => w.from), ["a", "a", "a", "a"], "nothing answered");
  stop();
  await a.notify("progress", { step: 3 });
  await tick();
  await tick();
  assert.equal(heard.length, 3, "a stopped listener hears nothing more");
});

Deno.test("an unknown method is -32601, params a schema refuses are -32602, each as RpcError", async () => {
  const { a } = pair({}, { methods: echo });
  const unknown = await rejection(a.request("teleport", {}));
  assert.ok(unknown instanceof RpcError);
  assert.equal(unknown.code, RpcErrorCode.methodNotFound);
  assert.match(unknown.message, /teleport/);

  const bad = await rejection(a.request("echo", { text: 42 }));
  assert.ok(bad instanceof RpcError);
  assert.equal(bad.code, RpcErrorCode.invalidParams);
  assert.match(bad.message, /Invalid params for "echo": .*text/);

  const positional = await rejection(a.request("echo", ["x"]));
  assert.equal((positional as RpcError).code, RpcErrorCode.invalidParams);
});

Deno.test("handler errors carry their code and data: domain errors, Herald errors, a surface's own mapping, bugs", async () => {
  class SurfaceError extends Error {}
  const { a } = pair({}, {
    methods: {
      domain: method(z.object({}), () => {
        throw domainError("session_not_found", "No open session");
      }),
      herald: method(z.object({}), () => {
        throw new HeraldError("board_locked", "unavailable", "The board is busy");
      }),
      surface: method(z.object({}), () => {
        throw new SurfaceError("mapped by the surface");
      }),
      bug: method(z.object({}), () => {
        throw new TypeError("x is undefined");
      }),
    },
    describeError: (error) =>
      error instanceof SurfaceError ? { code: -32042, message: error.message } : undefined,
  });
  const domain = await rejection(a.request("domain")) as RpcError;
  assert.deepEqual([domain.code, domain.data], [-32000, { code: "session_not_found" }]);
  const herald = await rejection(a.request("herald")) as RpcError;
  assert.deepEqual([herald.code, herald.message, herald.data], [
    -32000,
    "The board is busy",
    { code: "board_locked" },
  ]);
  const surface = await rejection(a.request("surface")) as RpcError;
  assert.deepEqual([surface.code, surface.message], [-32042, "mapped by the surface"]);
  const bug = await rejection(a.request("bug")) as RpcError;
  assert.equal(bug.code, RpcErrorCode.internalError);
  assert.match(bug.message, /Internal error: x is undefined/);
});

Deno.test("garbage is answered -32700, a malformed request -32600, and the peer keeps working", async () => {
  const { peer, sent } = lone({ methods: echo });
  await peer.receive("{not json");
  assert.equal(sent.length, 1);
  assert.deepEqual([sent[0].id, (sent[0].error as Wire).code], [null, RpcErrorCode.parseError]);

  await peer.receive(JSON.stringify({ jsonrpc: "1.0", id: 7, method: "echo" }));
  assert.deepEqual([sent[1].id, (sent[1].error as Wire).code], [7, RpcErrorCode.invalidRequest]);
  await peer.receive(JSON.stringify({ jsonrpc: "2.0", id: { no: 1 }, method: "echo" }));
  assert.deepEqual([sent[2].id, (sent[2].error as Wire).code], [null, RpcErrorCode.invalidRequest]);
  await peer.receive("[]");
  assert.equal((sent[3].error as Wire).code, RpcErrorCode.invalidRequest);

  await peer.receive(
    JSON.stringify({ jsonrpc: "2.0", id: "ok", method: "echo", params: { text: "still" } }),
  );
  assert.deepEqual(sent[4], { jsonrpc: "2.0", id: "ok", result: { text: "still" } });
});

Deno.test("a client that skips garbage answers nothing for it", async () => {
  const { peer, sent } = lone({ replyToParseErrors: false });
  await peer.receive("npm warn: this is a log line, not JSON");
  assert.deepEqual(sent, []);
});

Deno.test("a batch is answered with one array in order; responses in it settle this side's requests", async () => {
  const { peer, sent } = lone({ methods: echo });
  const asked = peer.request("question");
  await peer.receive(JSON.stringify([
    { jsonrpc: "2.0", id: 1, method: "echo", params: { text: "one" } },
    { jsonrpc: "2.0", id: 0, result: "the answer" },
    { jsonrpc: "2.0", method: "echo", params: { text: "a notification" } },
    { jsonrpc: "2.0", id: 2, method: "nope" },
  ]));
  assert.equal(await asked, "the answer");
  const batch = sent.at(-1) as unknown as Wire[];
  assert.ok(Array.isArray(batch));
  assert.deepEqual(batch.map((answer) => answer.id), [1, 2]);
  assert.deepEqual(batch[0].result, { text: "one" });
  assert.equal((batch[1].error as Wire).code, RpcErrorCode.methodNotFound);
});

Deno.test("a response that answers nothing of ours is dropped, never answered (no ping-pong)", async () => {
  const { peer, sent } = lone({ methods: echo });
  await peer.receive(JSON.stringify({ jsonrpc: "2.0", id: 99, result: 1 }));
  await peer.receive(
    JSON.stringify({ jsonrpc: "2.0", id: null, error: { code: -32700, message: "x" } }),
  );
  assert.deepEqual(sent, []);
});

Deno.test("closing the peer rejects every pending request with RpcClosedError and sends nothing more", async () => {
  const { a, b, wire } = pair({}, {
    methods: { never: method(z.object({}), () => new Promise(() => {})) },
  });
  const first = a.request("never");
  const second = a.request("never", {}, { timeoutMs: 60_000 });
  await tick();
  const cause = new Error("the server exited");
  a.close(cause);
  for (const pending of [first, second]) {
    const error = await rejection(pending);
    assert.ok(error instanceof RpcClosedError);
    assert.equal(error.code, "rpc_closed");
    assert.equal(error.cause, cause);
    assert.match(error.message, /closed before "never" was answered: the server exited/);
  }
  assert.equal(a.pending, 0);
  const sentBefore = wire.length;
  assert.ok(await rejection(a.request("never")) instanceof RpcClosedError);
  assert.ok(await rejection(a.notify("hello")) instanceof RpcClosedError);
  await a.receive(JSON.stringify({ jsonrpc: "2.0", id: 5, method: "never" }));
  assert.equal(wire.length, sentBefore, "a closed peer neither sends nor answers");
  b.close();
});

Deno.test("a request past its timeout rejects with RpcTimeoutError, tells the other side, and a late answer is ignored", async () => {
  const late = Promise.withResolvers<void>();
  const { a, wire } = pair({
    cancelNotice: (id, reason) => ({
      method: "notifications/cancelled",
      params: { requestId: id, reason },
    }),
  }, {
    methods: {
      slow: method(z.object({}), async () => {
        await late.promise;
        return "too late";
      }),
    },
  });
  const error = await rejection(a.request("slow", {}, { timeoutMs: 20 }));
  assert.ok(error instanceof RpcTimeoutError);
  assert.equal(error.kind, "unavailable");
  assert.deepEqual(error.details, { method: "slow", timeout_ms: 20 });
  assert.match(error.message, /No answer to "slow" within 20 ms/);
  const cancelled = wire.find((w) => (w.message as Wire).method === "notifications/cancelled");
  assert.deepEqual((cancelled?.message as Wire).params, {
    requestId: 0,
    reason: "No answer within 20 ms",
  });
  late.resolve();
  while (!wire.some((w) => w.from === "b")) await tick();
  await tick();
  assert.equal(a.pending, 0, "the late answer settled nothing");
});

Deno.test("the peer's default timeout applies to requests that name none", async () => {
  const { a } = pair({ timeoutMs: 10 }, {
    methods: { never: method(z.object({}), () => new Promise(() => {})) },
  });
  assert.ok(await rejection(a.request("never")) instanceof RpcTimeoutError);
});

Deno.test("an aborted request rejects with the signal's reason", async () => {
  const { a } = pair({}, {
    methods: { never: method(z.object({}), () => new Promise(() => {})) },
  });
  const controller = new AbortController();
  const asked = a.request("never", {}, { signal: controller.signal });
  const reason = new Error("the user pressed Ctrl-C");
  controller.abort(reason);
  assert.equal(await rejection(asked), reason);
  assert.equal(await rejection(a.request("never", {}, { signal: controller.signal })), reason);
  assert.equal(a.pending, 0);
});

Deno.test("a message the port cannot send rejects its request with the port's error", async () => {
  const broken = new Error("Broken pipe");
  const peer = new RpcPeer({
    send: () => Promise.reject(broken),
  });
  assert.equal(await rejection(peer.request("initialize", {})), broken);
  const throwing = new RpcPeer({
    send: () => {
      throw broken;
    },
  });
  assert.equal(await rejection(throwing.request("initialize", {})), broken);
  assert.equal(await rejection(throwing.notify("initialized")), broken);
  assert.equal(throwing.pending, 0);
});

Deno.test("a peer that does not require the version member talks to the Codex app-server's dialect", async () => {
  const strict = lone({ methods: echo });
  const lenient = lone({ methods: echo, requireVersion: false });
  const request = JSON.stringify({ id: "init-1", method: "echo", params: { text: "x" } });
  await strict.peer.receive(request);
  await lenient.peer.receive(request);
  assert.equal((strict.sent[0].error as Wire).code, RpcErrorCode.invalidRequest);
  assert.deepEqual(lenient.sent[0], { jsonrpc: "2.0", id: "init-1", result: { text: "x" } });
  // Codex's answers carry no version member either; they still settle requests.
  const asked = lenient.peer.request("thread/start", {});
  await lenient.peer.receive(JSON.stringify({ id: 0, result: { thread: { id: "t1" } } }));
  assert.deepEqual(await asked, { thread: { id: "t1" } });
});

Deno.test("calls past the peer's budget are refused with too_many_calls", async () => {
  const release = Promise.withResolvers<void>();
  const { peer, sent } = lone({
    budget: new CallBudget(1),
    methods: { hold: method(z.object({}), () => release.promise.then(() => "held")) },
  });
  const held = peer.receive(JSON.stringify({ jsonrpc: "2.0", id: 1, method: "hold" }));
  await peer.receive(JSON.stringify({ jsonrpc: "2.0", id: 2, method: "hold" }));
  assert.deepEqual([sent[0].id, (sent[0].error as Wire).data], [2, {
    code: "too_many_calls",
    limit: 1,
  }]);
  release.resolve();
  await held;
  assert.deepEqual(sent[1], { jsonrpc: "2.0", id: 1, result: "held" });
});

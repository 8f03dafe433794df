/**
 * The fake Responses-API model driven by the real `codex app-server`
 * (tests/codex_cli.ts): a text turn, an accepted command and an upstream 401.
 * The JSON-lines client below is deliberately minimal.
 *
 * @module
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { spawnProcessGroup } from "../../adapters/process/spawn_group.ts";
import { codexBinary, codexHome, FAKE_OPENAI_KEY } from "../codex_cli.ts";
import { tempDir } from "../_helpers.ts";
import { lastUserText, startResponsesModel } from "./responses_model.ts";

type Message = {
  id?: number | string;
  method?: string;
  params?: Record<string, unknown>;
  result?: unknown;
  error?: { code: number; message: string };
};

/** Answers a server request: a result, or a JSON-RPC error when undefined. */
type Answer = (request: Message) => unknown;

/** A minimal codex app-server client: requests, notifications, server requests. */
async function appServer(env: Record<string, string>, cwd: string, answer: Answer) {
  const group = spawnProcessGroup(await codexBinary(), {
    args: ["app-server"],
    env: { ...env, RUST_LOG: "warn" },
    cwd,
    stdin: "piped",
    stdout: "piped",
    stderr: "null",
  });
  const writer = group.child.stdin.getWriter();
  const encoder = new TextEncoder();
  const send = (message: Message) => writer.write(encoder.encode(JSON.stringify(message) + "\n"));
  const pending = new Map<number, PromiseWithResolvers<unknown>>();
  const seen: Message[] = [];
  const waiters: { match: (m: Message) => boolean; resolve: (m: Message) => void }[] = [];
  let nextId = 1;

  const dispatch = (message: Message) => {
    if (message.id !== undefined && message.method === undefined) {
      const call = pending.get(message.id as number);
      pending.delete(message.id as number);
      if (message.error) call?.reject(new Error(`${message.error.code} ${message.error.message}`));
      else call?.resolve(message.result);
      return;
    }
    seen.push(message);
    if (message.id !== undefined) {
      const result = answer(message);
      send(
        result === undefined
          ? { id: message.id, error: { code: -32601, message: `unhandled ${message.method}` } }
          : { id: message.id, result },
      );
    }
    for (const waiter of [...waiters]) {
      if (waiter.match(message)) {
        waiters.splice(waiters.indexOf(waiter), 1);
        waiter.resolve(message);
      }
    }
  };
  const reading = (async () => {
    let buffer = "";
    for await (const chunk of group.child.stdout.pipeThrough(new TextDecoderStream())) {
      buffer += chunk;
      let end;
      while ((end = buffer.indexOf("\n")) >= 0) {
        const line = buffer.slice(0, end).trim();
        buffer = buffer.slice(end + 1);
        if (line) dispatch(JSON.parse(line));
      }
    }
  })();

  const client = {
    seen,
    request(method: string, params: unknown): Promise<unknown> {
      const id = nextId++;
      const call = Promise.withResolvers<unknown>();
      pending.set(id, call);
      send({ id, method, params: params as Record<string, unknown> });
      return call.promise;
    },
    /** The first message (already seen or future) that matches. */
    waitFor(match: (m: Message) => boolean): Promise<Message> {
      const found = seen.find(match);
      if (found) return Promise.resolve(found);
      const { promise, resolve } = Promise.withResolvers<Message>();
      waiters.push({ match, resolve });
      return promise;
    },
    /** Starts a thread and runs one turn to `turn/completed`. */
    async turn(text: string, thread: Record<string, unknown> = {}): Promise<Message> {
      const started = await client.request("thread/start", {
        cwd,
        approvalPolicy: "untrusted",
        sandbox: "read-only",
        ephemeral: true,
        ...thread,
      }) as { thread: { id: string } };
      const threadId = started.thread.id;
      await client.request("turn/start", {
        threadId,
        input: [{ type: "text", text, text_elements: [] }],
      });
      return client.waitFor((m) =>
        m.method === "turn/completed" && m.params?.threadId === threadId
      );
    },
    async [Symbol.asyncDispose]() {
      await writer.close().catch(() => {});
      await group.terminate({ graceMs: 2000 });
      await reading.catch(() => {});
    },
  };
  await client.request("initialize", {
    clientInfo: { name: "herald_test", title: null, version: "0.0.0" },
    capabilities: { experimentalApi: false },
  });
  await send({ method: "initialized" });
  return client;
}

const includes = (text: string, part: string) =>
  assert.ok(
    text.includes(part),
    `expected ${JSON.stringify(text)} to include ${JSON.stringify(part)}`,
  );

const turnStatus = (m: Message) => (m.params?.turn as { status: string }).status;

Deno.test("a text turn streams deltas and completes", async () => {
  await using model = await startResponsesModel();
  await using home = await codexHome({ baseUrl: model.baseUrl });
  await using work = await tempDir();
  await using codex = await appServer(home.env, work.path, () => undefined);

  const done = await codex.turn("hello there");

  assert.equal(turnStatus(done), "completed");
  const deltas = codex.seen.filter((m) => m.method === "item/agentMessage/delta");
  assert(deltas.length > 1, `expected several deltas, got ${deltas.length}`);
  assert.equal(deltas.map((m) => m.params?.delta).join(""), "Echo: hello there");
  const request = model.requests.find((r) => r.path === "/v1/responses");
  assert.equal(request?.headers.authorization, `Bearer ${FAKE_OPENAI_KEY}`);
  assert.equal(lastUserText(request?.body), "hello there");
});

Deno.test("an accepted RUN executes the command on disk", async () => {
  await using model = await startResponsesModel();
  await using home = await codexHome({ baseUrl: model.baseUrl });
  await using work = await tempDir();
  const asked: Message[] = [];
  await using codex = await appServer(home.env, work.path, (request) => {
    if (request.method !== "item/commandExecution/requestApproval") return undefined;
    asked.push(request);
    return { decision: "accept" };
  });

  const done = await codex.turn("RUN echo proof > proof.txt");

  assert.equal(turnStatus(done), "completed");
  assert.equal(asked.length, 1);
  includes(String(asked[0].params?.command), "echo proof > proof.txt");
  assert.equal(asked[0].params?.reason, "the test asked for this command");
  assert.equal(await Deno.readTextFile(join(work.path, "proof.txt")), "proof\n");
  const last = codex.seen.filter((m) => m.method === "item/completed").at(-1);
  includes(String((last?.params?.item as { text?: string }).text), "Done: ");
});

Deno.test("FAIL401 fails the turn with a 401 error notification", async () => {
  await using model = await startResponsesModel();
  await using home = await codexHome({ baseUrl: model.baseUrl });
  await using work = await tempDir();
  await using codex = await appServer(home.env, work.path, () => undefined);

  const done = await codex.turn("FAIL401");

  assert.equal(turnStatus(done), "failed");
  const error = codex.seen.find((m) => m.method === "error");
  includes(JSON.stringify(error?.params), "401");
  includes(JSON.stringify(error?.params), "Incorrect API key provided");
});

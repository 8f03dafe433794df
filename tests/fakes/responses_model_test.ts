/**
 * The fake Responses-API model driven by the real `codex app-server`
 * (tests/codex_cli.ts): a text turn, an accepted command and an upstream 401,
 * through the bare JSON-lines client of tests/codex_cli.ts.
 *
 * @module
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import {
  type BareAnswer,
  codexBinary,
  codexHome,
  FAKE_OPENAI_KEY,
  startBareAppServer,
  type WireMessage,
} from "../codex_cli.ts";
import { tempDir } from "../_helpers.ts";
import { lastUserText, startResponsesModel } from "./responses_model.ts";

type Message = WireMessage;

/** A bare app-server (tests/codex_cli.ts) and one turn in a fresh thread. */
async function appServer(env: Record<string, string>, cwd: string, answer: BareAnswer) {
  const server = await startBareAppServer(
    await codexBinary(),
    { ...env, RUST_LOG: "warn" },
    cwd,
    answer,
  );
  return {
    seen: server.seen,
    waitFor: server.waitFor,
    /** Starts a thread and runs one turn to `turn/completed`. */
    async turn(text: string, thread: Record<string, unknown> = {}): Promise<Message> {
      const started = await server.request("thread/start", {
        cwd,
        approvalPolicy: "untrusted",
        sandbox: "read-only",
        ephemeral: true,
        ...thread,
      }) as { thread: { id: string } };
      const threadId = started.thread.id;
      await server.request("turn/start", {
        threadId,
        input: [{ type: "text", text, text_elements: [] }],
      });
      return server.waitFor((m) =>
        m.method === "turn/completed" && m.params?.threadId === threadId
      );
    },
    [Symbol.asyncDispose]: () => server.close(),
  };
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

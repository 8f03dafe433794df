/**
 * The `/api/ws` JSON-RPC gateway over a real socket: sessions against the
 * scripted model server, streaming, interrupts, slash commands through the
 * shared registry, approvals, the strict runtime check and the error codes.
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { openStateStore } from "../../adapters/sqlite/mod.ts";
import { createProfile } from "../../adapters/home/mod.ts";
import { ApprovalBroker } from "../../server/ws/approvals.ts";
import { ApprovalPolicy } from "../../core/tools/approval_policy.ts";
import { startModelServer } from "../fakes/model_server.ts";
import { configureModel } from "../e2e/_herald.ts";
import { skillMd, writeTree } from "../adapters/skills/_write.ts";
import { tempDir } from "../_helpers.ts";
import { RpcClient, startLiveServer, until, upgradeStatus } from "./_live.ts";

type Start = { session_key: string; session_id: string | null; provider: string; model: string };
type Turn = {
  kind: string;
  session_id: string;
  response: string;
  aborted: boolean;
  tool_calls: { name: string; ok: boolean }[];
};

function deltas(client: RpcClient, key: string): string {
  return client.named("message.delta")
    .filter((event) => event.params.session_key === key)
    .map((event) => event.params.text)
    .join("");
}

function storedMessages(dbPath: string, sessionId: string) {
  const store = openStateStore(dbPath);
  try {
    return {
      session: store.getSession(sessionId),
      messages: store.getMessages(sessionId).map((m) => [m.role, m.content]),
    };
  } finally {
    store.close();
  }
}

Deno.test("a turn streams deltas, completes with the response and is stored in the profile's state.db", async () => {
  await using home = await tempDir();
  await using model = await startModelServer({
    replies: [{ text: "Hello there, friend ✅", chunkSize: 4 }, { text: "Welcome back" }],
  });
  await configureModel(home.path, model.openaiBaseUrl);
  await using server = startLiveServer(home.path);
  await using client = await RpcClient.connect(server.wsUrl("/api/ws"));

  const started = await client.call<Start>("session.start", {});
  assert.match(started.session_key, /^wsk_[0-9a-f]{16}$/);
  assert.equal(started.session_id, null);
  assert.deepEqual([started.provider, started.model], ["custom", "test-model"]);

  const turn = await client.call<Turn>("session.send", {
    session_key: started.session_key,
    text: "hi",
  });
  assert.equal(turn.kind, "turn");
  assert.equal(turn.response, "Hello there, friend ✅");
  assert.equal(turn.aborted, false);
  assert.ok(client.named("message.delta").length > 1, "the answer arrives in several deltas");
  assert.equal(deltas(client, started.session_key), "Hello there, friend ✅");
  const [complete] = client.named("message.complete");
  assert.deepEqual(complete.params, {
    session_key: started.session_key,
    session_id: turn.session_id,
    response: "Hello there, friend ✅",
    tool_calls: [],
    aborted: false,
    hit_max_turns: false,
  });

  const stored = storedMessages(join(home.path, "state.db"), turn.session_id);
  assert.equal(stored.session?.source, "dashboard");
  assert.deepEqual(stored.messages, [["user", "hi"], ["assistant", "Hello there, friend ✅"]]);

  const resumed = await client.call<Start>("session.start", { resume: turn.session_id });
  assert.equal(resumed.session_id, turn.session_id);
  const next = await client.call<Turn>("session.send", {
    session_key: resumed.session_key,
    text: "again",
  });
  assert.equal(next.session_id, turn.session_id);
  const sent = (model.requests[1].body as { messages: { role: string }[] }).messages;
  assert.deepEqual(sent.map((m) => m.role), ["system", "user", "assistant", "user"]);
  const unknown = await client.request("session.start", { resume: "ses_0000000000000000dead" });
  assert.equal(unknown.error?.data?.code, "not_found");
  assert.match(unknown.error!.message, /Session "ses_0000000000000000dead" not found/);
});

Deno.test("session.interrupt stops a turn mid-stream and the partial turn stays stored", async () => {
  await using home = await tempDir();
  await using model = await startModelServer({
    replies: [{ text: "partial words here", chunkSize: 3, hang: "mid-stream" }],
  });
  await configureModel(home.path, model.openaiBaseUrl);
  await using server = startLiveServer(home.path);
  await using client = await RpcClient.connect(server.wsUrl("/api/ws"));
  const { session_key } = await client.call<Start>("session.start");

  const sending = client.request("session.send", { session_key, text: "start" });
  await until(() => deltas(client, session_key) === "partial words here", "all deltas");
  const busy = await client.request("session.send", { session_key, text: "again" });
  assert.equal(busy.error?.data?.code, "turn_running");
  assert.deepEqual(await client.call("session.interrupt", { session_key }), { interrupted: true });

  const turn = (await sending).result as Turn;
  assert.equal(turn.aborted, true);
  assert.equal(turn.response, "partial words here");
  const complete = await client.waitFor("message.complete");
  assert.equal(complete.params.aborted, true);
  assert.deepEqual(storedMessages(join(home.path, "state.db"), turn.session_id).messages, [
    ["user", "start"],
    ["assistant", "partial words here"],
  ]);
  assert.deepEqual(await client.call("session.interrupt", { session_key }), {
    interrupted: false,
  });
  assert.deepEqual(await client.call("session.close", { session_key, delete: true }), {
    closed: true,
    session_id: turn.session_id,
    deleted: true,
  });
  assert.equal(storedMessages(join(home.path, "state.db"), turn.session_id).session, undefined);
});

Deno.test("slash commands go through the shared registry: replies, hints, model switch and exit --delete", async () => {
  await using home = await tempDir();
  await using model = await startModelServer({
    replies: [{ text: "stored answer" }, { text: "fresh answer" }],
  });
  await configureModel(home.path, model.openaiBaseUrl);
  await using server = startLiveServer(home.path);
  await using client = await RpcClient.connect(server.wsUrl("/api/ws"));
  const { session_key } = await client.call<Start>("session.start");
  const send = (text: string) =>
    client.call<Record<string, unknown>>("session.send", { session_key, text });

  const help = await send("/help");
  assert.equal(help.kind, "reply");
  assert.match(String(help.text), /^Commands:/);
  assert.match(String(help.text), /\/exit, \/quit|\/exit \[--delete\]/);

  const bogus = await send("/exit --bogus");
  assert.equal(bogus.kind, "reply");
  assert.match(String(bogus.text), /Unknown argument "--bogus" for \/exit/);
  assert.match(String(bogus.text), /The session continues/);

  assert.deepEqual(await send("/model other-model"), {
    kind: "set_model",
    model: "other-model",
    text: "Model set to other-model for this session.",
  });
  assert.equal((await send("/model")).text, "Model: other-model (provider custom)");

  const turn = await send("remember this") as unknown as Turn;
  assert.equal(turn.response, "stored answer");
  assert.equal((model.requests[0].body as { model: string }).model, "other-model");
  assert.equal(model.requests.length, 1, "slash commands never reach the model");

  assert.deepEqual(await send("/new"), {
    kind: "new_session",
    text: "Started a new session.",
    clear: false,
  });
  const fresh = await send("start over") as unknown as Turn;
  assert.notEqual(fresh.session_id, turn.session_id);
  assert.equal((model.requests[1].body as { model: string }).model, "other-model");
  assert.equal((model.requests[1].body as { messages: unknown[] }).messages.length, 2);

  const exit = await send("/EXIT -D");
  assert.deepEqual(exit, {
    kind: "exit",
    text: "Leaving; this session will be deleted.",
    session_id: fresh.session_id,
    deleted: true,
  });
  const db = join(home.path, "state.db");
  assert.equal(storedMessages(db, fresh.session_id).session, undefined);
  assert.ok(storedMessages(db, turn.session_id).session, "the earlier session stays");
  const gone = await client.request("session.send", { session_key, text: "hello?" });
  assert.equal(gone.error?.code, -32000);
  assert.equal(gone.error?.data?.code, "session_not_found");
});

Deno.test("protocol errors: parse error, invalid request, unknown method, bad params, unknown profile and session", async () => {
  await using home = await tempDir();
  await using server = startLiveServer(home.path);
  await using client = await RpcClient.connect(server.wsUrl("/api/ws"));

  client.sendRaw("{not json");
  await until(() => client.orphans.length === 1, "the parse error");
  assert.equal(client.orphans[0].id, null);
  assert.equal(client.orphans[0].error?.code, -32700);

  client.sendRaw(JSON.stringify({ jsonrpc: "1.0", id: 7, method: "session.start" }));
  await until(() => client.orphans.length === 2, "the invalid request answer");
  assert.deepEqual([client.orphans[1].id, client.orphans[1].error?.code], [7, -32600]);

  const unknown = await client.request("session.teleport", {});
  assert.equal(unknown.error?.code, -32601);
  assert.match(unknown.error!.message, /session\.teleport/);

  const badParams = await client.request("session.send", { text: 42 });
  assert.equal(badParams.error?.code, -32602);
  assert.match(badParams.error!.message, /session_key/);
  const blank = await client.request("session.send", { session_key: "wsk_x", text: "  " });
  assert.equal(blank.error?.code, -32602);
  assert.match(blank.error!.message, /text must not be empty/);
  const arrayParams = await client.request("session.start", ["x"]);
  assert.equal(arrayParams.error?.code, -32602);

  const noProfile = await client.request("session.start", { profile: "nobody" });
  assert.equal(noProfile.error?.code, -32000);
  assert.equal(noProfile.error?.data?.code, "profile_not_found");
  assert.match(noProfile.error!.message, /Profile "nobody" not found/);

  const noModel = await client.request("session.start", {});
  assert.equal(noModel.error?.data?.code, "model_not_configured");
  assert.match(noModel.error!.message, /herald config set model\.provider/);

  const noSession = await client.request("session.interrupt", { session_key: "wsk_nope" });
  assert.equal(noSession.error?.data?.code, "session_not_found");

  // A batch is answered with one array; the socket keeps working after every error.
  client.sendRaw(JSON.stringify([
    { jsonrpc: "2.0", id: "a", method: "setup.runtime_check", params: {} },
    { jsonrpc: "2.0", method: "setup.runtime_check" },
    { jsonrpc: "2.0", id: "b", method: "nope" },
  ]));
  await until(() => client.orphans.length === 4, "the batch answer");
  const batch = client.orphans.slice(2);
  assert.deepEqual(batch.map((answer) => answer.id), ["a", "b"]);
  assert.equal((batch[0].result as { ready: boolean }).ready, false);
  assert.equal(batch[1].error?.code, -32601);
});

Deno.test("setup.runtime_check is ready only with a usable credential, resolved like a session's", async () => {
  await using home = await tempDir();
  await using server = startLiveServer(home.path);
  await using client = await RpcClient.connect(server.wsUrl("/api/ws"));
  const check = (params: Record<string, unknown> = {}) =>
    client.call<{ ready: boolean; provider: string | null; model: string | null; reason?: string }>(
      "setup.runtime_check",
      params,
    );

  const none = await check();
  assert.equal(none.ready, false);
  assert.equal(none.provider, null);
  assert.match(none.reason!, /No model is set up yet: run `herald setup`/);

  const config = join(home.path, "config.yaml");
  await Deno.writeTextFile(config, "model:\n  provider: openrouter\n  default: some/model\n");
  const keyless = await check();
  assert.deepEqual([keyless.ready, keyless.provider, keyless.model], [
    false,
    "openrouter",
    "some/model",
  ]);
  assert.match(keyless.reason!, /No API key for openrouter/);

  await Deno.writeTextFile(join(home.path, ".env"), "OPENROUTER_API_KEY=sk-or-test\n");
  assert.deepEqual(await check(), { ready: true, provider: "openrouter", model: "some/model" });

  await Deno.writeTextFile(config, "model:\n  provider: custom\n  default: local\n");
  const noEndpoint = await check();
  assert.equal(noEndpoint.ready, false, "a keyless provider needs an endpoint");
  assert.match(noEndpoint.reason!, /No endpoint for custom/);
  await Deno.writeTextFile(
    config,
    "model:\n  provider: custom\n  default: local\n  base_url: http://127.0.0.1:9/v1\n",
  );
  assert.deepEqual(await check(), { ready: true, provider: "custom", model: "local" });

  await createProfile(home.path, "work", { bundledSkills: false });
  const work = await check({ profile: "work" });
  assert.equal(work.ready, false, "another profile has its own config");
  const missing = await client.request("setup.runtime_check", { profile: "ghost" });
  assert.equal(missing.error?.data?.code, "profile_not_found");
});

Deno.test("a dangerous command asks over the socket: deny refuses it, once runs it", async () => {
  await using home = await tempDir();
  await using scratch = await tempDir();
  const victim = join(scratch.path, "victim");
  await Deno.mkdir(join(victim, "inner"), { recursive: true });
  const command = `rm -rf ${victim}`;
  await using model = await startModelServer({
    replies: [
      { toolCalls: [{ name: "terminal", arguments: { command } }] },
      { text: "denied, fine" },
      { toolCalls: [{ name: "terminal", arguments: { command } }] },
      { text: "removed" },
      { toolCalls: [{ name: "terminal", arguments: { command } }] },
      { text: "removed for good" },
      { toolCalls: [{ name: "terminal", arguments: { command } }] },
      { text: "removed without asking" },
    ],
  });
  await configureModel(home.path, model.openaiBaseUrl);
  await using server = startLiveServer(home.path);
  await using client = await RpcClient.connect(server.wsUrl("/api/ws"));
  const { session_key } = await client.call<Start>("session.start");

  const nthRequest = async (n: number) => {
    await until(() => client.named("approval.request").length >= n, `approval request ${n}`);
    return client.named("approval.request")[n - 1];
  };

  const first = client.call<Turn>("session.send", { session_key, text: "clean up" });
  const ask = await nthRequest(1);
  assert.equal(ask.params.session_key, session_key);
  assert.equal(ask.params.command, command);
  assert.match(String(ask.params.reason), /recursive delete/);
  assert.deepEqual(await client.call("approval.respond", { id: ask.params.id, choice: "deny" }), {
    ok: true,
  });
  const denied = await first;
  assert.equal(denied.response, "denied, fine");
  assert.deepEqual(denied.tool_calls.map((c) => [c.name, c.ok]), [["terminal", false]]);
  const [toolDone] = client.named("tool.complete");
  assert.equal(toolDone.params.ok, false);
  assert.match(String(toolDone.params.summary), /not approved/);
  assert.match(
    String(toolDone.params.failure),
    /not approved/,
    "the failure is named for the client",
  );
  assert.ok((await Deno.stat(victim)).isDirectory);

  const again = await client.request("approval.respond", { id: ask.params.id, choice: "once" });
  assert.equal(again.error?.data?.code, "approval_not_found");

  const second = client.call<Turn>("session.send", { session_key, text: "really clean up" });
  const ask2 = await nthRequest(2);
  await client.call("approval.respond", { id: ask2.params.id, choice: "once" });
  const approved = await second;
  assert.equal(approved.response, "removed");
  assert.deepEqual(approved.tool_calls.map((c) => [c.name, c.ok]), [["terminal", true]]);
  await assert.rejects(Deno.stat(victim), Deno.errors.NotFound);

  // "always" is remembered in approvals.allow, so the next time nobody is asked.
  const third = client.call<Turn>("session.send", { session_key, text: "and again" });
  const ask3 = await nthRequest(3);
  await client.call("approval.respond", { id: ask3.params.id, choice: "always" });
  assert.equal((await third).response, "removed for good");
  assert.match(
    await Deno.readTextFile(join(home.path, "config.yaml")),
    /allow:\n\s+- rm_recursive/,
  );
  assert.equal(
    (await client.call<Turn>("session.send", { session_key, text: "last" })).response,
    "removed without asking",
  );
  assert.equal(client.named("approval.request").length, 3);
});

Deno.test("a failed turn answers with the model error and a message.error notification", async () => {
  await using home = await tempDir();
  await using model = await startModelServer({
    replies: [{ status: 400, message: "context too long" }],
  });
  await configureModel(home.path, model.openaiBaseUrl);
  await using server = startLiveServer(home.path);
  await using client = await RpcClient.connect(server.wsUrl("/api/ws"));
  const { session_key } = await client.call<Start>("session.start");
  const failed = await client.request("session.send", { session_key, text: "hello" });
  assert.equal(failed.error?.code, -32000);
  assert.equal(failed.error?.data?.code, "model_bad_request");
  assert.match(failed.error!.message, /context too long/);
  const [event] = client.named("message.error");
  assert.equal(event.params.code, "model_bad_request");
  assert.equal(event.params.session_key, session_key);
  assert.match(String(event.params.session_id), /^ses_/);
  assert.equal(client.named("message.complete").length, 0);
});

Deno.test("an unanswered approval request is denied after the timeout", async () => {
  const sent: [string, Record<string, unknown>][] = [];
  const broker = new ApprovalBroker((method, params) => sent.push([method, params]));
  // The gateway's wiring: core's policy owns the timeout, the broker asks the client.
  const policy = new ApprovalPolicy({
    ask: (request, options) => broker.ask("wsk_1", request, options),
    store: { add: () => Promise.reject(new Error("not expected")) },
    safeMode: false,
    timeoutMs: 30,
  });
  const choice = await policy.decide({
    tool: "terminal",
    command: "rm -rf x",
    reason: "recursive delete (rm -r)",
    ruleKey: "rm_recursive",
  });
  assert.equal(choice, "deny");
  assert.deepEqual(sent.map(([method]) => method), ["approval.request", "approval.expire"]);
  assert.equal(sent[0][1].timeout_ms, 30);
  assert.equal(sent[1][1].id, sent[0][1].id);
  assert.match(String(sent[1][1].reason), /No answer within 30 ms; silence is not consent/);
  assert.equal(broker.size, 0);
  assert.equal(broker.respond(String(sent[0][1].id), "once"), false);
});

Deno.test("closing the socket aborts the running turn, keeps its partial messages and closes the store", async () => {
  await using home = await tempDir();
  await using model = await startModelServer({
    replies: [{ text: "half an answer", chunkSize: 5, hang: "mid-stream" }],
  });
  await configureModel(home.path, model.openaiBaseUrl);
  await using server = startLiveServer(home.path);
  const client = await RpcClient.connect(server.wsUrl("/api/ws"));
  const { session_key } = await client.call<Start>("session.start");
  client.request("session.send", { session_key, text: "go" });
  await until(() => deltas(client, session_key) === "half an answer", "the streamed text");
  await client.close();

  const db = join(home.path, "state.db");
  await until(() => {
    const store = openStateStore(db);
    try {
      const [session] = store.listSessions({ limit: 1 });
      return session !== undefined &&
        store.getMessages(session.id).some((m) => m.content === "half an answer");
    } finally {
      store.close();
    }
  }, "the partial answer to be stored");
});

Deno.test("commands.catalog lists built-in commands, bundles and skills with their markers", async () => {
  await using home = await tempDir();
  await createProfile(home.path, "work", { bundledSkills: false });
  const work = join(home.path, "profiles", "work");
  await writeTree(work, {
    "skills/dev/review-code/SKILL.md": skillMd("review-code"),
    "skills/dev/lint-fix/SKILL.md": skillMd("lint-fix"),
    "skill-bundles/backend.yaml": "name: backend\ndescription: Backend work\n" +
      "skills: [review-code, lint-fix]\n",
  });
  await using server = startLiveServer(home.path);
  await using client = await RpcClient.connect(server.wsUrl("/api/ws", { profile: "work" }));
  const { commands } = await client.call<{
    commands: { name: string; description: string; kind: string; marker: string }[];
  }>("commands.catalog", {});
  const byName = new Map(commands.map((c) => [c.name, c]));
  assert.equal(byName.get("help")?.kind, "command");
  assert.equal(byName.get("help")?.marker, "›");
  assert.ok(byName.has("quit") && byName.has("reset"), "aliases are listed");
  assert.deepEqual(byName.get("backend"), {
    name: "backend",
    description: "Backend work (2 skills)",
    kind: "bundle",
    marker: "▣",
  });
  assert.equal(byName.get("review-code")?.kind, "skill");
  assert.equal(byName.get("review-code")?.marker, "◆");

  const filtered = await client.call<{ commands: { name: string }[] }>("commands.catalog", {
    prefix: "/re",
  });
  assert.deepEqual(filtered.commands.map((c) => c.name), ["reset", "resume", "review-code"]);
  const root = await client.call<{ commands: { name: string }[] }>("commands.catalog", {
    profile: "default",
  });
  assert.ok(!root.commands.some((c) => c.name === "backend"), "the default profile has no bundle");
});

Deno.test("a plain GET of /api/ws asks for an upgrade, and the token is required at the upgrade", async () => {
  await using home = await tempDir();
  await using server = startLiveServer(home.path);
  const plain = await fetch(`http://127.0.0.1:${server.port}/api/ws`, {
    headers: { "X-Herald-Session-Token": server.deps.token },
  });
  assert.equal(plain.status, 426);
  assert.equal((await plain.json()).error.code, "upgrade_required");
  assert.equal(await upgradeStatus(server.port, "/api/ws"), 401);
  assert.equal(await upgradeStatus(server.port, "/api/ws?token=wrong"), 401);
  assert.equal(await upgradeStatus(server.port, `/api/ws?token=${server.deps.token}`), 101);
});

type Watched = {
  subscription_id: string;
  dropped: number;
  event: { type: string; profile: string; session_id: string | null; source: string; seq: number };
};

function watched(client: RpcClient, id: string): Watched["event"][] {
  return client.named("event")
    .map((event) => event.params as unknown as Watched)
    .filter((params) => params.subscription_id === id)
    .map((params) => params.event);
}

Deno.test("events.subscribe lets one connection watch a conversation another connection runs", async () => {
  await using home = await tempDir();
  await using model = await startModelServer({
    replies: [{ text: "Hello there", chunkSize: 4 }, { text: "Again" }],
  });
  await configureModel(home.path, model.openaiBaseUrl);
  await createProfile(home.path, "work", { bundledSkills: false });
  await using server = startLiveServer(home.path);
  await using watcher = await RpcClient.connect(server.wsUrl("/api/ws"));
  await using chatter = await RpcClient.connect(server.wsUrl("/api/ws"));

  const all = await watcher.call<{ subscription_id: string }>("events.subscribe", {});
  assert.match(all.subscription_id, /^sub_[0-9a-f]{16}$/);
  const done = await watcher.call<{ subscription_id: string }>("events.subscribe", {
    types: ["message.complete"],
  });
  const elsewhere = await watcher.call<{ subscription_id: string }>("events.subscribe", {
    profile: "work",
  });

  const { session_key } = await chatter.call<Start>("session.start", {});
  const turn = await chatter.call<Turn>("session.send", { session_key, text: "hi" });
  await until(() => watched(watcher, all.subscription_id).length >= 5, "the watched turn");
  const events = watched(watcher, all.subscription_id);
  const types = events.map((e) => e.type).filter((type, i, list) => type !== list[i - 1]);
  assert.deepEqual(types, ["session.started", "message.user", "message.delta", "message.complete"]);
  for (const event of events) {
    assert.deepEqual([event.profile, event.session_id, event.source], [
      "default",
      turn.session_id,
      "dashboard",
    ]);
  }
  const seqs = events.map((e) => e.seq);
  assert.deepEqual(seqs, [...seqs].sort((a, b) => a - b), "in publishing order");
  assert.equal(watched(watcher, done.subscription_id).length, 1, "only the types asked for");
  assert.equal(watched(watcher, elsewhere.subscription_id).length, 0, "only the profile asked for");
  assert.ok(watcher.named("event").every((e) => e.params.dropped === 0));
  assert.equal(chatter.named("event").length, 0, "the chatting connection subscribed to nothing");

  assert.deepEqual(
    await watcher.call("events.unsubscribe", { subscription_id: all.subscription_id }),
    { unsubscribed: true },
  );
  assert.deepEqual(
    await watcher.call("events.unsubscribe", { subscription_id: all.subscription_id }),
    { unsubscribed: false },
  );
  const before = watched(watcher, all.subscription_id).length;
  const ended = await watcher.call<{ subscription_id: string }>("events.subscribe", {
    types: ["session.ended"],
  });
  await chatter.call("session.send", { session_key, text: "/exit" });
  await until(() => watched(watcher, ended.subscription_id).length === 1, "session.ended");
  assert.equal(watched(watcher, all.subscription_id).length, before, "nothing after unsubscribe");
});

Deno.test("events.subscribe checks its params and a pinned dashboard's profile", async () => {
  await using home = await tempDir();
  await createProfile(home.path, "work", { bundledSkills: false });
  await using server = startLiveServer(home.path, { deps: { pinnedProfile: "work" } });
  await using client = await RpcClient.connect(server.wsUrl("/api/ws"));
  const badType = await client.request("events.subscribe", { types: ["message.teleport"] });
  assert.equal(badType.error?.code, -32602);
  const elsewhere = await client.request("events.subscribe", { profile: "default" });
  assert.equal(elsewhere.error?.data?.code, "profile_not_found");
  const ghost = await client.request("events.subscribe", { profile: "ghost" });
  assert.equal(ghost.error?.data?.code, "profile_not_found");
  assert.match(
    (await client.call<{ subscription_id: string }>("events.subscribe", {})).subscription_id,
    /^sub_/,
  );
  const missing = await client.request("events.unsubscribe", {});
  assert.equal(missing.error?.code, -32602);
});

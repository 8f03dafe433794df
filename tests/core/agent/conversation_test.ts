/**
 * The conversation object over a profile's real agent runtime (real files,
 * real SQLite, the scripted model server over HTTP): every slash outcome,
 * skills, the events it publishes, busy and interrupted turns, failures and
 * closing.
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import {
  Conversation,
  ConversationClosedError,
  type ConversationResult,
  TurnRunningError,
} from "../../../core/agent/conversation.ts";
import { EventBus, type HeraldEvent } from "../../../core/events/mod.ts";
import { NotFoundError } from "../../../core/errors.ts";
import type { ApprovalSurface } from "../../../core/tools/approval_policy.ts";
import { createProfile, type ProfilePaths } from "../../../adapters/home/mod.ts";
import { openAgentRuntime } from "../../../adapters/runtime/agent_runtime.ts";
import { openStateStore } from "../../../adapters/sqlite/mod.ts";
import {
  type ModelServer,
  type ScriptedReply,
  startModelServer,
} from "../../fakes/model_server.ts";
import { configureModel } from "../../e2e/_herald.ts";
import { skillMd, writeTree } from "../../adapters/skills/_write.ts";
import { type TempDir, tempDir } from "../../_helpers.ts";

interface Setup extends AsyncDisposable {
  paths: ProfilePaths;
  work: string;
  model: ModelServer;
  events: HeraldEvent[];
  open(options?: { resume?: string; approvals?: ApprovalSurface }): Promise<Conversation>;
}

/** A profile "work" whose model is the scripted server, and a bus that records every event. */
async function setup(replies: ScriptedReply[]): Promise<Setup> {
  const root: TempDir = await tempDir();
  const work = await Deno.makeTempDir({ dir: root.path, prefix: "cwd-" });
  const model = await startModelServer({ replies });
  const paths = await createProfile(root.path, "work", { bundledSkills: false });
  await configureModel(paths.home, model.openaiBaseUrl);
  const bus = new EventBus();
  const events: HeraldEvent[] = [];
  bus.subscribe({}, (event) => void events.push(event));
  return {
    paths,
    work,
    model,
    events,
    async open(options = {}) {
      const runtime = await openAgentRuntime(paths, {
        safeMode: false,
        source: "test",
        cwd: work,
        env: { PATH: Deno.env.get("PATH") },
        approvals: options.approvals ?? {},
        onWarning: (file, message) => assert.fail(`${file}: ${message}`),
      });
      return await Conversation.open({ runtime, resume: options.resume, events: bus });
    },
    async [Symbol.asyncDispose]() {
      await model.close();
      await root[Symbol.asyncDispose]();
    },
  };
}

function storedSession(paths: ProfilePaths, id: string) {
  const store = openStateStore(paths.stateDb);
  try {
    return store.getSession(id);
  } finally {
    store.close();
  }
}

/** Resolves once the bus has delivered what was published so far. */
function settle(): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, 0));
}

function turnOf(result: ConversationResult) {
  assert.equal(result.kind, "turn");
  return (result as Extract<ConversationResult, { kind: "turn" }>).result;
}

Deno.test("slash outcomes are carried out by the conversation: reply, model, new and exit --delete", async () => {
  await using s = await setup([{ text: "stored answer" }, { text: "fresh answer" }]);
  const conversation = await s.open();
  assert.equal(conversation.sessionId, undefined);
  assert.equal(conversation.profile, "work");

  const help = await conversation.input("/help");
  assert.equal(help.kind, "reply");
  assert.deepEqual(await conversation.input("/model other-model"), {
    kind: "set_model",
    model: "other-model",
    text: "Model set to other-model for this session.",
  });
  assert.equal(conversation.model, "other-model");

  const first = turnOf(await conversation.input("remember this"));
  assert.equal(first.response, "stored answer");
  assert.equal((s.model.requests[0].body as { model: string }).model, "other-model");
  assert.equal(s.model.requests.length, 1, "slash commands never reach the model");

  assert.deepEqual(await conversation.input("/new"), {
    kind: "new_session",
    text: "Started a new session.",
    clear: false,
  });
  assert.equal(conversation.sessionId, undefined);
  const fresh = turnOf(await conversation.input("start over"));
  assert.notEqual(fresh.sessionId, first.sessionId);
  assert.equal((s.model.requests[1].body as { model: string }).model, "other-model");

  assert.deepEqual(await conversation.input("/exit --delete"), {
    kind: "exit",
    text: "Leaving; this session will be deleted.",
    sessionId: fresh.sessionId,
    deleted: true,
  });
  assert.ok(conversation.closed);
  assert.equal(storedSession(s.paths, fresh.sessionId), undefined);
  assert.ok(storedSession(s.paths, first.sessionId), "the session before /new stays");
  await assert.rejects(conversation.input("hello?"), ConversationClosedError);
  assert.deepEqual(await conversation.close({ delete: true }), {
    sessionId: fresh.sessionId,
    deleted: true,
  });

  await settle();
  assert.deepEqual(
    s.events.filter((e) => e.type.startsWith("session.")).map((e) => [e.type, e.session_id]),
    [
      ["session.started", first.sessionId],
      ["session.ended", first.sessionId],
      ["session.started", fresh.sessionId],
      ["session.ended", fresh.sessionId],
    ],
  );
  const ended = s.events.filter((e) => e.type === "session.ended");
  assert.deepEqual(ended.map((e) => e.type === "session.ended" && [e.reason, e.deleted]), [
    ["new_session", false],
    ["exit", true],
  ]);
});

Deno.test("a turn publishes its user text, tool calls, approvals, deltas and completion", async () => {
  await using s = await setup([
    { toolCalls: [{ id: "call_1", name: "terminal", arguments: { command: "rm -rf build" } }] },
    { text: "cleaned up", chunkSize: 3 },
  ]);
  await Deno.mkdir(join(s.work, "build"));
  const conversation = await s.open({ approvals: { ask: () => Promise.resolve("once") } });
  const result = turnOf(await conversation.input("clean the build"));
  assert.equal(result.response, "cleaned up");
  assert.deepEqual(result.toolCalls.map((c) => [c.name, c.ok]), [["terminal", true]]);
  await assert.rejects(Deno.stat(join(s.work, "build")), Deno.errors.NotFound);
  await conversation.close();

  await settle();
  const types = s.events.map((e) => e.type).filter((t, i, all) => t !== all[i - 1]);
  assert.deepEqual(types, [
    "session.started",
    "message.user",
    "tool.start",
    "approval.requested",
    "approval.resolved",
    "tool.complete",
    "message.delta",
    "message.complete",
    "session.ended",
  ]);
  for (const event of s.events) {
    assert.deepEqual([event.profile, event.session_id, event.source], [
      "work",
      result.sessionId,
      "test",
    ]);
  }
  const byType = new Map(s.events.map((e) => [e.type, e]));
  const requested = byType.get("approval.requested");
  assert.ok(requested?.type === "approval.requested");
  assert.deepEqual([requested.tool, requested.command, requested.rule_key], [
    "terminal",
    "rm -rf build",
    "rm_recursive:build",
  ]);
  const resolved = byType.get("approval.resolved");
  assert.ok(resolved?.type === "approval.resolved");
  assert.deepEqual([resolved.rule_key, resolved.choice, resolved.approved], [
    "rm_recursive:build",
    "once",
    true,
  ]);
  assert.equal(
    s.events.filter((e) => e.type === "message.delta").map((e) => "text" in e && e.text).join(""),
    "cleaned up",
  );
  const complete = byType.get("message.complete");
  assert.equal(complete?.type === "message.complete" && complete.response, "cleaned up");
});

Deno.test("a busy conversation refuses another turn, answers commands, and an interrupt withdraws its question", async () => {
  await using s = await setup([
    { toolCalls: [{ name: "terminal", arguments: { command: "rm -rf build" } }] },
    { text: "never asked for" },
  ]);
  let asked!: () => void;
  const question = new Promise<void>((resolve) => asked = resolve);
  let withdrawn: unknown;
  const conversation = await s.open({
    approvals: {
      ask: (_request, { signal }) =>
        new Promise((resolve) => {
          asked();
          signal.addEventListener("abort", () => {
            withdrawn = signal.reason;
            resolve("once"); // too late: the answer no longer counts
          });
        }),
    },
  });
  const running = conversation.input("clean up");
  await question;
  assert.ok(conversation.busy);
  await assert.rejects(conversation.input("another"), TurnRunningError);
  await assert.rejects(conversation.input("/new"), TurnRunningError);
  assert.equal((await conversation.input("/model")).kind, "reply", "commands still answer");

  assert.equal(conversation.interrupt(), true);
  const result = turnOf(await running);
  assert.equal(result.aborted, true);
  assert.deepEqual(result.toolCalls.map((c) => [c.name, c.ok]), [["terminal", false]]);
  assert.match((withdrawn as Error).message, /The turn was interrupted/);
  assert.equal(conversation.busy, false);
  assert.equal(conversation.interrupt(), false);
  assert.equal(s.model.requests.length, 1, "an interrupted turn asks the model nothing more");
  await conversation.close();
});

Deno.test("skills and bundles run as the turn they make; ask() sends built-in commands as typed", async () => {
  await using s = await setup([{ text: "reviewed" }, { text: "about help" }]);
  await writeTree(s.paths.home, { "skills/dev/review-code/SKILL.md": skillMd("review-code") });
  const conversation = await s.open();
  const reviewed = turnOf(await conversation.input("/review_code the diff"));
  assert.equal(reviewed.response, "reviewed");
  const sent = (s.model.requests[0].body as { messages: { content: string }[] }).messages;
  assert.match(sent.at(-1)!.content, /Instructions of review-code\.[\s\S]*the diff/);

  const asked = await conversation.ask("/help me");
  assert.equal(asked.response, "about help");
  const second = (s.model.requests[1].body as { messages: { content: string }[] }).messages;
  assert.equal(second.at(-1)!.content, "/help me");
  await conversation.close();
});

Deno.test("resuming announces the stored session; an unknown one fails and closes the runtime", async () => {
  await using s = await setup([{ text: "one" }, { text: "two" }]);
  const first = await s.open();
  const { sessionId } = turnOf(await first.input("hi"));
  await first.close();
  s.events.length = 0;

  const resumed = await s.open({ resume: sessionId });
  assert.equal(resumed.sessionId, sessionId);
  assert.equal(turnOf(await resumed.input("again")).sessionId, sessionId);
  await resumed.close();
  await settle();
  const [started] = s.events;
  assert.equal(started.type, "session.started");
  assert.equal(started.type === "session.started" && started.resumed, true);

  await assert.rejects(s.open({ resume: "ses_0000000000000000dead" }), NotFoundError);
});

Deno.test("a failed turn is reported to the caller and on the bus, and the conversation goes on", async () => {
  await using s = await setup([{ status: 400, message: "context too long" }, { text: "fine" }]);
  const conversation = await s.open();
  const failures: [string, string | null][] = [];
  await assert.rejects(
    conversation.input("hello", {
      onTurnError: (error, sessionId) => failures.push([(error as Error).message, sessionId]),
    }),
    /context too long/,
  );
  assert.equal(failures.length, 1);
  assert.match(failures[0][1]!, /^ses_/);
  assert.equal(turnOf(await conversation.input("again")).response, "fine");
  await conversation.close();
  await settle();
  const error = s.events.find((e) => e.type === "message.error");
  assert.equal(error?.type === "message.error" && error.code, "model_bad_request");
});

Deno.test("/resume switches to a stored session, /clear starts afresh, /usage and /tools answer", async () => {
  await using s = await setup([{ text: "one", usage: { input: 1200, output: 30 } }, {
    text: "two",
  }]);
  const conversation = await s.open();
  const { sessionId: first } = turnOf(await conversation.input("hi"));

  const usage = await conversation.input("/usage");
  assert.equal(usage.kind, "reply");
  assert.match(usage.kind === "reply" ? usage.text : "", /^Context: [\d,]+ of 128,000 tokens/);
  assert.match(
    usage.kind === "reply" ? usage.text : "",
    /This run: 1 model call, 1,200 tokens in, 30 out/,
  );
  const tools = await conversation.input("/tools");
  assert.match(tools.kind === "reply" ? tools.text : "", /^Tools \(\d+\):\n {2}terminal /);

  assert.deepEqual(await conversation.input("/clear"), {
    kind: "new_session",
    text: "Started a new session.",
    clear: true,
  });
  assert.equal(conversation.sessionId, undefined);
  assert.deepEqual(
    (await conversation.input("/resume")).kind,
    "pick_session",
    "without an id the surface picks",
  );
  const missing = await conversation.input("/resume ses_0000000000000000dead");
  assert.equal(missing.kind, "reply", "an unknown id is a reply, the session goes on");

  s.events.length = 0;
  assert.deepEqual(await conversation.input(`/resume ${first}`), {
    kind: "resumed",
    sessionId: first,
    text: `Resumed session ${first}.`,
  });
  assert.equal(conversation.sessionId, first);
  assert.equal(turnOf(await conversation.input("again")).sessionId, first);
  const history = s.model.requests[1].body as { messages: { content: string }[] };
  assert.ok(history.messages.some((m) => m.content === "hi"), "the resumed history is sent");
  await conversation.close();
});

/**
 * What the conversation object does to its stored session and with slash
 * input, over a profile's real agent runtime (real files, real SQLite, the
 * scripted model server): `/title`, `ended_at`, several skills in one
 * message, and `ask()` refusing input that would send nothing useful.
 */

import assert from "node:assert/strict";
import {
  Conversation,
  type ConversationResult,
  NothingToSendError,
  UnknownCommandError,
} from "../../../core/agent/conversation.ts";
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
  model: ModelServer;
  open(options?: { resume?: string }): Promise<Conversation>;
}

/** A profile "work" whose model is the scripted server. */
async function setup(replies: ScriptedReply[]): Promise<Setup> {
  const root: TempDir = await tempDir();
  const work = await Deno.makeTempDir({ dir: root.path, prefix: "cwd-" });
  const model = await startModelServer({ replies });
  const paths = await createProfile(root.path, "work", { bundledSkills: false });
  await configureModel(paths.home, model.openaiBaseUrl);
  return {
    paths,
    model,
    async open(options = {}) {
      const runtime = await openAgentRuntime(paths, {
        safeMode: false,
        source: "test",
        cwd: work,
        env: { PATH: Deno.env.get("PATH") },
        approvals: {},
        onWarning: (file, message) => assert.fail(`${file}: ${message}`),
      });
      return await Conversation.open({ runtime, resume: options.resume });
    },
    async [Symbol.asyncDispose]() {
      await model.close();
      await root[Symbol.asyncDispose]();
    },
  };
}

function stored(paths: ProfilePaths, id: string) {
  const store = openStateStore(paths.stateDb);
  try {
    return store.getSession(id);
  } finally {
    store.close();
  }
}

function turnOf(result: ConversationResult) {
  assert.equal(result.kind, "turn");
  return (result as Extract<ConversationResult, { kind: "turn" }>).result;
}

function reply(result: ConversationResult): string {
  assert.equal(result.kind, "reply");
  return (result as Extract<ConversationResult, { kind: "reply" }>).text;
}

function lastUserMessage(model: ModelServer, index: number): string {
  const messages = (model.requests[index].body as { messages: { role: string; content: string }[] })
    .messages;
  return messages.filter((m) => m.role === "user").at(-1)!.content;
}

Deno.test("/title names the session before and after its first message, and a title in use is refused", async () => {
  await using s = await setup([{ text: "one" }, { text: "two" }]);
  const first = await s.open();
  assert.equal(
    reply(await first.input("/title")),
    "This session has no title yet; give it one with /title <text>.",
  );
  assert.equal(
    reply(await first.input("/title   Trip planning  ")),
    'Title set to "Trip planning".',
  );
  assert.equal(reply(await first.input("/title")), "Title: Trip planning");
  const { sessionId } = turnOf(await first.input("where shall we go?"));
  assert.equal(
    stored(s.paths, sessionId)!.title,
    "Trip planning",
    "kept instead of the first line",
  );
  assert.equal(
    reply(await first.input("/title Trip planning, v2")),
    'Title set to "Trip planning, v2".',
  );
  assert.equal(stored(s.paths, sessionId)!.title, "Trip planning, v2");
  await first.close();

  const second = await s.open();
  assert.equal(
    reply(await second.input("/title trip PLANNING, v2")),
    `The title "trip PLANNING, v2" is already used by session ${sessionId}; choose another title, ` +
      "or rename that session first",
  );
  const next = turnOf(await second.input("and back?"));
  assert.equal(stored(s.paths, next.sessionId)!.title, "and back?");
  assert.equal(
    reply(await second.input("/title Trip planning, v2")),
    `The title "Trip planning, v2" is already used by session ${sessionId}; choose another title, ` +
      "or rename that session first",
  );
  assert.match(reply(await second.input(`/title ${"x".repeat(101)}`)), /at most 100 characters/);
  assert.equal(stored(s.paths, next.sessionId)!.title, "and back?");
  await second.close();
  assert.equal(s.model.requests.length, 2, "/title never reaches the model");
});

Deno.test("a stored session gets ended_at and its reason when the conversation closes, exits or moves on with /new", async () => {
  await using s = await setup([{ text: "a" }, { text: "b" }, { text: "c" }, { text: "d" }]);
  const closing = await s.open();
  const closed = turnOf(await closing.input("first")).sessionId;
  assert.equal(stored(s.paths, closed)!.endedAt, null, "open sessions have no end");
  await closing.close();
  const afterClose = stored(s.paths, closed)!;
  assert.ok(afterClose.endedAt! >= afterClose.startedAt);
  assert.equal(afterClose.endReason, "closed");

  const exiting = await s.open();
  const replaced = turnOf(await exiting.input("second")).sessionId;
  await exiting.input("/new");
  assert.equal(stored(s.paths, replaced)!.endReason, "new_session");
  assert.ok(stored(s.paths, replaced)!.endedAt !== null);
  const exited = turnOf(await exiting.input("third")).sessionId;
  assert.equal(stored(s.paths, exited)!.endedAt, null);
  await exiting.input("/exit");
  assert.equal(stored(s.paths, exited)!.endReason, "exit");

  // A conversation that stored nothing ends nothing; resuming and closing again ends it anew.
  await (await s.open()).close();
  const resumed = await s.open({ resume: closed });
  turnOf(await resumed.input("fourth"));
  await resumed.input("/quit");
  assert.equal(stored(s.paths, closed)!.endReason, "exit");
});

Deno.test("several skills in one message load in order, before the instruction", async () => {
  await using s = await setup([{ text: "done" }, { text: "done again" }]);
  await writeTree(s.paths.home, {
    "skills/dev/github-pr/SKILL.md": skillMd("github-pr", "Open a pull request."),
    "skills/dev/tdd/SKILL.md": skillMd("tdd", "Write the test first."),
  });
  const conversation = await s.open();
  turnOf(await conversation.input("/github_pr /tdd /github-pr fix issue #1 in /tmp/x.log"));
  const sent = lastUserMessage(s.model, 0);
  const pr = sent.indexOf("Open a pull request.");
  const tdd = sent.indexOf("Write the test first.");
  const instruction = sent.indexOf("User request: fix issue #1 in /tmp/x.log");
  assert.ok(pr > 0 && tdd > pr && instruction > tdd, sent);
  assert.equal(sent.split("Open a pull request.").length, 2, "a repeated skill is loaded once");
  assert.match(
    sent,
    /invoked 2 skills together, in this order: "github-pr" \(\/github-pr\), "tdd"/,
  );

  // ask() (chat -q) stacks them the same way.
  await conversation.ask("/tdd /github-pr review it");
  const asked = lastUserMessage(s.model, 1);
  assert.ok(asked.indexOf("Write the test first.") < asked.indexOf("Open a pull request."));
  assert.ok(asked.trimEnd().endsWith("User request: review it"));
  await conversation.close();
});

Deno.test("ask() refuses an unknown command and a bundle with nothing to load, sending nothing", async () => {
  await using s = await setup([{ text: "never" }]);
  await writeTree(s.paths.home, {
    "skill-bundles/empty.yaml": "name: empty\nskills: [not-installed]\n",
  });
  const conversation = await s.open();
  await assert.rejects(
    conversation.ask("/nonsense do it"),
    (error: unknown) =>
      error instanceof UnknownCommandError && error.kind === "usage" &&
      /Unknown command \/nonsense/.test(error.message),
  );
  await assert.rejects(
    conversation.ask("/empty go"),
    (error: unknown) =>
      error instanceof NothingToSendError && error.kind === "usage" &&
      /Bundle \/empty has none of its skills available \(not-installed\)/.test(error.message),
  );
  assert.equal(s.model.requests.length, 0);
  assert.equal(conversation.sessionId, undefined, "nothing was stored");
  await conversation.close();
});

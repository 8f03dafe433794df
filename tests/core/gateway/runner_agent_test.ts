/**
 * The gateway runner over a profile's real agent runtime (real files, real
 * SQLite, the scripted model server over HTTP) on the real clock: answers
 * come from the model, a restarted gateway resumes each chat's session, and
 * `/stop` interrupts a real turn.
 */

import assert from "node:assert/strict";
import { Conversation } from "../../../core/agent/conversation.ts";
import type { ChannelClock } from "../../../core/channels/contract.ts";
import { DEFAULT_ATTACHMENT_POLICY } from "../../../core/channels/attachments.ts";
import { GatewayRunner } from "../../../core/gateway/mod.ts";
import { createProfile } from "../../../adapters/home/mod.ts";
import { openAgentRuntime } from "../../../adapters/runtime/agent_runtime.ts";
import { type ScriptedReply, startModelServer } from "../../fakes/model_server.ts";
import { configureModel } from "../../e2e/_herald.ts";
import { tempDir } from "../../_helpers.ts";
import {
  MemoryChatSessions,
  MemoryLedger,
  MemoryPairingStore,
  TestChannel,
  until,
} from "./_fixtures.ts";
import { allowEveryone } from "./_access.ts";

const realClock: ChannelClock = {
  now: () => Date.now(),
  setTimeout: (callback, ms) => setTimeout(callback, ms),
  clearTimeout: (handle) => clearTimeout(handle as number),
};

/** Waits on the real clock (for the real runtime's HTTP round trips), bounded by many rounds. */
async function eventually(condition: () => boolean, what: string): Promise<void> {
  for (let i = 0; i < 1000; i++) {
    if (condition()) return;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error(`Never happened: ${what}`);
}

async function setup(replies: ScriptedReply[]) {
  const root = await tempDir();
  const work = await Deno.makeTempDir({ dir: root.path, prefix: "cwd-" });
  const model = await startModelServer({ replies });
  const paths = await createProfile(root.path, "work", { bundledSkills: false });
  await configureModel(paths.home, model.openaiBaseUrl);
  const sessions = new MemoryChatSessions();
  const ledger = new MemoryLedger(realClock);
  const runners: GatewayRunner[] = [];
  const start = async () => {
    const channel = new TestChannel();
    const runner = new GatewayRunner({
      profile: "work",
      channels: [channel],
      openConversation: async (_chat, resume) => {
        const runtime = await openAgentRuntime(paths, {
          safeMode: false,
          source: "gateway",
          cwd: work,
          env: { PATH: Deno.env.get("PATH") },
          approvals: {},
          unattended: true,
          onWarning: (file, message) => assert.fail(`${file}: ${message}`),
        });
        return await Conversation.open({ runtime, ...(resume ? { resume } : {}) });
      },
      chatSessions: sessions,
      ledger,
      pairing: new MemoryPairingStore(),
      access: () => allowEveryone(),
      attachments: () => DEFAULT_ATTACHMENT_POLICY,
      clock: realClock,
      log: () => {},
    });
    runners.push(runner);
    await runner.start();
    return { runner, channel };
  };
  return {
    model,
    sessions,
    start,
    async [Symbol.asyncDispose]() {
      for (const runner of runners) await runner.stop();
      await model.close();
      await root[Symbol.asyncDispose]();
    },
  };
}

function userTexts(body: unknown): string[] {
  const messages = (body as { messages: { role: string; content: unknown }[] }).messages;
  return messages.filter((m) => m.role === "user").map((m) => String(m.content));
}

Deno.test("over the real agent runtime, a restarted gateway resumes the chat's session", async () => {
  await using s = await setup([
    { text: "first answer" },
    { text: "second answer" },
    { text: "after the restart" },
  ]);
  const one = await s.start();
  await one.channel.say("c1", "remember one");
  await eventually(() => one.channel.sent.length === 1, "the first answer");
  await one.channel.say("c1", "remember two");
  await eventually(() => one.channel.sent.length === 2, "the second answer");
  assert.deepEqual(one.channel.textsTo("c1"), ["first answer", "second answer"]);
  const stored = s.sessions.get({ platform: "test", chatId: "c1" });
  assert.ok(stored);
  await one.runner.stop();

  const two = await s.start();
  await two.channel.say("c1", "what did I say?");
  await eventually(() => two.channel.sent.length === 1, "the answer after the restart");
  assert.deepEqual(two.channel.textsTo("c1"), ["after the restart"]);
  assert.equal(s.sessions.get({ platform: "test", chatId: "c1" }), stored);
  const texts = userTexts(s.model.requests[2].body);
  assert.ok(texts.some((text) => text.includes("remember one")), "the history was resumed");
  assert.ok(texts.some((text) => text.includes("what did I say?")));
});

Deno.test("over the real agent runtime, /stop interrupts a turn whose model never answers", async () => {
  await using s = await setup([{ hang: "before-response" }, { text: "back again" }]);
  const { channel } = await s.start();
  await channel.say("c1", "think hard");
  await eventually(() => s.model.requests.length === 1, "the model call");
  await channel.say("c1", "/stop");
  await until(() => channel.sent.length === 1, "the answer to /stop");
  assert.deepEqual(channel.textsTo("c1"), ["Stopped."]);
  assert.equal(channel.cancelled.length, 1);
  await channel.say("c1", "hello");
  await eventually(() => channel.sent.length === 2, "the next answer");
  assert.deepEqual(channel.textsTo("c1"), ["Stopped.", "back again"]);
});

/**
 * The `send_message` tool: its results and errors as the model reads them,
 * a real `herald chat` whose scripted model calls it and reaches the fake
 * Telegram API, and the runtime the gateway opens (unattended) offering it
 * too.
 */

import { openChatSessionStore } from "../../../adapters/channels/mod.ts";
import assert from "node:assert/strict";
import { join } from "node:path";
import { HeraldError } from "../../../core/errors.ts";
import { ToolRegistry } from "../../../core/tools/registry.ts";
import { createSendMessageTool } from "../../../core/tools/send_message.ts";
import { createProfile } from "../../../adapters/home/mod.ts";
import { openAgentRuntime } from "../../../adapters/runtime/agent_runtime.ts";
import { toolContext } from "../../adapters/tools/_context.ts";
import { configureModel, runHerald } from "../../e2e/_herald.ts";
import { startModelServer } from "../../fakes/model_server.ts";
import { FAKE_TELEGRAM_TOKEN, startFakeTelegram } from "../../fakes/telegram_api.ts";
import { tempDir } from "../../_helpers.ts";

function call(args: Record<string, unknown>) {
  return { id: "call_1", name: "send_message", arguments: JSON.stringify(args) };
}

Deno.test("send_message returns where the message went; a Herald error reaches the model with its code", async () => {
  const calls: [string, string][] = [];
  const registry = new ToolRegistry([
    createSendMessageTool((target, message) => {
      calls.push([target, message]);
      if (target === "telegram") {
        return Promise.reject(
          new HeraldError("send_no_home_channel", "usage", "telegram has no home channel"),
        );
      }
      return Promise.resolve({ platform: "telegram", chat_id: "42", message_ids: ["7"] });
    }),
  ]);
  const context = toolContext({ cwd: "/tmp" });
  const sent = await registry.execute(
    call({ target: "telegram:42", message: "Done" }),
    context,
  );
  assert.ok(sent.ok);
  assert.deepEqual(JSON.parse(sent.content), {
    platform: "telegram",
    chat_id: "42",
    message_ids: ["7"],
  });
  const failed = await registry.execute(call({ target: "telegram", message: "Done" }), context);
  assert.ok(!failed.ok);
  assert.equal(failed.code, "send_no_home_channel");
  assert.match(failed.message, /no home channel/);
  const invalid = await registry.execute(call({ target: "telegram:42" }), context);
  assert.equal(invalid.ok ? "ok" : invalid.code, "invalid_arguments");
  assert.deepEqual(calls, [["telegram:42", "Done"], ["telegram", "Done"]]);
  const spec = registry.specs()[0];
  assert.match(spec.description, /Do not use it to answer the current conversation/);
});

Deno.test("in herald chat the model's send_message reaches the fake Telegram", async () => {
  await using home = await tempDir();
  await using telegram = await startFakeTelegram();
  const bot = telegram.bot();
  bot.knowChat(-100555);
  await using model = await startModelServer({
    replies: [
      {
        toolCalls: [{
          name: "send_message",
          arguments: { target: "telegram:-100555", message: "Deploy **done**" },
        }],
      },
      { text: "I told the team." },
    ],
  });
  // The team's group is the home channel: one of the places the agent may send to.
  await configureModel(
    home.path,
    model.openaiBaseUrl,
    "platforms:\n  telegram:\n    home_channel: -100555\n",
  );
  await Deno.writeTextFile(join(home.path, ".env"), `TELEGRAM_BOT_TOKEN=${FAKE_TELEGRAM_TOKEN}\n`);
  const run = await runHerald({
    args: ["chat", "-q", "tell the team the deploy is done", "--json"],
    home: home.path,
    env: { TELEGRAM_API_BASE: telegram.baseUrl },
  });
  assert.equal(run.code, 0, run.stderr);
  assert.ok(!run.stdout.includes(FAKE_TELEGRAM_TOKEN) && !run.stderr.includes(FAKE_TELEGRAM_TOKEN));
  const [message] = bot.sent;
  assert.deepEqual([message.chatId, message.text], [-100555, "Deploy <b>done</b>"]);
  const first = model.requests[0].body as { tools: { function: { name: string } }[] };
  assert.ok(first.tools.some((tool) => tool.function.name === "send_message"));
  const messages = (model.requests[1].body as { messages: { role: string; content: string }[] })
    .messages;
  const result = JSON.parse(messages.find((m) => m.role === "tool")!.content);
  assert.deepEqual(result, {
    platform: "telegram",
    chat_id: "-100555",
    message_ids: [String(message.messageId)],
  });
});

Deno.test("the runtime a gateway opens offers send_message, and it sends", async () => {
  await using root = await tempDir();
  await using telegram = await startFakeTelegram();
  const bot = telegram.bot();
  bot.knowChat(42);
  const paths = await createProfile(root.path, "work", { bundledSkills: false });
  await configureModel(paths.home, "http://127.0.0.1:9/v1");
  // Chat 42 has talked to the gateway; 777 has not.
  await openChatSessionStore(paths.home).set({ platform: "telegram", chatId: "42" }, "ses_a");
  const runtime = await openAgentRuntime(paths, {
    safeMode: false,
    source: "gateway:telegram",
    cwd: root.path,
    approvals: {},
    unattended: true,
    onWarning: (file, message) => assert.fail(`${file}: ${message}`),
    env: {
      HOME: root.path,
      HERALD_HOME: root.path,
      TELEGRAM_BOT_TOKEN: FAKE_TELEGRAM_TOKEN,
      TELEGRAM_API_BASE: telegram.baseUrl,
    },
  });
  try {
    const tools = runtime.sessionOptions.tools;
    assert.ok(tools.specs().some((spec) => spec.name === "send_message"));
    const context = toolContext({ cwd: root.path, home: paths.home });
    const sent = await tools.execute(call({ target: "telegram:42", message: "hello" }), context);
    assert.ok(sent.ok, sent.ok ? "" : sent.message);
    assert.deepEqual(bot.sent.map((m) => [m.chatId, m.text]), [[42, "hello"]]);
    // A file the gateway would not send is not sent through the tool either.
    const secret = await tools.execute(
      call({ target: "telegram:42", message: `MEDIA:${paths.env}` }),
      context,
    );
    assert.equal(secret.ok ? "ok" : secret.code, "send_file_protected");
    assert.equal(bot.sent.length, 1);
    // A chat that never talked to the gateway is out of the agent's reach.
    const stranger = await tools.execute(call({ target: "telegram:777", message: "hi" }), context);
    assert.equal(stranger.ok ? "ok" : stranger.code, "send_target_not_known");
    assert.equal(bot.sent.length, 1);
  } finally {
    await runtime.close();
  }
});

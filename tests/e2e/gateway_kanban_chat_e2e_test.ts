/**
 * Kanban chat subscriptions, end to end: in a real `herald gateway run`
 * (fake Telegram, scripted model, the dispatcher ticking every second),
 * `/kanban create` in a chat creates the task and subscribes that chat;
 * when the task is blocked and then completed from outside (`herald kanban
 * block|complete` as subprocesses), the chat is told once each.
 *
 * The task waits for a blocked parent, so it stays `todo` and the
 * dispatcher never starts a worker for it.
 */

import assert from "node:assert/strict";
import { openSqliteBoard } from "../../adapters/kanban/mod.ts";
import { kanbanDbPath } from "../../adapters/home/mod.ts";
import { startModelServer } from "../fakes/model_server.ts";
import { type SentMessage, startFakeTelegram } from "../fakes/telegram_api.ts";
import { tempDir } from "../_helpers.ts";
import { runGateway, telegramHome, until, WAIT_MS } from "./_gateway.ts";
import { runHerald } from "./_herald.ts";

const CHAT = 42;

/** `herald kanban <args> --json` in `home`, parsed; fails the test on a non-zero exit. */
async function kanban(home: string, args: string[]): Promise<Record<string, unknown>> {
  const run = await runHerald({ home, args: ["kanban", ...args, "--json"] });
  assert.equal(run.code, 0, `herald kanban ${args.join(" ")}:\n${run.stdout}\n${run.stderr}`);
  return JSON.parse(run.stdout);
}

const about = (id: string, pattern: RegExp) => (message: SentMessage) =>
  message.chatId === CHAT && (message.text ?? "").includes(id) && pattern.test(message.text ?? "");

Deno.test("/kanban create in a chat subscribes it: the chat is told once when the task blocks and completes", async () => {
  await using home = await tempDir();
  await using telegram = await startFakeTelegram();
  await using model = await startModelServer({ replies: [] });
  await telegramHome(home.path, model.openaiBaseUrl, [CHAT]);
  await Deno.writeTextFile(
    `${home.path}/config.yaml`,
    "kanban:\n  dispatch_in_gateway: true\n  dispatch_interval_seconds: 1\n" +
      "  auto_decompose: false\n",
    { append: true },
  );
  // A parent that is not done holds the chat's task in todo: no worker ever runs it.
  const parent = (await kanban(home.path, ["create", "Gather the facts"])).task as { id: string };
  await kanban(home.path, ["block", parent.id, "waiting for the facts"]);

  await using gateway = await runGateway({
    root: home.path,
    profileHome: home.path,
    env: { TELEGRAM_API_BASE: telegram.baseUrl },
  });
  const bot = telegram.bot();

  bot.userSays(
    CHAT,
    CHAT,
    `/kanban create "Write the notes" --assignee default --parent ${parent.id}`,
  );
  const [created] = await bot.waitForSent(CHAT, { timeoutMs: WAIT_MS });
  const id = /\bt_[0-9a-f]{8}\b/.exec(created.text ?? "")?.[0];
  assert.ok(id, created.text);
  assert.match(created.text ?? "", /Created/i);
  assert.match(created.text ?? "", /subscribed/);
  assert.equal(model.requests.length, 0, "slash commands never reach the model");

  const board = openSqliteBoard(kanbanDbPath(home.path));
  try {
    assert.equal((await board.getTask(id))?.status, "todo", "it waits for its blocked parent");
    const [subscription] = await board.subscriptions();
    assert.equal(subscription?.task_id, id);
    assert.equal(subscription.platform, "telegram");
    assert.equal(subscription.chat_id, String(CHAT));
    assert.equal(subscription.profile, "default");

    await kanban(home.path, ["block", id, "waiting for review"]);
    const [blocked] = await bot.waitForSent(about(id, /blocked/), { timeoutMs: WAIT_MS });
    assert.match(blocked.text ?? "", /waiting for review/);

    await kanban(home.path, ["complete", id, "--result", "Notes written"]);
    const [done] = await bot.waitForSent(about(id, /completed/), { timeoutMs: WAIT_MS });
    assert.match(done.text ?? "", /✓/);
    assert.match(done.text ?? "", /Write the notes/);
    assert.match(done.text ?? "", /by default/);
    assert.match(done.text ?? "", /Notes written/);
    // The subscription ends with its task (just after the notice is sent).
    await until(
      "the subscription to end",
      async () => (await board.subscriptions()).length === 0 ? true : undefined,
    );

    // Later ticks tell the chat about a second task; the first is not repeated.
    bot.userSays(CHAT, CHAT, `/kanban create "Proofread" --parent ${parent.id}`);
    const second = await bot.waitForSent(about("", /subscribed/), {
      count: 2,
      timeoutMs: WAIT_MS,
    });
    const next = /\bt_[0-9a-f]{8}\b/.exec(second[1].text ?? "")?.[0];
    assert.ok(next && next !== id, second[1].text);
    await kanban(home.path, ["block", next, "no reviewer yet"]);
    await bot.waitForSent(about(next, /blocked/), { timeoutMs: WAIT_MS });

    const notices = bot.sent.filter((message) =>
      message.chatId === CHAT && (message.text ?? "").includes(id) &&
      !/subscribed/.test(message.text ?? "")
    );
    assert.deepEqual(
      notices.map((message) => message.text?.slice(0, 1)),
      ["⏸", "✓"],
      `one blocked and one completed notice: ${JSON.stringify(notices.map((m) => m.text))}`,
    );
    assert.equal((await board.getTask(parent.id))?.status, "blocked");
    assert.equal((await board.runs(id)).length, 0, "no worker ever ran the chat's task");
  } finally {
    board.close();
  }
  const { code } = await gateway.stop();
  assert.equal(code, 0, gateway.stderr());
});

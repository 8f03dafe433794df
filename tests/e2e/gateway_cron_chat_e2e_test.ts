/**
 * Scheduled jobs from a chat, end to end: in a real `herald gateway run`
 * (fake Telegram, scripted model), `/bp <blueprint> slot=value` creates
 * the job at once, delivering back to that chat; `/cron list` in the chat
 * shows it; `/cron run <id>` runs it in the gateway and the output comes
 * back to the chat under the job's header.
 */

import assert from "node:assert/strict";
import { openCronFiles } from "../../adapters/cron/outputs.ts";
import { startModelServer } from "../fakes/model_server.ts";
import { startFakeTelegram } from "../fakes/telegram_api.ts";
import { tempDir } from "../_helpers.ts";
import { runGateway, telegramHome, WAIT_MS } from "./_gateway.ts";

const CHAT = 42;

Deno.test("/bp in a chat creates a job that delivers back to the chat; /cron run delivers it there", async () => {
  await using home = await tempDir();
  await using telegram = await startFakeTelegram();
  await using model = await startModelServer({
    replies: [{ text: "Drink a glass of water." }],
  });
  await telegramHome(home.path, model.openaiBaseUrl, [CHAT]);
  await using _gateway = await runGateway({
    root: home.path,
    profileHome: home.path,
    env: { TELEGRAM_API_BASE: telegram.baseUrl },
  });
  const bot = telegram.bot();

  bot.userSays(CHAT, CHAT, '/bp custom-reminder what="drink water" time=10:30');
  const [created] = await bot.waitForSent(CHAT, { timeoutMs: WAIT_MS });
  const [job] = await openCronFiles(`${home.path}/cron`).jobs.list();
  assert.ok(job, created.text);
  assert.match(created.text ?? "", new RegExp(job.id));
  assert.equal(job.deliver, "origin");
  assert.equal(job.origin, `telegram:${CHAT}`, "the job delivers back to the chat it came from");
  assert.equal(model.requests.length, 0, "slash commands never reach the model");

  bot.userSays(CHAT, CHAT, "/cron list");
  const [, listed] = await bot.waitForSent(CHAT, { count: 2, timeoutMs: WAIT_MS });
  assert.match(listed.text ?? "", new RegExp(job.id));

  bot.userSays(CHAT, CHAT, `/cron run ${job.id}`);
  const messages = await bot.waitForSent(CHAT, { count: 4, timeoutMs: WAIT_MS });
  const delivered = messages.find((message) => /Drink a glass of water/.test(message.text ?? ""));
  assert.ok(delivered, JSON.stringify(messages.map((m) => m.text)));
  assert.match(delivered.text ?? "", new RegExp(job.id), "the delivered output names its job");
  const sent = JSON.stringify(model.requests[0].body);
  assert.match(sent, /drink water/, "the model got the reminder's prompt");
  const runs = await openCronFiles(`${home.path}/cron`).outputs.list(job.id);
  assert.equal(runs.length, 1);
  assert.equal(runs[0].status, "ok");
  assert.equal(runs[0].delivered, `telegram:${CHAT}`);
});

/**
 * The gateway's promise under kill -9, end to end: the real `herald gateway
 * run` subprocess, the fake Telegram Bot API and the scripted model server
 * on 127.0.0.1, the real state.db.
 *
 * - Killed between the model's answer and Telegram's confirmation: after a
 *   restart the reply is delivered exactly once more, marked as possibly a
 *   duplicate, the turn is not run again, and nothing else is resent.
 * - Killed during a turn, with a second message queued behind it (both
 *   already confirmed to Telegram): after a restart both are answered, in
 *   order, once.
 * - Telegram answering 500 three times: the reply waits and is retried,
 *   `herald gateway status` shows that sending fails and why, and the reply
 *   arrives once, when Telegram recovers.
 */

import assert from "node:assert/strict";
import { RECOVERED_NOTICE } from "../../core/channels/reply.ts";
import type { GatewayStatusView } from "../../core/usecases/gateway.ts";
import { startModelServer } from "../fakes/model_server.ts";
import { startFakeTelegram } from "../fakes/telegram_api.ts";
import { tempDir } from "../_helpers.ts";
import { runHerald } from "./_herald.ts";
import { runGateway, telegramHome, until, WAIT_MS } from "./_gateway.ts";

const USER = 42;

/** `herald gateway status --json` of the profile at `root`. */
async function statusOf(root: string): Promise<GatewayStatusView> {
  const run = await runHerald({ args: ["gateway", "status", "--json"], home: root });
  assert.equal(run.code, 0, run.stderr);
  return JSON.parse(run.stdout) as GatewayStatusView;
}

/** The texts the bot sent to the user, in order. */
function textsToUser(bot: ReturnType<Awaited<ReturnType<typeof startFakeTelegram>>["bot"]>) {
  return bot.sent.filter((message) => message.chatId === USER).map((message) => message.text);
}

Deno.test("kill -9 between the model's answer and Telegram's confirmation: the reply goes once more, marked, and nothing else", async () => {
  await using home = await tempDir();
  await using telegram = await startFakeTelegram();
  await using model = await startModelServer({
    replies: [{ text: "First answer" }, { text: "Second answer" }, { text: "Third answer" }],
  });
  await telegramHome(home.path, model.openaiBaseUrl, [USER]);
  const env = { TELEGRAM_API_BASE: telegram.baseUrl };
  const bot = telegram.bot();

  const first = await runGateway({ root: home.path, profileHome: home.path, env });
  bot.userSays(USER, USER, "one");
  await bot.waitForSent((m) => m.text === "First answer", { timeoutMs: WAIT_MS });

  // Telegram takes the second answer but its confirmation never arrives: the gateway dies waiting.
  bot.failNext("sendMessage", "swallow");
  bot.userSays(USER, USER, "two");
  await bot.waitForSent((m) => m.text === "Second answer", { timeoutMs: WAIT_MS });
  await first.kill();

  await using _second = await runGateway({ root: home.path, profileHome: home.path, env });
  const [resent] = await bot.waitForSent(
    (m) => m.text?.includes("Second answer") === true && m.text.includes(RECOVERED_NOTICE),
    { timeoutMs: WAIT_MS },
  );
  assert.ok(resent.text!.startsWith(RECOVERED_NOTICE), resent.text);

  // A later message's answer comes after anything a restart resends to this chat.
  bot.userSays(USER, USER, "three");
  await bot.waitForSent((m) => m.text === "Third answer", { timeoutMs: WAIT_MS });
  assert.deepEqual(textsToUser(bot), [
    "First answer",
    "Second answer",
    resent.text,
    "Third answer",
  ]);
  assert.equal(model.requests.length, 3, "no turn ran twice");
});

Deno.test("kill -9 during a turn with a message queued behind it: after the restart both are answered, once, in order", async () => {
  await using home = await tempDir();
  await using telegram = await startFakeTelegram();
  await using model = await startModelServer({
    replies: [
      { hang: "before-response" },
      { text: "Answer to the slow one" },
      { text: "Answer to the queued one" },
    ],
  });
  await telegramHome(home.path, model.openaiBaseUrl, [USER]);
  const env = { TELEGRAM_API_BASE: telegram.baseUrl };
  const bot = telegram.bot();

  const first = await runGateway({ root: home.path, profileHome: home.path, env });
  bot.userSays(USER, USER, "slow one");
  await until(
    "the turn to reach the model",
    () => Promise.resolve(model.requests.length === 1 ? true : undefined),
  );
  bot.userSays(USER, USER, "queued one");
  await bot.waitForSent((m) => m.text?.startsWith("Queued") === true, { timeoutMs: WAIT_MS });
  // Both messages are confirmed to Telegram (its offset moved past them): it will not send them again.
  await until(
    "Telegram to hold no unconfirmed update",
    () => Promise.resolve(bot.pendingUpdates === 0 ? true : undefined),
  );
  // The Queued notice confirmed too (else it is rightly resent, marked, after the restart).
  await until("the notice to be delivered", async () => {
    const counts = (await statusOf(home.path)).counts;
    return counts?.undelivered === 0 && counts.running === 1 && counts.queued === 1
      ? true
      : undefined;
  });
  await first.kill();

  await using _second = await runGateway({ root: home.path, profileHome: home.path, env });
  await bot.waitForSent((m) => m.text === "Answer to the queued one", { timeoutMs: WAIT_MS });
  const texts = textsToUser(bot);
  assert.equal(texts.length, 3, JSON.stringify(texts));
  assert.match(texts[0]!, /^Queued/);
  assert.deepEqual(texts.slice(1), ["Answer to the slow one", "Answer to the queued one"]);
  assert.equal(model.requests.length, 3);
  // The replayed turn tells the model it may have begun before the crash.
  const replayed = JSON.stringify(model.requests[1].body);
  assert.ok(replayed.includes("Herald restarted before answering this message"), replayed);
});

Deno.test("Telegram answering 500 is retried with backoff, shown in gateway status, and loses no reply", async () => {
  await using home = await tempDir();
  await using telegram = await startFakeTelegram();
  await using model = await startModelServer({ replies: [{ text: "Patient answer" }] });
  await telegramHome(home.path, model.openaiBaseUrl, [USER]);
  const bot = telegram.bot();
  await using _gateway = await runGateway({
    root: home.path,
    profileHome: home.path,
    env: { TELEGRAM_API_BASE: telegram.baseUrl },
  });
  bot.failNext("sendMessage", { status: 500 }, 3);
  bot.userSays(USER, USER, "hello?");
  const status = await until("status to show the failing sends", async () => {
    const view = await statusOf(home.path);
    const platform = view.platforms.find((p) => p.platform === "telegram");
    return platform?.send_error && (view.counts?.undelivered ?? 0) > 0 ? view : undefined;
  });
  const telegramStatus = status.platforms.find((p) => p.platform === "telegram")!;
  assert.match(telegramStatus.send_error!, /500|Internal Server Error/);
  assert.equal(telegramStatus.state, "connected", "receiving still works");
  const human = await runHerald({ args: ["gateway", "status"], home: home.path });
  assert.match(human.stdout, /telegram +connected\n +sending replies fails for .*: .*500.*retried/);

  const [answer] = await bot.waitForSent((m) => m.text === "Patient answer", {
    timeoutMs: WAIT_MS,
  });
  assert.equal(answer.chatId, USER);
  await until("status to show sending works again", async () => {
    const view = await statusOf(home.path);
    const platform = view.platforms.find((p) => p.platform === "telegram");
    return platform?.send_error === null && view.counts?.undelivered === 0 ? true : undefined;
  });
  assert.equal(textsToUser(bot).filter((text) => text === "Patient answer").length, 1);
});

/**
 * Pairing end to end: a stranger writes to the bot of a real `herald
 * gateway run` (fake Telegram, scripted model), gets a pairing code and no
 * answer; after `herald pairing approve <code>` the same person is
 * answered by the agent; after `herald pairing revoke` they are not (and,
 * a code having gone out minutes ago, not sent another one either).
 */

import assert from "node:assert/strict";
import { startModelServer } from "../fakes/model_server.ts";
import { startFakeTelegram } from "../fakes/telegram_api.ts";
import { tempDir } from "../_helpers.ts";
import { runHerald } from "./_herald.ts";
import { runGateway, telegramHome, until, WAIT_MS } from "./_gateway.ts";

const STRANGER = 777;

Deno.test("an unpaired user gets a code; after herald pairing approve the same user gets answers", async () => {
  await using home = await tempDir();
  await using telegram = await startFakeTelegram();
  await using model = await startModelServer({ replies: [{ text: "Welcome aboard" }] });
  // Someone else is allowed; the stranger is not on any list.
  await telegramHome(home.path, model.openaiBaseUrl, [42]);
  await using gateway = await runGateway({
    root: home.path,
    profileHome: home.path,
    env: { TELEGRAM_API_BASE: telegram.baseUrl },
  });
  const bot = telegram.bot();

  bot.userSays(STRANGER, STRANGER, "hi, can I use you?");
  const [codeMessage] = await bot.waitForSent(STRANGER, { timeoutMs: WAIT_MS });
  const code = /pairing code is ([A-Z0-9]+)/.exec(codeMessage.text ?? "")?.[1];
  assert.ok(code, codeMessage.text);
  assert.equal(model.requests.length, 0, "a stranger never reaches the model");

  const approved = await runHerald({ args: ["pairing", "approve", code], home: home.path });
  assert.equal(approved.code, 0, approved.stderr);

  bot.userSays(STRANGER, STRANGER, "hello again");
  const [, answer] = await bot.waitForSent(STRANGER, { count: 2, timeoutMs: WAIT_MS });
  assert.equal(answer.text, "Welcome aboard");

  const revoked = await runHerald({
    args: ["pairing", "revoke", `telegram:${STRANGER}`],
    home: home.path,
  });
  assert.equal(revoked.code, 0, revoked.stderr);
  bot.userSays(STRANGER, STRANGER, "still there?");
  // Revoked: not answered; a code was sent minutes ago, so this message is only logged.
  await until("the gateway to log the ignored message", () =>
    Promise.resolve(
      /ignored another message from unpaired user 777/.test(gateway.stdout()) ? true : undefined,
    ));
  assert.equal(bot.sent.filter((m) => m.chatId === STRANGER).length, 2);
  assert.equal(model.requests.length, 1);
});

/**
 * `herald send` as a real subprocess against the fake Telegram and LINE
 * APIs on 127.0.0.1: the body from the argument, `--file`, or standard
 * input; a binary file refused; `--json` and `--list`; exit 1 when the
 * platform refuses, 2 for a missing token; a long message split; and the
 * bot token never printed (every run is checked).
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { openChatSessionStore } from "../../adapters/channels/mod.ts";
import { tempDir } from "../_helpers.ts";
import { type HeraldRun, runHerald } from "../e2e/_herald.ts";
import { FAKE_LINE_SECRET, FAKE_LINE_TOKEN, startFakeLine } from "../fakes/line_api.ts";
import { FAKE_TELEGRAM_TOKEN, startFakeTelegram } from "../fakes/telegram_api.ts";

async function send(
  home: string,
  args: string[],
  env: Record<string, string> = {},
  stdin?: string,
): Promise<HeraldRun> {
  const run = await runHerald({ args: ["send", ...args], home, env, stdin });
  assertNoToken(run);
  return run;
}

/** A profile home whose `.env` holds the fake bot's token. */
async function telegramHome(home: string): Promise<void> {
  await Deno.writeTextFile(join(home, ".env"), `TELEGRAM_BOT_TOKEN=${FAKE_TELEGRAM_TOKEN}\n`);
}

function assertNoToken(run: HeraldRun): void {
  for (const [name, text] of [["stdout", run.stdout], ["stderr", run.stderr]]) {
    assert.ok(!text.includes(FAKE_TELEGRAM_TOKEN), `the Telegram token is in ${name}: ${text}`);
    assert.ok(!text.includes(FAKE_TELEGRAM_TOKEN.split(":")[1]), `token secret part in ${name}`);
    assert.ok(!text.includes(FAKE_LINE_TOKEN), `the LINE token is in ${name}: ${text}`);
  }
}

Deno.test("herald send delivers the argument, a --file text body and piped standard input", async () => {
  await using home = await tempDir();
  await using telegram = await startFakeTelegram();
  const bot = telegram.bot();
  bot.knowChat(42);
  await telegramHome(home.path);
  const env = { TELEGRAM_API_BASE: telegram.baseUrl };

  const argument = await send(home.path, ["-t", "telegram:42", "Backup", "finished"], env);
  assert.equal(argument.code, 0, argument.stderr);
  assert.match(argument.stdout, /^Sent to telegram:42 \(message \d+\)\n$/);

  const file = join(home.path, "notes.md");
  await Deno.writeTextFile(file, "Notes from **today**\n\n- one\n- two\n");
  const fromFile = await send(home.path, ["--to", "telegram:42", "--file", file], env);
  assert.equal(fromFile.code, 0, fromFile.stderr);

  const piped = await send(home.path, ["-t", "telegram:42"], env, "from a pipe\n");
  assert.equal(piped.code, 0, piped.stderr);

  const texts = bot.sent.filter((m) => m.chatId === 42).map((m) => m.text);
  assert.deepEqual(texts, [
    "Backup finished",
    "Notes from <b>today</b>\n\n• one\n• two",
    "from a pipe",
  ]);
});

Deno.test("herald send refuses a binary --file (exit 2) and says how to send a file", async () => {
  await using home = await tempDir();
  await using telegram = await startFakeTelegram();
  const bot = telegram.bot();
  bot.knowChat(42);
  await telegramHome(home.path);
  const env = { TELEGRAM_API_BASE: telegram.baseUrl };
  const image = join(home.path, "chart.png");
  await Deno.writeFile(image, new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0]));
  const nul = await send(home.path, ["-t", "telegram:42", "--file", image], env);
  assert.equal(nul.code, 2, nul.stderr);
  assert.ok(nul.stderr.includes(`MEDIA:${image}`), nul.stderr);
  assert.ok(nul.stderr.includes("[[as_document]]"), nul.stderr);

  const latin1 = join(home.path, "old.txt");
  await Deno.writeFile(latin1, new Uint8Array([0x63, 0x61, 0x66, 0xe9])); // "café" in Latin-1
  const invalid = await send(home.path, ["-t", "telegram:42", "--file", latin1, "--json"], env);
  assert.equal(invalid.code, 2, invalid.stderr);
  assert.equal(JSON.parse(invalid.stdout).error.code, "send_body_binary");

  const missing = await send(home.path, ["-t", "telegram:42", "--file", "nope.txt"], env);
  assert.equal(missing.code, 2);
  assert.match(missing.stderr, /Cannot read "nope.txt" \(--file\): no such file/);
  assert.equal(bot.sent.length, 0);
});

Deno.test("herald send --json prints the result; a long message goes as several messages", async () => {
  await using home = await tempDir();
  await using telegram = await startFakeTelegram();
  const bot = telegram.bot();
  bot.knowChat({ id: -1001234567890, forum: true });
  await telegramHome(home.path);
  const paragraphs = Array.from({ length: 3 }, (_, i) => `Part ${i}: ${"x".repeat(3000)}`);
  const run = await send(
    home.path,
    ["-t", "telegram:-1001234567890:7", "--json"],
    { TELEGRAM_API_BASE: telegram.baseUrl },
    paragraphs.join("\n\n"),
  );
  assert.equal(run.code, 0, run.stderr);
  const result = JSON.parse(run.stdout);
  const sent = bot.sent.filter((m) => m.chatId === -1001234567890);
  assert.deepEqual(result, {
    platform: "telegram",
    chat_id: "-1001234567890",
    thread_id: "7",
    message_ids: sent.map((m) => String(m.messageId)),
  });
  assert.deepEqual(sent.map((m) => m.text), paragraphs);
  assert.deepEqual(sent.map((m) => m.threadId), [7, 7, 7]);
});

Deno.test("herald send -t <platform> uses the home channel; without one it exits 2 naming where it looked", async () => {
  await using home = await tempDir();
  await using telegram = await startFakeTelegram();
  const bot = telegram.bot();
  bot.knowChat(-100555);
  await telegramHome(home.path);
  const env = { TELEGRAM_API_BASE: telegram.baseUrl };
  const none = await send(home.path, ["-t", "telegram", "hi"], env);
  assert.equal(none.code, 2);
  assert.match(none.stderr, /platforms\.telegram\.home_channel/);
  assert.match(none.stderr, /TELEGRAM_HOME_CHANNEL/);
  await Deno.writeTextFile(
    join(home.path, "config.yaml"),
    "platforms:\n  telegram:\n    home_channel: -100555\n",
  );
  const homeRun = await send(home.path, ["-t", "telegram", "hi home"], env);
  assert.equal(homeRun.code, 0, homeRun.stderr);
  assert.equal(bot.sent.at(-1)?.chatId, -100555);
});

Deno.test("herald send exits 1 when the platform refuses and 2 when the token is missing", async () => {
  await using home = await tempDir();
  await using telegram = await startFakeTelegram();
  const bot = telegram.bot();
  bot.knowChat(42);
  bot.block(42);
  const env = { TELEGRAM_API_BASE: telegram.baseUrl };

  const noToken = await send(home.path, ["-t", "telegram:42", "hi"], env);
  assert.equal(noToken.code, 2, noToken.stderr);
  assert.match(noToken.stderr, /TELEGRAM_BOT_TOKEN is not set/);
  assert.ok(noToken.stderr.includes(join(home.path, ".env")), noToken.stderr);

  await telegramHome(home.path);
  const refused = await send(home.path, ["-t", "telegram:42", "hi", "--json"], env);
  assert.equal(refused.code, 1, refused.stderr);
  assert.equal(JSON.parse(refused.stdout).error.code, "platform_refused");
  assert.match(refused.stderr, /blocked by the user/);
  assert.equal(bot.callsOf("sendMessage").length, 1, "a refusal is not retried");

  const unknownChat = await send(home.path, ["-t", "telegram:77", "hi"], env);
  assert.equal(unknownChat.code, 1);
  assert.match(unknownChat.stderr, /chat not found/);
});

Deno.test("herald send usage mistakes exit 2", async () => {
  await using home = await tempDir();
  await telegramHome(home.path);
  const cases: [string[], RegExp][] = [
    [["hi"], /-t <platform>/],
    [["-t", "telegram:42"], /message is empty/],
    [["-t", "tele gram", "hi"], /does not start with a platform name/],
    [["-t", "whatsapp:1", "hi"], /No messaging platform "whatsapp"/],
    [["--list", "-t", "telegram"], /--list takes no target/],
    [["-t", "telegram:42", "hi", "--file", "notes.md"], /either as an argument or with --file/],
  ];
  for (const [args, message] of cases) {
    const run = await send(home.path, args);
    assert.equal(run.code, 2, `${args.join(" ")}: ${run.stderr}`);
    assert.match(run.stderr, message);
  }
});

Deno.test("herald send --list shows the platforms, home channels and the gateway's chats", async () => {
  await using home = await tempDir();
  await telegramHome(home.path);
  await Deno.writeTextFile(
    join(home.path, "config.yaml"),
    "platforms:\n  telegram:\n    enabled: true\n    home_channel: '-100555'\n",
  );
  await openChatSessionStore(home.path).set({ platform: "telegram", chatId: "42" }, "ses_1");
  const json = await send(home.path, ["--list", "--json"]);
  assert.equal(json.code, 0, json.stderr);
  const view = JSON.parse(json.stdout);
  const telegram = view.platforms.find((p: { platform: string }) => p.platform === "telegram");
  assert.deepEqual(telegram, {
    platform: "telegram",
    label: "Telegram",
    configured: true,
    enabled: true,
    can_send: true,
    home_channel: "telegram:-100555",
    chats: ["telegram:42"],
  });
  const text = await send(home.path, ["-l"]);
  assert.equal(text.code, 0, text.stderr);
  assert.match(
    text.stdout,
    /telegram \(Telegram\): configured, enabled\n {2}home channel: telegram:-100555\n {2}chats: telegram:42\n/,
  );
  assert.match(text.stdout, /line \(LINE\): not configured/);
});

Deno.test("herald send pushes to a LINE user through the fake LINE API", async () => {
  await using home = await tempDir();
  await using line = await startFakeLine();
  await Deno.writeTextFile(
    join(home.path, ".env"),
    `LINE_CHANNEL_ACCESS_TOKEN=${FAKE_LINE_TOKEN}\nLINE_CHANNEL_SECRET=${FAKE_LINE_SECRET}\n`,
  );
  const user = "U4af4980629d8f0e6f1c2b3a4d5e6f7a8";
  const run = await send(home.path, ["-t", `line:${user}`, "Build **green**", "--json"], {
    LINE_API_BASE: line.apiBase,
    LINE_DATA_API_BASE: line.dataBase,
  });
  assert.equal(run.code, 0, run.stderr);
  const [batch] = line.sent;
  assert.equal(batch.via, "push");
  assert.equal(batch.to, user);
  assert.deepEqual(batch.messages, [{ type: "text", text: "Build green" }]);
  assert.deepEqual(JSON.parse(run.stdout).message_ids, batch.ids);
});

Deno.test("herald send refuses a file for LINE (LINE fetches files from the gateway's server) and sends nothing", async () => {
  await using home = await tempDir();
  await using line = await startFakeLine();
  await Deno.writeTextFile(
    join(home.path, ".env"),
    `LINE_CHANNEL_ACCESS_TOKEN=${FAKE_LINE_TOKEN}\nLINE_CHANNEL_SECRET=${FAKE_LINE_SECRET}\n` +
      "LINE_PUBLIC_URL=https://bot.example.com\n",
  );
  const chart = join(home.path, "chart.png");
  await Deno.writeFile(chart, new Uint8Array([0x89, 0x50, 0x4e, 0x47]));
  const user = "U4af4980629d8f0e6f1c2b3a4d5e6f7a8";
  const run = await send(home.path, ["-t", `line:${user}`, `Here:\nMEDIA:${chart}`], {
    LINE_API_BASE: line.apiBase,
    LINE_DATA_API_BASE: line.dataBase,
  });
  assert.equal(run.code, 2, run.stderr);
  assert.match(run.stderr, /LINE fetches files from the gateway's own web server/);
  assert.equal(line.sent.length, 0);
});

Deno.test("herald send never prints the bot token, even when the API cannot be reached", async () => {
  await using home = await tempDir();
  await telegramHome(home.path);
  // A port nothing listens on: every attempt fails to connect (the real backoff, about 3.5 s).
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const closed = `http://127.0.0.1:${(listener.addr as Deno.NetAddr).port}`;
  listener.close();
  const run = await send(home.path, ["-t", "telegram:42", "hi", "--json"], {
    TELEGRAM_API_BASE: closed,
    HERALD_DEBUG: "1",
  });
  assert.equal(run.code, 1, run.stderr);
  assert.match(run.stderr, /tried 4 times/);
  assertNoToken(run);
});

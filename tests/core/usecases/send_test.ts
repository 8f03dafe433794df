/**
 * `sendMessage` and `listTargets` over a real profile home: target parsing,
 * the home channel (config.yaml, then `<ID>_HOME_CHANNEL`), the errors a
 * caller fixes (exit 2) and the ones a platform causes (exit 1), and the
 * retries under a fake sleep: with scripted links for the policy, and with
 * the real links against the fake Telegram API for "nothing confirmed is
 * sent twice".
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { HeraldError } from "../../../core/errors.ts";
import type {
  MessageSendOptions,
  MessageSent,
  MessageTarget,
  MessagingLinks,
  ProfileContext,
} from "../../../core/usecases/ports.ts";
import {
  listTargets,
  parseSendTarget,
  SEND_ATTEMPTS,
  SEND_BACKOFF_MS,
  sendMessage,
} from "../../../core/usecases/send.ts";
import { profilePaths } from "../../../adapters/home/mod.ts";
import { openChatSessionStore } from "../../../adapters/channels/mod.ts";
import { openProfileContext } from "../../../adapters/runtime/profile_context.ts";
import { tempDir } from "../../_helpers.ts";
import { FAKE_TELEGRAM_TOKEN, startFakeTelegram } from "../../fakes/telegram_api.ts";

const TOKEN_ENV = { TELEGRAM_BOT_TOKEN: FAKE_TELEGRAM_TOKEN };

/** What the scripted links do on one attempt: deliver ids, or fail. */
type Attempt =
  | { ids: string[] }
  | { fail: "passing" | "refused"; retryAfterMs?: number; status?: number };

/** Links that play `script` attempt by attempt and follow the retry protocol of the port. */
class ScriptedLinks implements MessagingLinks {
  readonly sends: { to: MessageTarget; markdown: string; options: MessageSendOptions }[] = [];
  attempts = 0;
  constructor(readonly script: Attempt[] = [{ ids: ["1"] }]) {}

  platforms() {
    return Promise.resolve(["api_server", "line", "telegram"]);
  }

  probe() {
    return Promise.resolve({ ok: true });
  }

  async send(to: MessageTarget, markdown: string, options: MessageSendOptions = {}) {
    this.sends.push({ to, markdown, options });
    for (let made = 1;; made++) {
      const step = this.script[this.attempts++] ?? { ids: ["last"] };
      if ("ids" in step) return { messageIds: step.ids } satisfies MessageSent;
      const failure = new HeraldError("platform_refused", "unavailable", "Telegram said no", {
        details: {
          platform: to.platform,
          retryable: step.fail === "passing",
          status: step.status,
          retry_after_ms: step.retryAfterMs,
        },
      });
      if (!(await options.retry?.(failure, made))) throw failure;
    }
  }
}

interface Home {
  profile: ProfileContext;
  home: string;
  configPath: string;
  envPath: string;
}

async function profileAt(
  root: string,
  files: { config?: string; dotenv?: string } = {},
  env: Record<string, string> = {},
): Promise<Home> {
  const paths = profilePaths(root, "default");
  await Deno.mkdir(paths.home, { recursive: true });
  if (files.config !== undefined) await Deno.writeTextFile(paths.config, files.config);
  if (files.dotenv !== undefined) await Deno.writeTextFile(paths.env, files.dotenv);
  return {
    profile: openProfileContext(paths, env),
    home: paths.home,
    configPath: paths.config,
    envPath: paths.env,
  };
}

function withLinks(profile: ProfileContext, links: MessagingLinks): ProfileContext {
  return { ...profile, messaging: () => links };
}

/** A sleep that records what it was asked to wait and does not wait. */
function fakeSleep() {
  const waits: number[] = [];
  return { waits, sleep: (ms: number) => Promise.resolve(void waits.push(ms)) };
}

async function rejectsWith(
  work: Promise<unknown>,
  code: string,
  kind: string,
): Promise<HeraldError> {
  const error = await work.then(
    () => assert.fail(`expected ${code}`),
    (error: unknown) => error,
  );
  assert.ok(error instanceof HeraldError, String(error));
  assert.equal(error.code, code, error.message);
  assert.equal(error.kind, kind, error.message);
  return error;
}

Deno.test("a target is a platform, or a platform with a chat and maybe a thread", () => {
  assert.deepEqual(parseSendTarget("telegram"), { platform: "telegram" });
  assert.deepEqual(parseSendTarget(" Telegram:-1001234567890 "), {
    platform: "telegram",
    chatId: "-1001234567890",
  });
  assert.deepEqual(parseSendTarget("telegram:-100123:42"), {
    platform: "telegram",
    chatId: "-100123",
    threadId: "42",
  });
  assert.deepEqual(parseSendTarget("line:U0123456789abcdef0123456789abcdef"), {
    platform: "line",
    chatId: "U0123456789abcdef0123456789abcdef",
  });
  assert.deepEqual(parseSendTarget("line:Cabc"), { platform: "line", chatId: "Cabc" });
  assert.deepEqual(parseSendTarget("api_server:x"), { platform: "api_server", chatId: "x" });
});

Deno.test("a malformed target is a usage error quoting it and showing the grammar", () => {
  for (
    const bad of [
      "",
      "  ",
      "telegram:",
      "telegram::5",
      "telegram:1:",
      "a:b:c:d",
      "tele gram",
      "1tg:5",
      ":5",
      "telegram:1 2",
    ]
  ) {
    assert.throws(
      () => parseSendTarget(bad),
      (error: unknown) =>
        error instanceof HeraldError && error.code === "send_target_invalid" &&
        error.kind === "usage" && error.message.includes(JSON.stringify(bad)) &&
        error.message.includes("<platform>:<chat_id>[:<thread_id>]"),
      bad,
    );
  }
});

Deno.test("a named chat is sent to as it is, with the body as typed", async () => {
  await using root = await tempDir();
  const { profile } = await profileAt(root.path, {}, TOKEN_ENV);
  const links = new ScriptedLinks([{ ids: ["17", "18"] }]);
  const result = await sendMessage(withLinks(profile, links), "telegram:-100123:7", "**Done**");
  assert.deepEqual(result, {
    platform: "telegram",
    chat_id: "-100123",
    thread_id: "7",
    message_ids: ["17", "18"],
  });
  assert.deepEqual(links.sends[0].to, { platform: "telegram", chatId: "-100123", threadId: "7" });
  assert.equal(links.sends[0].markdown, "**Done**");
  assert.equal(links.sends[0].options.protectFiles, false);
});

Deno.test("the platform alone is its home channel: config.yaml first, then <ID>_HOME_CHANNEL", async () => {
  await using root = await tempDir();
  const links = new ScriptedLinks([{ ids: ["1"] }, { ids: ["2"] }, { ids: ["3"] }]);
  // An unquoted Telegram group id is a number in YAML; a thread may follow the chat.
  const both = await profileAt(
    join(root.path, "both"),
    {
      config: "platforms:\n  telegram:\n    home_channel: -1001234567890\n",
      dotenv: `TELEGRAM_HOME_CHANNEL=555\nTELEGRAM_BOT_TOKEN=${FAKE_TELEGRAM_TOKEN}\n`,
    },
  );
  assert.equal(
    (await sendMessage(withLinks(both.profile, links), "telegram", "hi")).chat_id,
    "-1001234567890",
  );
  const envOnly = await profileAt(
    join(root.path, "env"),
    { dotenv: "LINE_HOME_CHANNEL=Cgroup1:\n" },
    { LINE_CHANNEL_ACCESS_TOKEN: "x".repeat(30), LINE_CHANNEL_SECRET: "0".repeat(32) },
  );
  await rejectsWith(
    sendMessage(withLinks(envOnly.profile, links), "line", "hi"),
    "send_home_channel_invalid",
    "usage",
  );
  await Deno.writeTextFile(envOnly.envPath, "LINE_HOME_CHANNEL=line:Rroom1\n");
  assert.deepEqual(await sendMessage(withLinks(envOnly.profile, links), "line", "hi"), {
    platform: "line",
    chat_id: "Rroom1",
    message_ids: ["2"],
  });
  const threaded = await profileAt(
    join(root.path, "thread"),
    { config: 'platforms:\n  telegram:\n    home_channel: "-100999:42"\n' },
    TOKEN_ENV,
  );
  const sent = await sendMessage(withLinks(threaded.profile, links), "telegram", "hi");
  assert.deepEqual([sent.chat_id, sent.thread_id], ["-100999", "42"]);
});

Deno.test("no home channel is a usage error naming both places it looked", async () => {
  await using root = await tempDir();
  const { profile, configPath, envPath } = await profileAt(root.path, {}, TOKEN_ENV);
  const error = await rejectsWith(
    sendMessage(withLinks(profile, new ScriptedLinks()), "telegram", "hi"),
    "send_no_home_channel",
    "usage",
  );
  for (
    const place of ["platforms.telegram.home_channel", configPath, "TELEGRAM_HOME_CHANNEL", envPath]
  ) {
    assert.ok(error.message.includes(place), `${place} in: ${error.message}`);
  }
});

Deno.test("an unknown platform, a missing token and an empty body are the caller's to fix", async () => {
  await using root = await tempDir();
  const { profile, envPath } = await profileAt(root.path);
  const links = new ScriptedLinks();
  const unknown = await rejectsWith(
    sendMessage(withLinks(profile, links), "telegarm:1", "hi"),
    "platform_unknown",
    "not_found",
  );
  assert.match(unknown.message, /"telegarm" \(known: api_server, line, telegram\)/);
  const missing = await rejectsWith(
    sendMessage(withLinks(profile, links), "telegram:1", "hi"),
    "platform_not_configured",
    "usage",
  );
  assert.ok(missing.message.includes("TELEGRAM_BOT_TOKEN"), missing.message);
  assert.ok(missing.message.includes(envPath), missing.message);
  const line = await rejectsWith(
    sendMessage(withLinks(profile, links), "line:Uabc", "hi"),
    "platform_not_configured",
    "usage",
  );
  assert.match(line.message, /LINE_CHANNEL_ACCESS_TOKEN and LINE_CHANNEL_SECRET are not set/);
  await rejectsWith(
    sendMessage(withLinks(profile, links), "telegram:1", " \n"),
    "empty_message",
    "usage",
  );
  assert.equal(links.sends.length, 0);
});

Deno.test("a passing failure is retried with a short backoff; the message goes once it works", async () => {
  await using root = await tempDir();
  const { profile } = await profileAt(root.path, {}, TOKEN_ENV);
  const links = new ScriptedLinks([{ fail: "passing" }, { fail: "passing" }, { ids: ["9"] }]);
  const { waits, sleep } = fakeSleep();
  const result = await sendMessage(withLinks(profile, links), "telegram:1", "hi", { sleep });
  assert.deepEqual(result.message_ids, ["9"]);
  assert.deepEqual(waits, SEND_BACKOFF_MS.slice(0, 2));
  assert.equal(links.sends.length, 1, "one send call: the retries go on inside it");
});

Deno.test("a platform that keeps failing is given up after a few attempts, saying how many", async () => {
  await using root = await tempDir();
  const { profile } = await profileAt(root.path, {}, TOKEN_ENV);
  const links = new ScriptedLinks(Array(10).fill({ fail: "passing", status: 502 }));
  const { waits, sleep } = fakeSleep();
  const error = await rejectsWith(
    sendMessage(withLinks(profile, links), "telegram:1", "hi", { sleep }),
    "platform_refused",
    "unavailable",
  );
  assert.equal(links.attempts, SEND_ATTEMPTS);
  assert.deepEqual(waits, [...SEND_BACKOFF_MS]);
  assert.match(error.message, new RegExp(`tried ${SEND_ATTEMPTS} times`));
  assert.equal(error.details.attempts, SEND_ATTEMPTS);
  assert.equal(error.details.status, 502);
});

Deno.test("a permanent refusal is not retried", async () => {
  await using root = await tempDir();
  const { profile } = await profileAt(root.path, {}, TOKEN_ENV);
  const links = new ScriptedLinks([{ fail: "refused", status: 403 }, { ids: ["never"] }]);
  const { waits, sleep } = fakeSleep();
  const error = await rejectsWith(
    sendMessage(withLinks(profile, links), "telegram:1", "hi", { sleep }),
    "platform_refused",
    "unavailable",
  );
  assert.equal(links.attempts, 1);
  assert.deepEqual(waits, []);
  assert.doesNotMatch(error.message, /tried/);
});

Deno.test("a platform's retry-after is waited for when short, and not at all when long", async () => {
  await using root = await tempDir();
  const { profile } = await profileAt(root.path, {}, TOKEN_ENV);
  const short = new ScriptedLinks([{ fail: "passing", retryAfterMs: 3_000 }, { ids: ["2"] }]);
  const first = fakeSleep();
  await sendMessage(withLinks(profile, short), "telegram:1", "hi", { sleep: first.sleep });
  assert.deepEqual(first.waits, [3_000]);
  const long = new ScriptedLinks([{ fail: "passing", retryAfterMs: 60_000 }, { ids: ["2"] }]);
  const second = fakeSleep();
  await rejectsWith(
    sendMessage(withLinks(profile, long), "telegram:1", "hi", { sleep: second.sleep }),
    "platform_refused",
    "unavailable",
  );
  assert.deepEqual(second.waits, []);
});

Deno.test("an aborted send stops retrying", async () => {
  await using root = await tempDir();
  const { profile } = await profileAt(root.path, {}, TOKEN_ENV);
  const links = new ScriptedLinks([{ fail: "passing" }, { fail: "passing" }, { ids: ["3"] }]);
  const stop = new AbortController();
  const sleep = () => Promise.resolve(stop.abort());
  await rejectsWith(
    sendMessage(withLinks(profile, links), "telegram:1", "hi", { sleep, signal: stop.signal }),
    "platform_refused",
    "unavailable",
  );
  assert.equal(links.attempts, 1);
});

Deno.test("against the fake Telegram, a 500 in the middle of a long message resends only what was not confirmed", async () => {
  await using root = await tempDir();
  await using telegram = await startFakeTelegram();
  const bot = telegram.bot();
  bot.knowChat(-100555);
  const { profile } = await profileAt(root.path, {}, {
    ...TOKEN_ENV,
    TELEGRAM_API_BASE: telegram.baseUrl,
  });
  const paragraphs = Array.from({ length: 3 }, (_, i) => `${i}`.repeat(3000));
  bot.failNext("sendMessage", { status: 500 }, 1, 1);
  const { waits, sleep } = fakeSleep();
  const result = await sendMessage(profile, "telegram:-100555", paragraphs.join("\n\n"), { sleep });
  assert.equal(result.message_ids.length, 3);
  assert.deepEqual(waits, [SEND_BACKOFF_MS[0]]);
  const texts = bot.sent.filter((m) => m.chatId === -100555).map((m) => m.text);
  assert.deepEqual(texts, paragraphs, "each part once, in order");
  assert.deepEqual(result.message_ids, bot.sent.map((m) => String(m.messageId)));
});

Deno.test("against the fake Telegram, a blocked chat is refused at once and a wrong token is not retried", async () => {
  await using root = await tempDir();
  await using telegram = await startFakeTelegram();
  const bot = telegram.bot();
  bot.knowChat(42);
  bot.block(42);
  const { profile } = await profileAt(root.path, {}, {
    ...TOKEN_ENV,
    TELEGRAM_API_BASE: telegram.baseUrl,
  });
  const { waits, sleep } = fakeSleep();
  const blocked = await rejectsWith(
    sendMessage(profile, "telegram:42", "hi", { sleep }),
    "platform_refused",
    "unavailable",
  );
  assert.match(blocked.message, /blocked by the user/);
  assert.equal(blocked.details.retryable, false);
  const wrongToken = "987654321:AAHsomeOtherTokenNotKnownToTheFake_xyz";
  const other = await profileAt(join(root.path, "other"), {}, {
    TELEGRAM_BOT_TOKEN: wrongToken,
    TELEGRAM_API_BASE: telegram.baseUrl,
  });
  const unauthorized = await rejectsWith(
    sendMessage(other.profile, "telegram:42", "hi", { sleep }),
    "platform_refused",
    "unavailable",
  );
  assert.equal(unauthorized.details.status, 401);
  assert.ok(!unauthorized.message.includes(wrongToken), unauthorized.message);
  assert.deepEqual(waits, []);
  assert.equal(bot.callsOf("sendMessage").length, 1);
});

Deno.test("the agent's sends refuse a protected file and send nothing", async () => {
  await using root = await tempDir();
  await using telegram = await startFakeTelegram();
  const bot = telegram.bot();
  bot.knowChat(42);
  const { profile, envPath } = await profileAt(
    root.path,
    { dotenv: `TELEGRAM_BOT_TOKEN=${FAKE_TELEGRAM_TOKEN}\n` },
    { TELEGRAM_API_BASE: telegram.baseUrl, HOME: root.path, HERALD_HOME: root.path },
  );
  const error = await rejectsWith(
    sendMessage(profile, "telegram:42", `Here:\nMEDIA:${envPath}`, { protectFiles: true }),
    "send_file_protected",
    "usage",
  );
  assert.ok(error.message.includes(envPath), error.message);
  assert.equal(bot.calls.filter((call) => call.method.startsWith("send")).length, 0);
});

Deno.test("the agent sends only to a home channel or a chat that has talked to the gateway", async () => {
  await using root = await tempDir();
  await using telegram = await startFakeTelegram();
  const bot = telegram.bot();
  for (const chat of [42, 777, -100123]) bot.knowChat(chat);
  const { profile, home } = await profileAt(
    root.path,
    {
      config: "platforms:\n  telegram:\n    home_channel: -100123\n",
      dotenv: `TELEGRAM_BOT_TOKEN=${FAKE_TELEGRAM_TOKEN}\n`,
    },
    { TELEGRAM_API_BASE: telegram.baseUrl },
  );
  await openChatSessionStore(home).set({ platform: "telegram", chatId: "42" }, "ses_a");
  const agent = { knownTargetsOnly: true };
  const stranger = await rejectsWith(
    sendMessage(profile, "telegram:777", "secrets", agent),
    "send_target_not_known",
    "usage",
  );
  assert.match(stranger.message, /telegram:777 is neither/);
  assert.equal(bot.sent.length, 0, "nothing reached the stranger");
  await sendMessage(profile, "telegram:42", "to a known chat", agent);
  await sendMessage(profile, "telegram", "to the home channel", agent);
  await sendMessage(profile, "telegram:-100123", "to the home channel by id", agent);
  assert.deepEqual(bot.sent.map((m) => [m.chatId, m.text]), [
    [42, "to a known chat"],
    [-100123, "to the home channel"],
    [-100123, "to the home channel by id"],
  ]);
  // A person is not bounded: herald send reaches any chat.
  await sendMessage(profile, "telegram:777", "from the owner");
  assert.equal(bot.sent.at(-1)?.chatId, 777);
});

Deno.test("listTargets shows each platform: configured, enabled, home channel and the gateway's chats", async () => {
  await using root = await tempDir();
  const { profile, home } = await profileAt(
    root.path,
    {
      config: "platforms:\n  telegram:\n    enabled: true\n    home_channel: -100123\n" +
        "  line:\n    home_channel: bad value\n",
      dotenv: `TELEGRAM_BOT_TOKEN=${FAKE_TELEGRAM_TOKEN}\nAPI_SERVER_ENABLED=yes\n`,
    },
  );
  const chats = openChatSessionStore(home);
  await chats.set({ platform: "telegram", chatId: "42" }, "ses_a");
  await chats.set({ platform: "telegram", chatId: "-100777", threadId: "5" }, "ses_b");
  await chats.set({ platform: "line", chatId: "U0123" }, "ses_c");
  const view = await listTargets(profile);
  assert.equal(view.profile, "default");
  const byId = Object.fromEntries(view.platforms.map((p) => [p.platform, p]));
  assert.deepEqual(Object.keys(byId).sort(), ["api_server", "line", "telegram"]);
  assert.deepEqual(byId.telegram, {
    platform: "telegram",
    label: "Telegram",
    configured: true,
    enabled: true,
    can_send: true,
    home_channel: "telegram:-100123",
    chats: ["telegram:-100777:5", "telegram:42"],
  });
  assert.deepEqual(byId.line, {
    platform: "line",
    label: "LINE",
    configured: false,
    enabled: false,
    can_send: true,
    home_channel: null,
    chats: ["line:U0123"],
  });
  assert.equal(byId.api_server.enabled, true);
  assert.equal(byId.api_server.can_send, false);
});

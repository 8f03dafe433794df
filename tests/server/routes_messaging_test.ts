/**
 * `/api/messaging/platforms`: the catalog with per-profile status, saving a
 * platform (secrets to `.env`, enable/disable to config), and the test call:
 * the configuration first (no network call while it is incomplete), then
 * the platform's API (the fake Telegram's `getMe`, the fake LINE's bot info
 * on 127.0.0.1, reached through `TELEGRAM_API_BASE` / `LINE_API_BASE` in the
 * profile's `.env`).
 */

import assert from "node:assert/strict";
import { parseConfig } from "../../core/config/mod.ts";
import { tempDir } from "../_helpers.ts";
import { FAKE_TELEGRAM_TOKEN, startFakeTelegram } from "../fakes/telegram_api.ts";
import { FAKE_LINE_SECRET, FAKE_LINE_TOKEN, startFakeLine } from "../fakes/line_api.ts";
import { readOr, routesApp } from "./_routes.ts";

type Json = Record<string, unknown>;

const TELEGRAM_TOKEN = "123456789:AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsaw0";

/** Writes the profile's `.env` from `values`. */
async function writeEnv(path: string, values: Record<string, string>): Promise<void> {
  const text = Object.entries(values).map(([name, value]) => `${name}="${value}"`).join("\n");
  await Deno.writeTextFile(path, text + "\n");
}

/** A base URL on 127.0.0.1 where nothing listens. */
function closedBase(): string {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (listener.addr as Deno.NetAddr).port;
  listener.close();
  return `http://127.0.0.1:${port}`;
}

Deno.test("the platform catalog lists telegram, line, the API server, discord and slack with their secrets and status", async () => {
  await using home = await tempDir();
  const { json } = await routesApp(home.path);
  const { status, body } = await json("GET", "/api/messaging/platforms");
  assert.equal(status, 200);
  const platforms = body.platforms as Json[];
  assert.deepEqual(platforms.map((p) => p.id), [
    "telegram",
    "line",
    "api_server",
    "discord",
    "slack",
  ]);
  const apiServer = platforms.find((p) => p.id === "api_server")!;
  assert.deepEqual((apiServer.env as Json[]).map((e) => e.name), ["API_SERVER_KEY"]);
  assert.equal(apiServer.has_bot, false);
  assert.ok((apiServer.config_keys as string[]).includes("platforms.api_server.port"));
  const line = platforms.find((p) => p.id === "line")!;
  assert.deepEqual((line.env as Json[]).map((e) => e.name), [
    "LINE_CHANNEL_ACCESS_TOKEN",
    "LINE_CHANNEL_SECRET",
  ]);
  assert.equal(line.configured, false);
  assert.equal(line.enabled, false);
  assert.ok((line.config_keys as string[]).includes("platforms.line.enabled"));
});

Deno.test("a platform switched on by <ID>_ENABLED in .env is listed enabled, as the gateway runs it", async () => {
  await using home = await tempDir();
  await writeEnv(`${home.path}/.env`, {
    API_SERVER_ENABLED: "true",
    API_SERVER_KEY: "k".repeat(32),
  });
  const { json } = await routesApp(home.path);
  const { body } = await json("GET", "/api/messaging/platforms");
  const enabled = (body.platforms as Json[]).filter((p) => p.enabled).map((p) => p.id);
  assert.deepEqual(enabled, ["api_server"]);
});

Deno.test("saving a platform puts secrets in .env and enable/disable in config, never echoing a secret", async () => {
  await using home = await tempDir();
  const { json, work, main } = await routesApp(home.path);
  await Deno.writeTextFile(work.config, "# work profile\nagent:\n  max_turns: 9\n");
  const { status, body } = await json("PUT", "/api/messaging/platforms/telegram?profile=work", {
    enabled: true,
    env: { TELEGRAM_BOT_TOKEN: TELEGRAM_TOKEN },
  });
  assert.equal(status, 200, JSON.stringify(body));
  assert.deepEqual(body.saved_env, ["TELEGRAM_BOT_TOKEN"]);
  assert.ok(!JSON.stringify(body).includes(TELEGRAM_TOKEN));
  const platform = body.platform as Json;
  assert.equal(platform.configured, true);
  assert.equal(platform.enabled, true);
  const text = await Deno.readTextFile(work.config);
  assert.ok(text.includes("# work profile"));
  assert.equal(parseConfig(text, work.config).config.platforms.telegram.enabled, true);
  assert.ok(!text.includes(TELEGRAM_TOKEN));
  assert.match(await Deno.readTextFile(work.env), /^TELEGRAM_BOT_TOKEN=/m);
  assert.equal(await readOr(main.config), "", "the default profile is untouched");

  const cleared = await json("PUT", "/api/messaging/platforms/telegram?profile=work", {
    enabled: false,
    clear_env: ["TELEGRAM_BOT_TOKEN"],
  });
  assert.deepEqual(cleared.body.cleared_env, ["TELEGRAM_BOT_TOKEN"]);
  assert.equal((cleared.body.platform as Json).configured, false);
  assert.equal((cleared.body.platform as Json).enabled, false);
  assert.ok(!/TELEGRAM_BOT_TOKEN=/.test(await Deno.readTextFile(work.env)));
});

Deno.test("saving a platform refuses variables it does not use and empty values", async () => {
  await using home = await tempDir();
  const { json } = await routesApp(home.path);
  const foreign = await json("PUT", "/api/messaging/platforms/slack", {
    env: { OPENAI_API_KEY: "x" },
  });
  assert.equal(foreign.status, 400);
  assert.equal(foreign.body.error?.code, "platform_env_unknown");
  const empty = await json("PUT", "/api/messaging/platforms/slack", {
    env: { SLACK_BOT_TOKEN: " " },
  });
  assert.equal(empty.status, 400);
  const unknown = await json("PUT", "/api/messaging/platforms/icq", { enabled: true });
  assert.equal(unknown.status, 404);
  assert.equal(unknown.body.error?.code, "platform_unknown");
  assert.equal((await json("POST", "/api/messaging/platforms/icq/test", {})).status, 404);
});

Deno.test("the platform test stops at the configuration when a secret is missing or malformed, asking nothing", async () => {
  await using home = await tempDir();
  await using line = await startFakeLine();
  const { json, main } = await routesApp(home.path);
  await writeEnv(main.env, { LINE_API_BASE: line.apiBase });
  const missing = (await json("POST", "/api/messaging/platforms/line/test")).body;
  assert.equal(missing.ok, false);
  assert.deepEqual(missing.missing, ["LINE_CHANNEL_ACCESS_TOKEN", "LINE_CHANNEL_SECRET"]);
  assert.equal(missing.network, false);
  assert.equal(missing.checked, "configuration");
  assert.match(String(missing.note), /Only the configuration was checked/);

  await writeEnv(main.env, {
    LINE_API_BASE: line.apiBase,
    LINE_CHANNEL_ACCESS_TOKEN: FAKE_LINE_TOKEN,
    LINE_CHANNEL_SECRET: "not-hex",
  });
  const malformed = (await json("POST", "/api/messaging/platforms/line/test", {})).body;
  assert.equal(malformed.ok, false);
  assert.equal(malformed.network, false);
  assert.deepEqual(malformed.missing, []);
  assert.deepEqual((malformed.malformed as Json[]).map((m) => m.name), ["LINE_CHANNEL_SECRET"]);
  assert.ok(!JSON.stringify(malformed).includes("not-hex"));
  assert.ok(!JSON.stringify(malformed).includes(FAKE_LINE_TOKEN));
  assert.deepEqual(line.requests, [], "LINE was not asked");
});

Deno.test("the Telegram test asks getMe with the profile's token and answers the bot's username", async () => {
  await using home = await tempDir();
  await using telegram = await startFakeTelegram();
  const { json, work } = await routesApp(home.path);
  await writeEnv(work.env, {
    TELEGRAM_BOT_TOKEN: FAKE_TELEGRAM_TOKEN,
    TELEGRAM_API_BASE: telegram.baseUrl,
  });
  const { status, body } = await json("POST", "/api/messaging/platforms/telegram/test", {
    profile: "work",
  });
  assert.equal(status, 200, JSON.stringify(body));
  assert.deepEqual(body, {
    profile: "work",
    platform: "telegram",
    network: true,
    checked: "platform",
    ok: true,
    identity: `@${telegram.bot().username}`,
  });
  assert.deepEqual(telegram.bot().calls.map((call) => call.method), ["getMe"]);
});

Deno.test("a Telegram token the platform refuses is a failed test that names the variable, never the token", async () => {
  await using home = await tempDir();
  await using telegram = await startFakeTelegram();
  const { json, main } = await routesApp(home.path);
  // Well formed, so the test goes past the configuration; the fake knows no such bot (401).
  await writeEnv(main.env, {
    TELEGRAM_BOT_TOKEN: TELEGRAM_TOKEN,
    TELEGRAM_API_BASE: telegram.baseUrl,
  });
  const { status, body } = await json("POST", "/api/messaging/platforms/telegram/test", {});
  assert.equal(status, 200);
  assert.equal(body.ok, false);
  assert.equal(body.network, true);
  assert.equal(body.checked, "platform");
  assert.match(String(body.error), /Telegram refused the bot token \(401\).*TELEGRAM_BOT_TOKEN/);
  assert.ok(!JSON.stringify(body).includes(TELEGRAM_TOKEN));
  assert.ok(!JSON.stringify(body).includes(TELEGRAM_TOKEN.split(":")[1]));
});

Deno.test("a Telegram API that cannot be reached is a failed test saying so, without the token", async () => {
  await using home = await tempDir();
  const { json, main } = await routesApp(home.path);
  await writeEnv(main.env, { TELEGRAM_BOT_TOKEN: TELEGRAM_TOKEN, TELEGRAM_API_BASE: closedBase() });
  const { status, body } = await json("POST", "/api/messaging/platforms/telegram/test", {});
  assert.equal(status, 200);
  assert.equal(body.ok, false);
  assert.equal(body.network, true);
  assert.match(String(body.error), /Telegram/);
  assert.ok(!JSON.stringify(body).includes(TELEGRAM_TOKEN.split(":")[1]), JSON.stringify(body));
});

Deno.test("a platform setting that is wrong besides the secrets stops the test before the network", async () => {
  await using home = await tempDir();
  const { json, main } = await routesApp(home.path);
  await writeEnv(main.env, {
    TELEGRAM_BOT_TOKEN: TELEGRAM_TOKEN,
    TELEGRAM_API_BASE: "ftp://example.invalid",
  });
  const { body } = await json("POST", "/api/messaging/platforms/telegram/test", {});
  assert.equal(body.ok, false);
  assert.equal(body.network, false);
  assert.equal(body.checked, "configuration");
  assert.match(String(body.error), /TELEGRAM_API_BASE/);
  assert.ok(!JSON.stringify(body).includes(TELEGRAM_TOKEN));
});

Deno.test("the LINE test asks for the bot info and answers its name; a refused token says which variable", async () => {
  await using home = await tempDir();
  await using line = await startFakeLine();
  const { json, main } = await routesApp(home.path);
  await writeEnv(main.env, {
    LINE_CHANNEL_ACCESS_TOKEN: FAKE_LINE_TOKEN,
    LINE_CHANNEL_SECRET: FAKE_LINE_SECRET,
    LINE_API_BASE: line.apiBase,
  });
  const reached = (await json("POST", "/api/messaging/platforms/line/test", {})).body;
  assert.equal(reached.ok, true, JSON.stringify(reached));
  assert.equal(reached.network, true);
  assert.equal(reached.identity, "Herald Test Bot (@123herald)");
  assert.deepEqual(line.requests.map((r) => `${r.method} ${r.path}`), ["GET /v2/bot/info"]);

  const wrong = "someOtherChannelAccessToken0123456789abcdef=";
  await writeEnv(main.env, {
    LINE_CHANNEL_ACCESS_TOKEN: wrong,
    LINE_CHANNEL_SECRET: FAKE_LINE_SECRET,
    LINE_API_BASE: line.apiBase,
  });
  const refused = (await json("POST", "/api/messaging/platforms/line/test", {})).body;
  assert.equal(refused.ok, false);
  assert.equal(refused.network, true);
  assert.match(String(refused.error), /LINE refused the channel access token \(401\)/);
  assert.ok(!JSON.stringify(refused).includes(wrong));
});

Deno.test("the API server and platforms this build cannot reach stay a configuration check that says so", async () => {
  await using home = await tempDir();
  const { json, main } = await routesApp(home.path);
  const unset = (await json("POST", "/api/messaging/platforms/api_server/test", {})).body;
  assert.equal(unset.ok, false);
  assert.deepEqual(unset.missing, ["API_SERVER_KEY"]);

  await writeEnv(main.env, {
    API_SERVER_KEY: "a-long-random-key-0123456789",
    DISCORD_BOT_TOKEN: "MTA1NjY3ODkwMTIzNDU2Nzg5MA.GaBcDe.abcdefghijklmnopqrstuvwxyz012345",
  });
  const server = (await json("POST", "/api/messaging/platforms/api_server/test", {})).body;
  assert.equal(server.ok, true, JSON.stringify(server));
  assert.equal(server.network, false);
  assert.equal(server.checked, "configuration");
  assert.match(String(server.note), /no bot to ask/);
  assert.ok(!JSON.stringify(server).includes("a-long-random-key"));

  const discord = (await json("POST", "/api/messaging/platforms/discord/test", {})).body;
  assert.equal(discord.ok, true);
  assert.equal(discord.network, false);
  assert.match(String(discord.note), /cannot connect to Discord yet/);
});

Deno.test("each platform's secrets are checked against the shape the platform issues", async () => {
  await using telegram = await startFakeTelegram({ bots: [{ token: TELEGRAM_TOKEN }] });
  const cases: [string, Record<string, string>, boolean][] = [
    ["telegram", { TELEGRAM_BOT_TOKEN: TELEGRAM_TOKEN }, true],
    ["telegram", { TELEGRAM_BOT_TOKEN: "AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsaw0" }, false],
    ["discord", {
      DISCORD_BOT_TOKEN: "MTA1NjY3ODkwMTIzNDU2Nzg5MA.GaBcDe.abcdefghijklmnopqrstuvwxyz012345",
    }, true],
    ["discord", { DISCORD_BOT_TOKEN: "not a token" }, false],
    ["slack", {
      SLACK_BOT_TOKEN: "xoxb-1234-5678-abcdefghij",
      SLACK_APP_TOKEN: "xapp-1-A0-123-abc",
    }, true],
    ["slack", {
      SLACK_BOT_TOKEN: "xoxp-1234-5678-abcdefghij",
      SLACK_APP_TOKEN: "xapp-1-A0-123-abc",
    }, false],
  ];
  for (const [platform, env, ok] of cases) {
    await using home = await tempDir();
    const { json, main } = await routesApp(home.path);
    await writeEnv(main.env, { ...env, TELEGRAM_API_BASE: telegram.baseUrl });
    const { body } = await json("POST", `/api/messaging/platforms/${platform}/test`, {});
    assert.equal(body.ok, ok, `${platform} ${JSON.stringify(env)}: ${JSON.stringify(body)}`);
    if (!ok) assert.equal(body.checked, "configuration");
  }
});

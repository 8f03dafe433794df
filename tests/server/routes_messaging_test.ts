/**
 * `/api/messaging/platforms`: the catalog with per-profile status, saving a
 * platform (secrets to `.env`, enable/disable to config), and the
 * configuration check that makes no network call.
 */

import assert from "node:assert/strict";
import { parseConfig } from "../../core/config/mod.ts";
import { tempDir } from "../_helpers.ts";
import { readOr, routesApp } from "./_routes.ts";

type Json = Record<string, unknown>;

const TELEGRAM_TOKEN = "123456789:AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsaw0";

Deno.test("the platform catalog lists telegram, line, discord and slack with their secrets and status", async () => {
  await using home = await tempDir();
  const { json } = await routesApp(home.path);
  const { status, body } = await json("GET", "/api/messaging/platforms");
  assert.equal(status, 200);
  const platforms = body.platforms as Json[];
  assert.deepEqual(platforms.map((p) => p.id), ["telegram", "line", "discord", "slack"]);
  const line = platforms.find((p) => p.id === "line")!;
  assert.deepEqual((line.env as Json[]).map((e) => e.name), [
    "LINE_CHANNEL_ACCESS_TOKEN",
    "LINE_CHANNEL_SECRET",
  ]);
  assert.equal(line.configured, false);
  assert.equal(line.enabled, false);
  assert.ok((line.config_keys as string[]).includes("platforms.line.enabled"));
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

Deno.test("the platform test checks presence and format only and says no network call was made", async () => {
  await using home = await tempDir();
  const { json, main } = await routesApp(home.path);
  const missing = (await json("POST", "/api/messaging/platforms/line/test")).body;
  assert.equal(missing.ok, false);
  assert.deepEqual(missing.missing, ["LINE_CHANNEL_ACCESS_TOKEN", "LINE_CHANNEL_SECRET"]);
  assert.equal(missing.network, false);
  assert.match(String(missing.note), /no network call was made/);

  await Deno.writeTextFile(
    main.env,
    "LINE_CHANNEL_ACCESS_TOKEN=abcdefghijklmnopqrstuvwxyz0123456789\nLINE_CHANNEL_SECRET=not-hex\n",
  );
  const malformed = (await json("POST", "/api/messaging/platforms/line/test", {})).body;
  assert.equal(malformed.ok, false);
  assert.deepEqual(malformed.missing, []);
  assert.deepEqual((malformed.malformed as Json[]).map((m) => m.name), ["LINE_CHANNEL_SECRET"]);
  assert.ok(!JSON.stringify(malformed).includes("not-hex"));

  await Deno.writeTextFile(
    main.env,
    "LINE_CHANNEL_ACCESS_TOKEN=abcdefghijklmnopqrstuvwxyz0123456789\n" +
      "LINE_CHANNEL_SECRET=0123456789abcdef0123456789ABCDEF\n",
  );
  const ok = (await json("POST", "/api/messaging/platforms/line/test", {})).body;
  assert.equal(ok.ok, true);
  assert.equal(ok.checked, "configuration");
  assert.equal(ok.network, false);
});

Deno.test("each platform's secrets are checked against the shape the platform issues", async () => {
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
    await Deno.writeTextFile(
      main.env,
      Object.entries(env).map(([name, value]) => `${name}="${value}"`).join("\n") + "\n",
    );
    const { body } = await json("POST", `/api/messaging/platforms/${platform}/test`, {});
    assert.equal(body.ok, ok, `${platform} ${JSON.stringify(env)}: ${JSON.stringify(body)}`);
  }
});

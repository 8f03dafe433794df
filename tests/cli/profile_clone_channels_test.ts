/**
 * `herald profile create --clone[-all]` leaves the messaging platforms' bot
 * tokens out of the copied `.env`, so two profiles never serve one bot,
 * unless `--clone-channels`.
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { captureOutput, run } from "../../cli/app.ts";
import { CHANNEL_SECRET_NAMES } from "../../core/profiles/mod.ts";
import { tempDir } from "../_helpers.ts";

async function herald(home: string, ...argv: string[]) {
  const io = captureOutput();
  const code = await run(argv, { io, env: { HERALD_HOME: home, HOME: "/nonexistent" } });
  return { code, stdout: io.stdout, stderr: io.stderr };
}

const ENV = [
  "# my secrets",
  "OPENAI_API_KEY=sk-keep-me",
  "TELEGRAM_BOT_TOKEN=123456:ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghij",
  'export SLACK_APP_TOKEN="xapp-1-abcdefghijkl"',
  "LINE_CHANNEL_SECRET=0123456789abcdef0123456789abcdef",
  "OTHER=value",
  "",
].join("\n");

async function rootWithBots(root: string): Promise<void> {
  assert.equal((await herald(root, "config", "set", "agent.max_turns", "7")).code, 0);
  await Deno.writeTextFile(join(root, ".env"), ENV, { mode: 0o600 });
}

Deno.test("--clone-all and --clone leave the bot tokens behind and say which", async () => {
  await using home = await tempDir();
  await rootWithBots(home.path);
  for (const flag of ["--clone-all", "--clone"]) {
    const name = flag === "--clone-all" ? "twin" : "copy";
    const result = await herald(home.path, "profile", "create", name, flag, "--json");
    assert.equal(result.code, 0, result.stderr);
    const created = JSON.parse(result.stdout);
    assert.deepEqual(created.stripped_secrets, [
      "TELEGRAM_BOT_TOKEN",
      "LINE_CHANNEL_SECRET",
      "SLACK_APP_TOKEN",
    ]);
    const env = join(home.path, "profiles", name, ".env");
    assert.equal(
      await Deno.readTextFile(env),
      "# my secrets\nOPENAI_API_KEY=sk-keep-me\nOTHER=value\n",
      flag,
    );
    assert.equal(Deno.statSync(env).mode! & 0o777, 0o600);
  }
  assert.equal(await Deno.readTextFile(join(home.path, ".env")), ENV, "the source keeps them");
  const text = await herald(home.path, "profile", "create", "third", "--clone-all");
  assert.match(
    text.stdout,
    /Messaging secrets not copied .*: TELEGRAM_BOT_TOKEN, LINE_CHANNEL_SECRET, SLACK_APP_TOKEN; keep them with --clone-channels/,
  );
  // Every platform secret is covered.
  assert.deepEqual(CHANNEL_SECRET_NAMES, [
    "TELEGRAM_BOT_TOKEN",
    "LINE_CHANNEL_ACCESS_TOKEN",
    "LINE_CHANNEL_SECRET",
    "DISCORD_BOT_TOKEN",
    "SLACK_BOT_TOKEN",
    "SLACK_APP_TOKEN",
  ]);
});

Deno.test("--clone-channels keeps the copied .env as it was; alone it is a usage error", async () => {
  await using home = await tempDir();
  await rootWithBots(home.path);
  const kept = await herald(
    home.path,
    "profile",
    "create",
    "twin",
    "--clone-all",
    "--clone-channels",
    "--json",
  );
  assert.equal(kept.code, 0, kept.stderr);
  assert.deepEqual(JSON.parse(kept.stdout).stripped_secrets, []);
  assert.equal(await Deno.readTextFile(join(home.path, "profiles", "twin", ".env")), ENV);

  const alone = await herald(home.path, "profile", "create", "lonely", "--clone-channels");
  assert.equal(alone.code, 2);
  assert.match(alone.stderr, /--clone-channels only applies with --clone or --clone-all/);
  const fresh = JSON.parse(
    (await herald(home.path, "profile", "create", "fresh", "--json")).stdout,
  );
  assert.deepEqual(fresh.stripped_secrets, []);
});

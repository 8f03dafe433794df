/**
 * The `.env` use cases over a real profile home: list with previews and
 * usage (never a value), set with the name and size checks, delete and
 * reveal with `not_found` for a missing variable; and the messaging-platform
 * setup, which stores its secrets through the same files.
 */

import assert from "node:assert/strict";
import { MAX_ENV_VALUE_BYTES, parseConfig } from "../../../core/config/mod.ts";
import { HeraldError, ValueTooLargeError } from "../../../core/errors.ts";
import {
  deleteEnv,
  EnvNameError,
  EnvNotSetError,
  envUsage,
  listEnv,
  revealEnv,
  setEnv,
} from "../../../core/usecases/env.ts";
import {
  listPlatforms,
  PlatformUnknownError,
  savePlatform,
  testPlatform,
} from "../../../core/usecases/messaging.ts";
import { profilePaths } from "../../../adapters/home/mod.ts";
import { openProfileContext } from "../../../adapters/runtime/profile_context.ts";
import { tempDir } from "../../_helpers.ts";
import { startFakeTelegram } from "../../fakes/telegram_api.ts";

const TELEGRAM_TOKEN = "123456789:AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsaw0";

function profileAt(root: string, env: Record<string, string> = {}) {
  const paths = profilePaths(root, "default");
  return { paths, profile: openProfileContext(paths, env) };
}

Deno.test("setEnv stores a value at 0600; listEnv shows a preview and its users, never the value", async () => {
  await using home = await tempDir();
  const { paths, profile } = profileAt(home.path);
  const secret = "sk-ant-very-secret-0042";
  const set = await setEnv(profile, " ANTHROPIC_API_KEY ", secret);
  assert.deepEqual(set, {
    profile: "default",
    key: "ANTHROPIC_API_KEY",
    set: true,
    preview: "…0042",
  });
  await setEnv(profile, "SHORT", "abc");
  assert.equal((await Deno.stat(paths.env)).mode! & 0o777, 0o600);
  const listed = await listEnv(profile);
  assert.equal(listed.file, paths.env);
  assert.ok(!JSON.stringify(listed).includes(secret));
  assert.deepEqual(listed.variables, [
    { name: "ANTHROPIC_API_KEY", set: true, preview: "…0042", used_by: ["provider:anthropic"] },
    { name: "SHORT", set: true, preview: "…", used_by: [] },
  ]);
  assert.deepEqual((await revealEnv(profile, "ANTHROPIC_API_KEY")).value, secret);
});

Deno.test("env names must look like variable names and values must fit, or nothing is written", async () => {
  await using home = await tempDir();
  const { paths, profile } = profileAt(home.path);
  for (const name of ["1ABC", "A-B", "A B", "", "X=Y", "A".repeat(129)]) {
    await assert.rejects(
      () => setEnv(profile, name, "v"),
      (error) => error instanceof EnvNameError && error.kind === "usage",
      JSON.stringify(name),
    );
  }
  await assert.rejects(
    () => setEnv(profile, "BIG_TOKEN", "t".repeat(MAX_ENV_VALUE_BYTES + 1)),
    ValueTooLargeError,
  );
  await assert.rejects(() => Deno.stat(paths.env), Deno.errors.NotFound);
});

Deno.test("deleteEnv and revealEnv say not_found for a variable that is not set", async () => {
  await using home = await tempDir();
  const { paths, profile } = profileAt(home.path);
  await setEnv(profile, "ONE", "1");
  await setEnv(profile, "TWO", "2");
  assert.deepEqual(await deleteEnv(profile, "ONE"), { profile: "default", key: "ONE", set: false });
  for (const attempt of [() => deleteEnv(profile, "ONE"), () => revealEnv(profile, "ONE")]) {
    await assert.rejects(
      attempt,
      (error) =>
        error instanceof EnvNotSetError && error.kind === "not_found" &&
        error.code === "env_not_set" && error.message === `ONE is not set in ${paths.env}`,
    );
  }
  const text = await Deno.readTextFile(paths.env);
  assert.match(text, /^TWO=2$/m);
  assert.doesNotMatch(text, /^ONE=/m);
});

Deno.test("envUsage names the providers, platforms and managed tools that read a variable", () => {
  assert.deepEqual(envUsage("OPENROUTER_API_KEY"), ["provider:openrouter"]);
  assert.deepEqual(envUsage("TELEGRAM_BOT_TOKEN"), ["platform:telegram"]);
  assert.deepEqual(envUsage("FAL_KEY"), ["tool:image_generation"]);
  assert.deepEqual(envUsage("NOTHING_READS_THIS"), []);
});

Deno.test("savePlatform stores secrets in .env and enabled in config.yaml, and clears what is listed", async () => {
  await using home = await tempDir();
  await using telegram = await startFakeTelegram({ bots: [{ token: TELEGRAM_TOKEN }] });
  const { paths, profile } = profileAt(home.path, { TELEGRAM_API_BASE: telegram.baseUrl });
  await Deno.mkdir(paths.home, { recursive: true });
  await Deno.writeTextFile(paths.config, "# mine\nagent:\n  max_turns: 9\n");
  const saved = await savePlatform(profile, "telegram", {
    enabled: true,
    env: { TELEGRAM_BOT_TOKEN: ` ${TELEGRAM_TOKEN} ` },
  });
  assert.deepEqual(saved.saved_env, ["TELEGRAM_BOT_TOKEN"]);
  assert.ok(!JSON.stringify(saved).includes(TELEGRAM_TOKEN));
  assert.equal(saved.platform.configured, true);
  assert.equal(saved.platform.enabled, true);
  const text = await Deno.readTextFile(paths.config);
  assert.ok(text.includes("# mine"));
  assert.equal(parseConfig(text, paths.config).config.platforms.telegram.enabled, true);
  assert.match(
    await Deno.readTextFile(paths.env),
    new RegExp(`^TELEGRAM_BOT_TOKEN=${TELEGRAM_TOKEN}$`, "m"),
  );
  assert.equal((await testPlatform(profile, "telegram")).ok, true);

  const cleared = await savePlatform(profile, "telegram", {
    enabled: false,
    clear_env: ["TELEGRAM_BOT_TOKEN"],
  });
  assert.deepEqual(cleared.cleared_env, ["TELEGRAM_BOT_TOKEN"]);
  assert.deepEqual([cleared.platform.configured, cleared.platform.enabled], [false, false]);
  const listed = await listPlatforms(profile);
  assert.deepEqual(listed.platforms.map((p) => p.id), [
    "telegram",
    "line",
    "api_server",
    "discord",
    "slack",
  ]);
});

Deno.test("savePlatform refuses foreign variables, empty values and unknown platforms, writing nothing", async () => {
  await using home = await tempDir();
  const { paths, profile } = profileAt(home.path);
  await assert.rejects(
    () => savePlatform(profile, "slack", { env: { OPENAI_API_KEY: "x" } }),
    (error) => error instanceof HeraldError && error.code === "platform_env_unknown",
  );
  await assert.rejects(
    () => savePlatform(profile, "slack", { enabled: true, env: { SLACK_BOT_TOKEN: " " } }),
    /is empty; to remove it, list it in clear_env/,
  );
  await assert.rejects(() => savePlatform(profile, "icq", { enabled: true }), PlatformUnknownError);
  await assert.rejects(() => testPlatform(profile, "icq"), PlatformUnknownError);
  await assert.rejects(() => Deno.stat(paths.config), Deno.errors.NotFound);
  await assert.rejects(() => Deno.stat(paths.env), Deno.errors.NotFound);
});

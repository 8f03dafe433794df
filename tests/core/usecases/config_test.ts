/**
 * The config use cases over a real profile home: show and get with secrets
 * hidden, typed edits that keep comments and put secrets in `.env`, partial
 * config objects that ignore values sent back redacted, the raw text with
 * its version and the 409 rule, and the doctor's config check.
 */

import assert from "node:assert/strict";
import {
  configObjectEdits,
  configTextVersion,
  configValueFromJson,
  configValueFromText,
  parseConfig,
  planConfigEdits,
  planConfigSet,
} from "../../../core/config/mod.ts";
import {
  ConfigKeyError,
  ConfigParseError,
  ConfigValueError,
  HeraldError,
} from "../../../core/errors.ts";
import {
  checkConfig,
  ConfigChangedError,
  editConfig,
  editConfigObject,
  readConfigValue,
  readRawConfig,
  saveRawConfig,
  showConfig,
} from "../../../core/usecases/config.ts";
import { profilePaths } from "../../../adapters/home/mod.ts";
import { openProfileContext } from "../../../adapters/runtime/profile_context.ts";
import { tempDir } from "../../_helpers.ts";

const COMMENTED =
  "# mine\nmodel:\n  provider: openrouter # cheap\nagent:\n  max_turns: 12 # short\n";

function profileAt(root: string, env: Record<string, string> = {}) {
  const paths = profilePaths(root, "default");
  return { paths, profile: openProfileContext(paths, env) };
}

async function readOr(path: string): Promise<string> {
  return await Deno.readTextFile(path).catch(() => "");
}

Deno.test("showConfig gives defaults, the file and warnings, with literal and .env secrets hidden", async () => {
  await using home = await tempDir();
  const { paths, profile } = profileAt(home.path, { FROM_ENV: "env-secret-value-99" });
  await Deno.mkdir(paths.home, { recursive: true });
  await Deno.writeTextFile(
    paths.config,
    "model:\n  api_key: sk-literal-secret-123456\n" +
      "mcp_servers:\n  web:\n    url: https://h/mcp\n    headers:\n" +
      "      Authorization: Bearer header-secret-0042\nnot_a_key: 1\n",
  );
  const shown = await showConfig(profile);
  assert.equal(shown.profile, "default");
  assert.equal(shown.file, paths.config);
  assert.equal(shown.config.agent.max_turns, 90);
  assert.equal(shown.config.model.api_key, "…3456");
  const text = JSON.stringify(shown);
  assert.ok(!text.includes("sk-literal-secret") && !text.includes("header-secret"), text);
  assert.deepEqual(shown.warnings.map((w) => w.path), ["not_a_key"]);

  const key = await readConfigValue(profile, "model.api_key");
  assert.deepEqual(key.view, { key: "model.api_key", value: "…3456" });
  const unset = await readConfigValue(profile, "model.default");
  assert.deepEqual([unset.set, unset.view.value], [false, null]);
  await assert.rejects(() => readConfigValue(profile, "model.nope"), ConfigKeyError);
});

Deno.test("editConfig writes typed values with comments kept and secrets in .env first", async () => {
  await using home = await tempDir();
  const { paths, profile } = profileAt(home.path);
  await Deno.mkdir(paths.home, { recursive: true });
  await Deno.writeTextFile(paths.config, COMMENTED);
  const result = await editConfig(profile, [
    { key: "agent.max_turns", value: 30 },
    { key: "plugins", value: ["one.ts"] },
    { key: "model.api_key", value: "sk-or-new-key-0001" },
    { key: "TELEGRAM_BOT_TOKEN", value: "123:abc" },
  ]);
  assert.deepEqual(result.changed, ["agent.max_turns", "plugins", "model.api_key"]);
  assert.deepEqual(result.secrets, [
    { name: "OPENROUTER_API_KEY", key: "model.api_key" },
    { name: "TELEGRAM_BOT_TOKEN", key: null },
  ]);
  assert.ok(!JSON.stringify(result).includes("sk-or-new-key"));
  const text = await Deno.readTextFile(paths.config);
  assert.ok(text.includes("# mine") && text.includes("# cheap") && text.includes("# short"));
  const config = parseConfig(text, paths.config).config;
  assert.equal(config.agent.max_turns, 30);
  assert.deepEqual(config.plugins, ["one.ts"]);
  assert.equal(config.model.api_key, "${OPENROUTER_API_KEY}");
  const env = await Deno.readTextFile(paths.env);
  assert.match(env, /^OPENROUTER_API_KEY=sk-or-new-key-0001$/m);
  assert.match(env, /^TELEGRAM_BOT_TOKEN=123:abc$/m);

  const removed = await editConfig(profile, [{ key: "agent.max_turns", value: null }]);
  assert.deepEqual(removed.removed, ["agent.max_turns"]);
  assert.equal((await showConfig(profile)).config.agent.max_turns, 90);
});

Deno.test("editConfig takes typed values: a string is not re-read as YAML, and nothing is written on a refusal", async () => {
  await using home = await tempDir();
  const { paths, profile } = profileAt(home.path);
  await Deno.mkdir(paths.home, { recursive: true });
  await Deno.writeTextFile(paths.config, COMMENTED);
  await assert.rejects(
    () => editConfig(profile, [{ key: "agent.max_turns", value: "30" }]),
    (error) => error instanceof ConfigValueError && error.key === "agent.max_turns",
  );
  await assert.rejects(
    () =>
      editConfig(profile, [{ key: "agent.dump_requests", value: true }, {
        key: "agent",
        value: 1,
      }]),
    /is a section/,
  );
  await assert.rejects(
    () => editConfig(profile, [{ key: "model.api_key", value: 1234567 }]),
    (error) =>
      error instanceof HeraldError && error.kind === "usage" && !/1234567/.test(error.message),
  );
  assert.equal(await Deno.readTextFile(paths.config), COMMENTED);
  assert.doesNotMatch(await readOr(paths.env), /1234567|OPENROUTER_API_KEY/);
});

Deno.test("the CLI's text and the dashboard's JSON are read into typed values the same way as before", () => {
  assert.equal(configValueFromText("agent.max_turns", "30"), 30);
  assert.equal(configValueFromText("agent.dump_requests", "true"), true);
  assert.deepEqual(configValueFromText("plugins", "[a, b]"), ["a", "b"]);
  assert.equal(configValueFromText("model.default", "123"), "123");
  assert.equal(configValueFromText("model.api_key", "12345"), "12345");
  assert.throws(() => configValueFromText("agent.max_turns", "-3"), /Invalid value "-3"/);
  assert.throws(() => configValueFromText("agent.max_turn", "3"), ConfigKeyError);

  assert.equal(configValueFromJson("agent.max_turns", "30"), 30, "a JSON string for a number");
  assert.equal(configValueFromJson("agent.max_turns", 30), 30);
  assert.equal(configValueFromJson("model.default", 123), "123");
  assert.deepEqual(configValueFromJson("plugins", ["x"]), ["x"]);
  assert.equal(configValueFromJson("agent.max_turns", null), null);
  assert.throws(() => configValueFromJson("agent.max_turns", 0), /Invalid value "0"/);
  assert.throws(() => configValueFromJson("model.api_key", 5), /must be a string/);

  // The edit API itself checks typed values as they are.
  assert.equal(planConfigSet("", "c.yaml", "agent.max_turns", 7).text, "agent:\n  max_turns: 7\n");
  assert.throws(() => planConfigSet("", "c.yaml", "agent.max_turns", "7"), ConfigValueError);
  const plan = planConfigEdits("agent:\n  max_turns: 7\n", "c.yaml", [
    { key: "agent.max_turns", value: null },
    { key: "model.default", value: "m" },
  ]);
  assert.deepEqual([plan.changed, plan.removed], [["model.default"], ["agent.max_turns"]]);
});

Deno.test("editConfigObject writes only the leaves that changed and ignores secrets sent back redacted", async () => {
  await using home = await tempDir();
  const { paths, profile } = profileAt(home.path);
  await Deno.mkdir(paths.home, { recursive: true });
  await Deno.writeTextFile(
    paths.config,
    COMMENTED + "auxiliary:\n  kanban_decomposer:\n    api_key: literal-aux-key-123456\n",
  );
  const shown = (await showConfig(profile)).config;
  shown.agent.max_turns = 40;
  shown.model.default = "other/model";
  const result = await editConfigObject(profile, shown, [{
    key: "agent.dump_requests",
    value: true,
  }]);
  assert.deepEqual(result.changed, ["model.default", "agent.max_turns", "agent.dump_requests"]);
  const text = await Deno.readTextFile(paths.config);
  assert.match(text, /literal-aux-key-123456/, "the redacted secret did not overwrite the key");
  assert.ok(!/verify_file_mutations/.test(text), "defaults are not written into the file");
  assert.ok(text.includes("# short"));

  const current = parseConfig("model:\n  api_key: ${OPENAI_API_KEY}\n", "c.yaml").config;
  assert.deepEqual(configObjectEdits({ model: { api_key: "${OPENAI_API_KEY}" } }, current), []);
  assert.deepEqual(configObjectEdits({ agent: { max_turns: "30" } }, current), [
    { key: "agent.max_turns", value: 30 },
  ]);
});

Deno.test("raw config hides secrets, carries a version, puts secrets back on save and refuses a stale version", async () => {
  await using home = await tempDir();
  const { paths, profile } = profileAt(home.path);
  const empty = await readRawConfig(profile);
  assert.equal(empty.text, "");
  assert.equal(empty.version, await configTextVersion(""));
  await Deno.mkdir(paths.home, { recursive: true });
  const withSecret = COMMENTED.replace("model:\n", "model:\n  api_key: sk-very-secret-value-42\n");
  await Deno.writeTextFile(paths.config, withSecret);
  const shown = await readRawConfig(profile);
  assert.ok(!shown.text.includes("sk-very-secret"));
  assert.deepEqual(shown.redacted, ["model.api_key"]);
  assert.equal(shown.version, await configTextVersion(withSecret));

  const edited = shown.text.replace("max_turns: 12", "max_turns: 13");
  const saved = await saveRawConfig(profile, edited + "extra: 1\n", shown.version);
  assert.deepEqual(saved.warnings.map((w) => w.path), ["extra"]);
  const text = await Deno.readTextFile(paths.config);
  assert.match(text, /api_key: sk-very-secret-value-42/);
  assert.match(text, /max_turns: 13 # short/);
  assert.equal(saved.version, await configTextVersion(text));

  await assert.rejects(
    () => saveRawConfig(profile, COMMENTED, shown.version),
    (error) => error instanceof ConfigChangedError && error.kind === "conflict",
  );
  await assert.rejects(() => saveRawConfig(profile, "a: [\n", saved.version), ConfigParseError);
  assert.equal(await Deno.readTextFile(paths.config), text);

  await Deno.writeTextFile(paths.config, "a: [\n");
  assert.equal((await readRawConfig(profile)).text, "a: [\n", "a broken file is shown as it is");
});

Deno.test("checkConfig reports a parse failure, warnings and a missing model, and never throws", async () => {
  await using home = await tempDir();
  const { paths, profile } = profileAt(home.path);
  const fresh = await checkConfig(profile);
  assert.deepEqual(fresh.map((c) => [c.name, c.status]), [["config", "ok"], ["model", "warn"]]);
  await Deno.mkdir(paths.home, { recursive: true });
  await Deno.writeTextFile(paths.config, "model:\n  provider: openai\n  default: gpt\nodd: 1\n");
  const warned = await checkConfig(profile);
  assert.deepEqual(warned.map((c) => [c.name, c.status]), [["config", "warn"], ["model", "ok"]]);
  await Deno.writeTextFile(paths.config, "a: [\n");
  const broken = await checkConfig(profile);
  assert.deepEqual(broken.map((c) => [c.name, c.status]), [["config", "fail"]]);
  assert.match(broken[0].detail, /config\.yaml:\d+:\d+/);
});

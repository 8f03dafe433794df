import assert from "node:assert/strict";
import { ConfigKeyError, ConfigParseError, ConfigValueError } from "../../core/errors.ts";
import {
  appendConfigListValue,
  ConfigSchema,
  configValueFromText,
  defaultConfig,
  getConfigValue,
  isSecretKey,
  knownKeyPaths,
  parseConfig,
  parseEnv,
  planConfigSet,
  redactSecrets,
  removeEnvValue,
  secretEnvName,
  setEnvValue,
} from "../../core/config/mod.ts";

/** `herald config set <key> <text>`: the text read as the CLI reads it, then planned. */
function setFromText(text: string, file: string, key: string, raw: string) {
  return planConfigSet(text, file, key, configValueFromText(key, raw));
}

Deno.test("an empty config file gives the schema defaults", () => {
  const { config, warnings } = parseConfig("", "config.yaml");
  assert.deepEqual(config, defaultConfig());
  assert.equal(config.agent.api_max_retries, 3);
  assert.equal(config.agent.verify_file_mutations, true);
  assert.deepEqual(warnings, []);
});

Deno.test("unknown keys are reported by dotted path and do not stop loading", () => {
  const text =
    "model:\n  provider: openai\n  colour: blue\nagnt:\n  x: 1\nauxiliary:\n  vision:\n    modle: m\n";
  const { config, warnings } = parseConfig(text, "config.yaml");
  assert.equal(config.model.provider, "openai");
  assert.deepEqual(warnings.map((w) => w.path).sort(), [
    "agnt",
    "auxiliary.vision.modle",
    "model.colour",
  ]);
});

Deno.test("an invalid value falls back to its default with a warning naming the key", () => {
  const { config, warnings } = parseConfig(
    "agent:\n  max_turns: lots\n  api_max_retries: 5\n",
    "config.yaml",
  );
  assert.equal(config.agent.max_turns, defaultConfig().agent.max_turns);
  assert.equal(config.agent.api_max_retries, 5);
  assert.equal(warnings.length, 1);
  assert.equal(warnings[0].path, "agent.max_turns");
});

Deno.test("a file that is not YAML names the file, line and column", () => {
  assert.throws(
    () => parseConfig("model:\n  provider: openai\n\tdefault: x\n", "/h/config.yaml"),
    (error: unknown) =>
      error instanceof ConfigParseError && error.file === "/h/config.yaml" && error.line === 3 &&
      error.column === 1 &&
      error.message.startsWith("/h/config.yaml:3:1: Tabs are not allowed as indentation;") &&
      !error.message.includes("\n"),
  );
  assert.throws(
    () => parseConfig("a: 1\na: 2\n", "c.yaml"),
    /c\.yaml:2:1: Map keys must be unique;/,
  );
  assert.throws(() => parseConfig("a: b: c\n", "c.yaml"), /c\.yaml:1:4: Nested mappings/);
  assert.throws(() => parseConfig("- just\n- a list\n", "c.yaml"), /c\.yaml:1:1: the top level/);
});

Deno.test("${VAR} references expand from the given environment and unresolved ones warn", () => {
  const env = new Map([["OPENAI_API_KEY", "sk-test"]]);
  const { config, warnings } = parseConfig(
    "model:\n  api_key: ${OPENAI_API_KEY}\n  base_url: ${MISSING_URL}\n",
    "c.yaml",
    (name) => env.get(name),
  );
  assert.equal(config.model.api_key, "sk-test");
  assert.equal(config.model.base_url, "${MISSING_URL}");
  assert.match(warnings[0].message, /MISSING_URL/);
});

Deno.test("config set keeps the user's comments and layout", () => {
  const text =
    "# my settings\nmodel:\n  provider: openai # the usual\n\n# agent tweaks\nagent:\n  max_turns: 10\n";
  const plan = setFromText(text, "c.yaml", "agent.max_turns", "25");
  assert.equal(plan.kind, "config");
  assert.equal(
    plan.text,
    "# my settings\nmodel:\n  provider: openai # the usual\n\n# agent tweaks\nagent:\n  max_turns: 25\n",
  );
  const added = setFromText(plan.text!, "c.yaml", "model.default", "gpt-test");
  assert.ok(added.text!.includes("# the usual\n  default: gpt-test\n"), added.text ?? "");
});

Deno.test("config set types values by the schema", () => {
  const number = setFromText("", "c.yaml", "agent.api_max_retries", "7");
  assert.equal(number.kind === "config" && number.value, 7);
  const bool = setFromText("", "c.yaml", "agent.dump_requests", "true");
  assert.equal(bool.kind === "config" && bool.value, true);
  const stringy = setFromText("", "c.yaml", "model.default", "123");
  assert.equal(stringy.kind === "config" && stringy.value, "123");
  assert.equal(parseConfig(stringy.text!, "c.yaml").config.model.default, "123");
  const aux = setFromText("", "c.yaml", "auxiliary.kanban_decomposer.model", "small");
  assert.equal(parseConfig(aux.text!, "c.yaml").config.auxiliary.kanban_decomposer.model, "small");
});

Deno.test("config set refuses unknown keys with a suggestion and wrong types with the reason", () => {
  assert.throws(
    () => setFromText("", "c.yaml", "agent.max_turn", "5"),
    (e: unknown) => e instanceof ConfigKeyError && e.suggestion === "agent.max_turns",
  );
  assert.throws(() => setFromText("", "c.yaml", "nothing.like.this", "5"), ConfigKeyError);
  assert.throws(() => setFromText("", "c.yaml", "agent..x", "5"), ConfigKeyError);
  assert.throws(
    () => setFromText("", "c.yaml", "agent.max_turns", "many"),
    (e: unknown) => e instanceof ConfigValueError && e.key === "agent.max_turns",
  );
  assert.throws(() => setFromText("", "c.yaml", "agent", "5"), /is a section/);
  assert.throws(() => setFromText("a: [\n", "c.yaml", "agent.max_turns", "5"), ConfigParseError);
});

Deno.test("config set routes secrets to .env and leaves only a reference in config.yaml", () => {
  const plan = setFromText(
    "model:\n  provider: anthropic\n",
    "c.yaml",
    "model.api_key",
    "sk-ant-1",
  );
  assert.equal(plan.kind, "secret");
  if (plan.kind !== "secret") return;
  assert.equal(plan.envName, "ANTHROPIC_API_KEY");
  assert.equal(plan.secret, "sk-ant-1");
  assert.equal(plan.text, "model:\n  provider: anthropic\n  api_key: ${ANTHROPIC_API_KEY}\n");
  assert.ok(!plan.text!.includes("sk-ant-1"));
  const bare = setFromText("", "c.yaml", "OPENROUTER_API_KEY", "or-1");
  assert.deepEqual(bare, {
    kind: "secret",
    path: null,
    envName: "OPENROUTER_API_KEY",
    secret: "or-1",
    text: null,
  });
});

Deno.test("secret keys are recognised by name", () => {
  assert.ok(isSecretKey("model.api_key"));
  assert.ok(isSecretKey("platforms.telegram.bot_token"));
  assert.ok(isSecretKey("dashboard.basic_auth.password"));
  assert.ok(!isSecretKey("model.max_tokens"));
  assert.ok(!isSecretKey("model.default"));
  assert.equal(secretEnvName("model.api_key", "openrouter"), "OPENROUTER_API_KEY");
  assert.equal(secretEnvName("model.api_key", "my-llm"), "MY_LLM_API_KEY");
  assert.equal(
    secretEnvName("auxiliary.profile_describer.api_key"),
    "HERALD_AUXILIARY_PROFILE_DESCRIBER_API_KEY",
  );
});

Deno.test("literal secrets are redacted for display and references are kept", () => {
  const shown = redactSecrets({
    model: { api_key: "sk-1234567890abcdef", default: "m" },
    auxiliary: { x: { api_key: "${X_KEY}" } },
  });
  assert.equal(shown.model.api_key, "…cdef");
  assert.equal(shown.model.default, "m");
  assert.equal(shown.auxiliary.x.api_key, "${X_KEY}");
});

Deno.test("dotted keys read from plain data and the known-key list covers the schema", () => {
  assert.equal(getConfigValue(defaultConfig(), "agent.max_turns"), 90);
  assert.equal(getConfigValue(defaultConfig(), "agent.nope"), undefined);
  const keys = knownKeyPaths(ConfigSchema);
  assert.ok(keys.includes("agent.max_turns"));
  assert.ok(keys.includes("model.api_key"));
  assert.ok(keys.includes("auxiliary.<name>.model"));
});

Deno.test(".env text parses quotes, comments and export, and edits keep other lines", () => {
  const text = "# secrets\nexport A=1\nB=\"two words\"\nC='lit $x'\nD=plain # note\nnot a line\n";
  const parsed = parseEnv(text);
  assert.deepEqual(Object.fromEntries(parsed.values), {
    A: "1",
    B: "two words",
    C: "lit $x",
    D: "plain",
  });
  assert.deepEqual(parsed.warnings.map((w) => w.line), [6]);
  const edited = setEnvValue(text, "B", 'new "quoted"\nvalue');
  assert.equal(parseEnv(edited).values.get("B"), 'new "quoted"\nvalue');
  assert.ok(edited.startsWith("# secrets\nexport A=1\n"));
  assert.ok(edited.includes("not a line"));
  const appended = setEnvValue("A=1", "Z", "z");
  assert.equal(appended, "A=1\nZ=z\n");
  assert.equal(parseEnv(removeEnvValue(appended, "A")).values.has("A"), false);
});

Deno.test("adding to a config list keeps comments and never duplicates", () => {
  const text = "# approvals I trust\napprovals:\n  allow:\n    - git_reset_hard # fine here\n";
  const added = appendConfigListValue(text, "c.yaml", "approvals.allow", "rm_recursive");
  assert.equal(
    added,
    "# approvals I trust\napprovals:\n  allow:\n    - git_reset_hard # fine here\n    - rm_recursive\n",
  );
  assert.equal(appendConfigListValue(added, "c.yaml", "approvals.allow", "rm_recursive"), added);
  const fresh = appendConfigListValue("", "c.yaml", "approvals.allow", "mkfs");
  assert.deepEqual(parseConfig(fresh, "c.yaml").config.approvals.allow, ["mkfs"]);
});

/**
 * The model use cases over a real profile home: the main model as a session
 * resolves it (never the key), the provider options, the auxiliary slots,
 * the OAuth providers, and choosing the model, including the subscription's
 * tool-gateway defaults.
 */

import assert from "node:assert/strict";
import { parseConfig } from "../../../core/config/mod.ts";
import { HeraldError } from "../../../core/errors.ts";
import {
  describeAuxiliaryModels,
  describeModel,
  listModelOptions,
  listOAuthProviders,
  ModelChoiceError,
  setModel,
} from "../../../core/usecases/model.ts";
import { profilePaths } from "../../../adapters/home/mod.ts";
import { openProfileContext } from "../../../adapters/runtime/profile_context.ts";
import { tempDir } from "../../_helpers.ts";

function profileAt(root: string, env: Record<string, string> = {}) {
  const paths = profilePaths(root, "default");
  return { paths, profile: openProfileContext(paths, env) };
}

Deno.test("describeModel says where the key comes from and whether a session could start, never the key", async () => {
  await using home = await tempDir();
  const { paths, profile } = profileAt(home.path, { ANTHROPIC_API_KEY: "sk-ant-from-process" });
  const none = await describeModel(profile);
  assert.equal(none.provider, "anthropic", "detected from the environment");
  assert.equal(none.provider_source, "detected");
  assert.equal(none.ready, false);
  assert.match(String(none.problem), /No model name/);

  await Deno.mkdir(paths.home, { recursive: true });
  await Deno.writeTextFile(paths.config, "model:\n  provider: openrouter\n  default: some/model\n");
  await Deno.writeTextFile(paths.env, "OPENROUTER_API_KEY=sk-or-v1-secret-abcdef\n");
  const info = await describeModel(profile);
  assert.deepEqual(info.credential, {
    env: "OPENROUTER_API_KEY",
    present: true,
    source: "env_file",
    required: true,
  });
  assert.equal(info.base_url_source, "provider_default");
  assert.equal(info.ready, true);
  assert.ok(!JSON.stringify(info).includes("sk-or-v1-secret"));

  const options = await listModelOptions(profile);
  assert.deepEqual(options.current, { provider: "openrouter", model: "some/model" });
  const openrouter = options.providers.find((p) => p.id === "openrouter")!;
  assert.deepEqual([openrouter.key_present, openrouter.current, openrouter.oauth], [
    true,
    true,
    "pkce",
  ]);
  const oauth = await listOAuthProviders(profile);
  assert.equal(oauth.find((p) => p.provider === "openrouter")!.key_present, true);
});

Deno.test("describeAuxiliaryModels lists the known tasks and every configured slot", async () => {
  await using home = await tempDir();
  const { paths, profile } = profileAt(home.path);
  await Deno.mkdir(paths.home, { recursive: true });
  await Deno.writeTextFile(
    paths.config,
    "model:\n  provider: custom\n  base_url: http://127.0.0.1:9/v1\n  default: main-model\n" +
      "auxiliary:\n  title_generation:\n    model: small-model\n",
  );
  const { tasks } = await describeAuxiliaryModels(profile);
  assert.deepEqual(tasks.map((t) => t.task), [
    "kanban_decomposer",
    "profile_describer",
    "title_generation",
  ]);
  assert.equal(tasks[0].fallback, true);
  assert.equal(tasks[2].resolved?.model, "small-model");
});

Deno.test("setModel writes the choice, sends the key to .env and drops the old provider's endpoint", async () => {
  await using home = await tempDir();
  const { paths, profile } = profileAt(home.path);
  await Deno.mkdir(paths.home, { recursive: true });
  await Deno.writeTextFile(
    paths.config,
    "# mine\nmodel:\n  provider: custom # local\n  base_url: http://127.0.0.1:8080/v1\n  default: llama\n",
  );
  const result = await setModel(profile, {
    provider: " openrouter ",
    model: "anthropic/claude-x",
    api_key: "sk-or-v1-brand-new-key",
    context_length: 64000,
  });
  assert.equal(result.provider, "openrouter");
  assert.equal(result.base_url, null);
  assert.deepEqual(result.cleared, ["model.base_url"]);
  assert.deepEqual(result.secrets, ["OPENROUTER_API_KEY"]);
  assert.equal(result.tool_gateway, undefined);
  assert.ok(!JSON.stringify(result).includes("brand-new-key"));
  const text = await Deno.readTextFile(paths.config);
  assert.ok(text.includes("# mine"));
  assert.equal(parseConfig(text, paths.config).config.model.context_length, 64000);
  assert.match(await Deno.readTextFile(paths.env), /OPENROUTER_API_KEY=sk-or-v1-brand-new-key/);
  assert.equal((await describeModel(profile)).ready, true);
});

Deno.test("setModel refuses an empty choice, bad ids, unknown providers without an endpoint and bad URLs", async () => {
  await using home = await tempDir();
  const { paths, profile } = profileAt(home.path);
  const refusals: [Parameters<typeof setModel>[1], string][] = [
    [{}, "bad_request"],
    [{ provider: "Not An Id" }, "provider_invalid"],
    [{ provider: "nope", model: "m" }, "provider_unknown"],
    [{ base_url: "ftp://x" }, "base_url_invalid"],
    [{ model: " " }, "bad_request"],
    [{ api_key: "" }, "bad_request"],
  ];
  for (const [choice, code] of refusals) {
    await assert.rejects(
      () => setModel(profile, choice),
      (error) => error instanceof ModelChoiceError && error.code === code && error.kind === "usage",
      JSON.stringify(choice),
    );
  }
  await assert.rejects(
    () => setModel(profile, { context_length: -5 }),
    (error) => error instanceof HeraldError && error.code === "config_invalid_value",
  );
  await assert.rejects(() => Deno.stat(paths.config), Deno.errors.NotFound);
  const custom = await setModel(profile, {
    provider: "my-gateway",
    base_url: "http://127.0.0.1:7000/v1",
    model: "m",
  });
  assert.equal(custom.base_url, "http://127.0.0.1:7000/v1");
});

Deno.test("choosing the subscription routes managed tools through the gateway except those with the user's own key", async () => {
  await using home = await tempDir();
  const { paths, profile } = profileAt(home.path, { TAVILY_API_KEY: "from-the-process-only" });
  await Deno.mkdir(paths.home, { recursive: true });
  await Deno.writeTextFile(paths.env, "FAL_KEY=fal-user-own-key-1234\nEXA_API_KEY=\n");
  await Deno.writeTextFile(
    paths.config,
    "tool_gateway:\n  tts:\n    use_gateway: false # was off\n",
  );
  const result = await setModel(profile, {
    provider: "herald-subscription",
    model: "herald/default",
  });
  assert.deepEqual(result.tool_gateway, {
    applied: ["web_search", "tts"],
    skipped: [{ tool: "image_generation", key_env: "FAL_KEY" }],
  });
  const text = await Deno.readTextFile(paths.config);
  assert.ok(text.includes("# was off"));
  const config = parseConfig(text, paths.config).config;
  assert.equal(config.tool_gateway.web_search?.use_gateway, true);
  assert.equal(config.tool_gateway.tts?.use_gateway, true);
  assert.equal(config.tool_gateway.image_generation, undefined);
});

/**
 * `herald setup`: a guided walk through the provider, the base URL of a
 * local or custom server, the key (hidden input, never the command line),
 * and the model (picked from the server's list when it gives one), then
 * one test call whose result is shown. Re-running offers the current
 * values as defaults. The work is core's (core/usecases/setup.ts); the
 * key goes to the profile's `.env` only.
 *
 * @module
 */

import type { Command } from "commander";
import { HeraldError } from "../../core/errors.ts";
import {
  listEndpointModels,
  type ModelListOutcome,
  type ModelProbe,
  providerKeyPresent,
  readSetupState,
  saveSetup,
  type SetupProvider,
  setupProvider,
  setupProviders,
  type SetupState,
  testModel,
} from "../../core/usecases/setup.ts";
import type { ProfileContext } from "../../core/usecases/ports.ts";
import { createModelProbe } from "../../adapters/models/probe.ts";
import type { CliContext } from "../context.ts";
import { openPrompter, type Prompter } from "../prompt.ts";
import { displayPath } from "./_common.ts";
import { chooseModel } from "./model.ts";
import { isHttpUrl } from "../../core/_util/url.ts";

/** The command-line answers that skip their questions. */
interface SetupOptions {
  provider?: string;
  baseUrl?: string;
  model?: string;
  test: boolean;
}

/** The test call failed; the settings are saved (exit code 1). */
class SetupTestFailed extends HeraldError {
  /** Creates the error with the test call's `message`. */
  constructor(message: string) {
    super(
      "setup_test_failed",
      "unavailable",
      `The test call failed: ${message}. The settings are saved; fix the problem and run ` +
        "`herald setup` again, or check with `herald doctor`",
    );
  }
}

async function askProvider(
  prompt: Prompter,
  state: SetupState,
  given: string | undefined,
): Promise<SetupProvider> {
  if (given !== undefined) return setupProvider(given);
  const providers = setupProviders();
  const current = providers.findIndex((provider) => provider.id === state.provider);
  return await prompt.askChoice(
    "Provider",
    providers.map((provider) => ({
      label: provider.id === state.provider ? `${provider.label} (current)` : provider.label,
      value: provider,
      name: provider.id,
    })),
    current >= 0 ? { default: current } : {},
  );
}

async function askBaseUrl(
  c: CliContext,
  prompt: Prompter,
  provider: SetupProvider,
  state: SetupState,
  given: string | undefined,
): Promise<string | undefined> {
  if (given !== undefined) {
    if (!isHttpUrl(given)) {
      throw new HeraldError(
        "base_url_invalid",
        "usage",
        `"${given}" is not an http:// or https:// address`,
      );
    }
    return given;
  }
  if (!provider.asks_base_url) return undefined;
  const current = state.provider === provider.id && state.base_url
    ? state.base_url
    : provider.default_base_url ?? undefined;
  while (true) {
    const answer = await prompt.askText(
      "Base URL of the server (OpenAI-compatible, usually ending in /v1)",
      current ? { default: current } : {},
    );
    if (isHttpUrl(answer)) return answer;
    const problem = `"${answer}" is not an http:// or https:// address`;
    if (!prompt.interactive) throw new HeraldError("base_url_invalid", "usage", problem);
    c.io.err(`${problem}; for example http://127.0.0.1:8080/v1\n`);
  }
}

async function askKey(
  prompt: Prompter,
  provider: SetupProvider,
  stored: boolean,
): Promise<string | undefined> {
  if (!provider.asks_key) return undefined;
  const question = stored
    ? `API key (hidden; Enter keeps the stored ${provider.key_env})`
    : provider.key_optional
    ? "API key (hidden; Enter if the server needs none)"
    : `API key for ${provider.label} (hidden)`;
  while (true) {
    const key = await prompt.askHidden(question);
    if (key !== "" || stored || provider.key_optional) return key === "" ? undefined : key;
    if (!prompt.interactive) {
      throw new HeraldError("key_missing", "usage", `${provider.label} needs an API key`);
    }
  }
}

/** What to do when the model list could not be fetched. */
type Retry = "again" | "base_url" | "key" | "go_on";

async function askRetry(
  prompt: Prompter,
  provider: SetupProvider,
  listing: Exclude<ModelListOutcome, { ok: true }>,
): Promise<Retry> {
  const choices: { label: string; value: Retry }[] = [
    { label: "try again", value: "again" },
  ];
  if (provider.asks_key && listing.code === "auth") {
    choices.unshift({ label: "type the key again", value: "key" });
  }
  if (provider.asks_base_url) choices.push({ label: "change the base URL", value: "base_url" });
  choices.push({ label: "go on and type the model name", value: "go_on" });
  return await prompt.askChoice("What now?", choices, { default: 0 });
}

/** Asks the questions, lists the models, and saves the choice (nothing is written before). */
async function runSetup(
  c: CliContext,
  profile: ProfileContext,
  prompt: Prompter,
  probe: ModelProbe,
  options: SetupOptions,
): Promise<void> {
  const state = await readSetupState(profile);
  c.io.err(
    `Setting up the model of profile "${profile.name}" (${displayPath(c, state.file)}); ` +
      "Ctrl-C cancels.\n",
  );
  const provider = await askProvider(prompt, state, options.provider);
  let baseUrl = await askBaseUrl(c, prompt, provider, state, options.baseUrl);
  const stored = await providerKeyPresent(profile, provider.id);
  let apiKey = await askKey(prompt, provider, stored);

  let models: string[] = [];
  while (options.model === undefined) {
    const listing = await listEndpointModels(profile, probe, {
      provider: provider.id,
      ...(baseUrl ? { base_url: baseUrl } : {}),
      ...(apiKey ? { api_key: apiKey } : {}),
    });
    if (listing.ok) {
      models = listing.models;
      c.io.err(`${listing.url} lists ${listing.models.length} models.\n`);
      break;
    }
    c.io.err(`${listing.message}\n`);
    if (listing.code === "unsupported" || !prompt.interactive) break;
    const next = await askRetry(prompt, provider, listing);
    if (next === "go_on") break;
    if (next === "key") apiKey = await askKey(prompt, provider, stored);
    if (next === "base_url") baseUrl = await askBaseUrl(c, prompt, provider, state, undefined);
  }
  const current = state.provider === provider.id ? state.model ?? undefined : undefined;
  const model = options.model ?? await chooseModel(prompt, models, current);

  const saved = await saveSetup(profile, {
    provider: provider.id,
    model,
    ...(baseUrl ? { base_url: baseUrl } : {}),
    ...(apiKey ? { api_key: apiKey } : {}),
  });
  c.io.out(
    `Saved to ${displayPath(c, state.file)}: provider ${saved.provider}, model ${saved.model}` +
      (saved.base_url ? `, base URL ${saved.base_url}` : "") + "\n",
  );
  for (const name of saved.secrets) {
    c.io.out(`The key is stored in ${displayPath(c, profile.files.envPath)} as ${name}\n`);
  }
  const after = await readSetupState(profile);
  if (after.key_other_provider && after.key_env) {
    c.io.err(
      `Note: ${provider.id} has no key of its own, so ${after.key_env} is sent to it ` +
        `(read as older setups stored it); store this server's key with ` +
        `\`herald login ${provider.id}\`\n`,
    );
  }
}

/** Sends the test message and prints its result. */
async function runTest(c: CliContext, profile: ProfileContext, probe: ModelProbe): Promise<void> {
  c.io.err("Sending a test message…\n");
  const test = await testModel(profile, probe);
  if (!test.ok) throw new SetupTestFailed(test.message);
  const said = test.text === "" ? "an empty answer" : `"${test.text.slice(0, 80)}"`;
  c.io.out(`Test call succeeded: ${test.model} at ${test.base_url} answered ${said}\n`);
}

/** Adds the `setup` command to `program`. */
export function registerSetup(program: Command, ctx: () => CliContext): void {
  program.command("setup")
    .description("choose the provider, endpoint, key and model, then test them with one call")
    .option("--provider <id>", "the provider (skips the question)")
    .option("--base-url <url>", "the server's base URL (skips the question)")
    .option("--model <name>", "the model (skips the question and the model list)")
    .option("--no-test", "do not send the test message at the end")
    .addHelpText(
      "after",
      "\nThe API key is always typed at a hidden prompt (or piped on standard input), " +
        "never given on the command line.",
    )
    .action(async (options: SetupOptions) => {
      const c = ctx();
      const profile = await c.profileContext();
      const probe = createModelProbe();
      const prompt = openPrompter(c);
      try {
        await runSetup(c, profile, prompt, probe, options);
      } finally {
        await prompt.close();
      }
      if (options.test) await runTest(c, profile, probe);
    });
}

/**
 * `herald login <provider>`: stores a provider's API key in the profile's
 * `.env` (0600) under the provider's variable (`CUSTOM_API_KEY` for
 * `custom`, so an OpenAI key in `OPENAI_API_KEY` is never overwritten). The key is typed at a hidden
 * prompt on a terminal, or read as one line from standard input
 * (`echo "$KEY" | herald login openrouter`); it is never a command-line
 * argument and never printed.
 *
 * @module
 */

import type { Command } from "commander";
import { checkKnownProvider } from "../../core/config/mod.ts";
import { HeraldError } from "../../core/errors.ts";
import { providerInfo } from "../../core/providers.ts";
import { setEnv } from "../../core/usecases/env.ts";
import { readSetupState } from "../../core/usecases/setup.ts";
import type { CliContext } from "../context.ts";
import { printJson } from "../io.ts";
import { openPrompter } from "../prompt.ts";
import { displayPath } from "./_common.ts";

/** Adds the `login` command to `program`. */
export function registerLogin(program: Command, ctx: () => CliContext): void {
  program.command("login")
    .description("store a provider's API key in .env (typed hidden, or piped on standard input)")
    .argument("<provider>", "the provider, for example openrouter, openai or anthropic")
    .option("--json", "print JSON")
    .addHelpText("after", '\nExample: echo "$OPENROUTER_API_KEY" | herald login openrouter')
    .action(async (provider: string, options: { json?: boolean }) => {
      const c = ctx();
      // The provider and the profile are checked before the key is asked for.
      checkKnownProvider(provider);
      const info = providerInfo(provider.trim());
      const profile = await c.profileContext();
      const prompt = openPrompter(c);
      let key: string;
      try {
        key = await prompt.askHidden(`API key for ${info.id} (hidden)`);
      } finally {
        await prompt.close();
      }
      if (key === "") {
        throw new HeraldError(
          "key_missing",
          "usage",
          `No key was given, so nothing was stored; type it at the prompt or pipe it: ` +
            `echo "$${info.keyEnv}" | herald login ${info.id}`,
          { details: { provider: info.id } },
        );
      }
      const stored = await setEnv(profile, info.keyEnv, key);
      const file = profile.files.envPath;
      if (options.json) {
        return printJson(c.io, { profile: profile.name, provider: info.id, env: stored.key, file });
      }
      c.io.out(`Stored the ${info.id} key in ${displayPath(c, file)} as ${stored.key}\n`);
      const state = await readSetupState(profile).catch(() => undefined);
      if (state && state.provider !== info.id) {
        c.io.out(
          `The profile's model uses ${state.provider ?? "no provider"}; ` +
            `switch with \`herald setup\` or \`herald model ${info.id}:<model>\`\n`,
        );
      }
    });
}

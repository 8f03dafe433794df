/**
 * `herald config show|get|set|path`. The work is core's
 * (core/usecases/config.ts); this file reads the command line and prints.
 *
 * @module
 */

import type { Command } from "commander";
import YAML from "yaml";
import { resolveConfigKey } from "../../core/config/mod.ts";
import {
  configValueFromArgs,
  editConfig,
  readConfigValue,
  showConfig,
} from "../../core/usecases/config.ts";
import type { CliContext } from "../context.ts";
import { printJson } from "../io.ts";

interface JsonFlag {
  json?: boolean;
}

function formatValue(value: unknown): string {
  if (value === undefined) return "";
  if (value !== null && typeof value === "object") return YAML.stringify(value).trimEnd();
  return String(value);
}

/** A set value on one line: lists and sections in YAML's flow style (`[a, b]`). */
function inlineValue(value: unknown): string {
  if (value !== null && typeof value === "object") {
    return YAML.stringify(value, { collectionStyle: "flow" }).trimEnd();
  }
  return String(value);
}

/** Adds the `config` command family to `program`. */
export function registerConfig(program: Command, ctx: () => CliContext): void {
  const config = program.command("config").description("show and change this profile's settings");

  config.command("show")
    .description("print the effective configuration (defaults included, secrets hidden)")
    .option("--json", "print JSON")
    .action(async (options: JsonFlag) => {
      const c = ctx();
      const shown = await showConfig(await c.profileContext());
      c.warn(shown.file, shown.warnings);
      if (options.json) printJson(c.io, shown);
      else c.io.out(YAML.stringify(shown.config));
    });

  config.command("get <key>")
    .description("print one setting, by dotted key (for example agent.max_turns)")
    .option("--json", "print JSON")
    .action(async (key: string, options: JsonFlag) => {
      const c = ctx();
      resolveConfigKey(key); // an unknown key is refused before the home is touched
      const read = await readConfigValue(await c.profileContext(), key);
      c.warn(read.file, read.warnings);
      if (options.json) printJson(c.io, read.view);
      else c.io.out((read.set ? formatValue(read.view.value) : "") + "\n");
    });

  config.command("set <key> <value...>")
    .description(
      "change a setting; secrets (keys, tokens) go to .env, never config.yaml; " +
        "a list takes items as arguments (a b), comma-separated (a,b) or as JSON",
    )
    .option("--json", "print JSON")
    .action(async (key: string, texts: string[], options: JsonFlag) => {
      const c = ctx();
      const value = configValueFromArgs(key, texts);
      const profile = await c.profileContext();
      const result = await editConfig(profile, [{ key, value }]);
      const secret = result.secrets[0];
      if (secret) {
        const envFile = profile.files.envPath;
        if (options.json) {
          printJson(c.io, { key: secret.key ?? secret.name, env: secret.name, file: envFile });
        } else {
          const reference = secret.key ? ` (${secret.key} reads \${${secret.name}})` : "";
          c.io.out(`Stored ${secret.name} in ${envFile}${reference}\n`);
        }
        return;
      }
      if (options.json) printJson(c.io, { key, value, file: result.file });
      else c.io.out(`Set ${key} = ${inlineValue(value)} in ${result.file}\n`);
    });

  config.command("path")
    .description("print where this profile's config.yaml and .env live")
    .option("--json", "print JSON")
    .action(async (options: JsonFlag) => {
      const c = ctx();
      const paths = await c.paths();
      if (options.json) {
        printJson(c.io, {
          profile: paths.name,
          home: paths.home,
          config: paths.config,
          env: paths.env,
        });
      } else {
        c.io.out(paths.config + "\n");
      }
    });
}

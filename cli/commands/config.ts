/**
 * `herald config show|get|set|path`.
 *
 * @module
 */

import type { Command } from "commander";
import YAML from "yaml";
import {
  getConfigValue,
  planConfigSet,
  redactSecrets,
  resolveConfigKey,
} from "../../core/config/mod.ts";
import { loadConfigFile, updateConfigText } from "../../adapters/home/mod.ts";
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

/** Loads the profile's config for display: defaults applied, `${VAR}` kept, secrets hidden. */
async function displayConfig(ctx: CliContext) {
  const paths = await ctx.home();
  const loaded = await loadConfigFile(paths.config);
  ctx.warn(paths.config, loaded.warnings);
  return { paths, config: redactSecrets(loaded.config), warnings: loaded.warnings };
}

/** Adds the `config` command family to `program`. */
export function registerConfig(program: Command, ctx: () => CliContext): void {
  const config = program.command("config").description("show and change this profile's settings");

  config.command("show")
    .description("print the effective configuration (defaults included, secrets hidden)")
    .option("--json", "print JSON")
    .action(async (options: JsonFlag) => {
      const c = ctx();
      const { paths, config, warnings } = await displayConfig(c);
      if (options.json) printJson(c.io, { file: paths.config, config, warnings });
      else c.io.out(YAML.stringify(config));
    });

  config.command("get <key>")
    .description("print one setting, by dotted key (for example agent.max_turns)")
    .option("--json", "print JSON")
    .action(async (key: string, options: JsonFlag) => {
      const c = ctx();
      resolveConfigKey(key);
      const { config } = await displayConfig(c);
      const value = getConfigValue(config, key);
      if (options.json) printJson(c.io, { key, value: value ?? null });
      else c.io.out(formatValue(value) + "\n");
    });

  config.command("set <key> <value>")
    .description("change a setting; secrets (keys, tokens) go to .env, never config.yaml")
    .option("--json", "print JSON")
    .action(async (key: string, value: string, options: JsonFlag) => {
      const c = ctx();
      const paths = await c.home();
      // Planned from the file as it is inside the lock, so a concurrent change is kept;
      // a secret is stored in .env before config.yaml references it.
      const plan = (await updateConfigText(paths.config, (current) => {
        const plan = planConfigSet(current, paths.config, key, value);
        return plan.kind === "secret"
          ? { ...plan, secrets: [{ name: plan.envName, value: plan.secret }] }
          : plan;
      }, { envPath: paths.env }))!;
      if (plan.kind === "secret") {
        if (options.json) {
          printJson(c.io, { key: plan.path ?? plan.envName, env: plan.envName, file: paths.env });
        } else {
          const reference = plan.path ? ` (${plan.path} reads \${${plan.envName}})` : "";
          c.io.out(`Stored ${plan.envName} in ${paths.env}${reference}\n`);
        }
        return;
      }
      if (options.json) printJson(c.io, { key: plan.path, value: plan.value, file: paths.config });
      else c.io.out(`Set ${plan.path} = ${formatValue(plan.value)} in ${paths.config}\n`);
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

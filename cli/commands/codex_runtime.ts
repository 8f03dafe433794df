/**
 * `herald codex-runtime [auto | codex_app_server | on | off]` and
 * `herald codex-runtime migrate`: which runtime runs the turns of this
 * profile (Herald's own loop, or the Codex app-server), and the managed
 * block in Codex's config.toml. No argument shows the state. The work is
 * core's (core/usecases/codex_runtime.ts).
 *
 * @module
 */

import type { Command } from "commander";
import { HeraldError } from "../../core/errors.ts";
import {
  describeCodexRuntime,
  migrateCodexConfig,
  parseRuntimeArgument,
  switchCodexRuntime,
} from "../../core/usecases/codex_runtime.ts";
import { codexRuntimePorts } from "../../adapters/runtime/codex_ports.ts";
import type { CliContext } from "../context.ts";
import { printJson } from "../io.ts";

function warn(c: CliContext, warnings: readonly string[]): void {
  for (const warning of warnings) c.io.err(`herald: warning: ${warning}\n`);
}

async function ports(c: CliContext) {
  return await codexRuntimePorts(await c.paths(), c.env);
}

/** Adds the `codex-runtime` command family to `program`. */
export function registerCodexRuntime(program: Command, ctx: () => CliContext): void {
  const command = program.command("codex-runtime")
    .description(
      "show or switch what runs this profile's turns: auto (Herald's own loop) or " +
        "codex_app_server (the Codex app-server; on/off are short for them)",
    )
    .argument("[mode]", "auto | codex_app_server | on | off; none shows the state")
    .option("--json", "print JSON")
    .action(async (mode: string | undefined, options: { json?: boolean }) => {
      const c = ctx();
      const parsed = parseRuntimeArgument(mode ?? "");
      if ("error" in parsed) {
        throw new HeraldError("codex_runtime_usage", "usage", parsed.error.replace("/", "herald "));
      }
      const runtime = await ports(c);
      if (parsed.mode === null) {
        const text = await describeCodexRuntime(runtime);
        if (options.json) return printJson(c.io, { state: text });
        return c.io.out(text + "\n");
      }
      const result = await switchCodexRuntime(runtime, parsed.mode);
      if (!result.ok) throw new HeraldError("codex_missing", "unavailable", result.text);
      if (options.json) return printJson(c.io, result);
      warn(c, result.warnings);
      c.io.out(result.text + "\n");
    });

  command.command("migrate")
    .description(
      "write Herald's managed block into Codex's config.toml: Herald's tool server, the " +
        "permission profile and this profile's MCP servers (the rest of the file is kept)",
    )
    .option("--json", "print JSON")
    .action(async (options: { json?: boolean }) => {
      const c = ctx();
      const migration = await migrateCodexConfig(await ports(c));
      if (options.json) return printJson(c.io, migration);
      warn(c, migration.warnings);
      if (!migration.written) {
        throw new HeraldError(
          "codex_config_not_written",
          "state",
          `${migration.path} was not updated (see the warnings above)`,
        );
      }
      c.io.out(`Wrote Herald's managed block to ${migration.path}\n`);
      c.io.out(
        `MCP servers migrated: ${
          migration.migrated.length > 0 ? migration.migrated.join(", ") : "none"
        }\n`,
      );
      if (migration.forwardedEnv.length > 0) {
        c.io.out(`Variables passed to codex by name: ${migration.forwardedEnv.join(", ")}\n`);
      }
    });
}

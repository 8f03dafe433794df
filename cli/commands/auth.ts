/**
 * `herald auth list [provider] [--json]`: the keys of each provider the
 * profile can use, masked, with the state the key pools recorded (ok,
 * cooling down until when, last error); `herald auth reset [provider]`
 * forgets that state. The work is core's (core/usecases/auth.ts).
 *
 * @module
 */

import type { Command } from "commander";
import { type AuthKeyView, listAuth, resetAuth } from "../../core/usecases/auth.ts";
import { openKeyStateStore } from "../../adapters/models/key_pools.ts";
import type { CliContext } from "../context.ts";
import { printJson } from "../io.ts";

function stateText(key: AuthKeyView): string {
  const error = key.last_error;
  const last = error
    ? `last error ${error.status === null ? error.failure : `HTTP ${error.status}`} at ${error.at}`
    : "";
  if (key.state === "cooling_down") {
    return `cooling down until ${key.cooldown_until}${last ? ` (${last})` : ""}`;
  }
  return last ? `ok (${last})` : "ok";
}

/** Adds the `auth` command family to `program`. */
export function registerAuth(program: Command, ctx: () => CliContext): void {
  const auth = program.command("auth").description(
    "the providers' keys (masked) and their state: rotation, cooldowns, last errors",
  );

  auth.command("list")
    .description("show each provider's keys, masked, with their state")
    .argument("[provider]", "only this provider")
    .option("--json", "print JSON")
    .action(async (provider: string | undefined, options: { json?: boolean }) => {
      const c = ctx();
      const profile = await c.profileContext();
      const view = await listAuth(profile, openKeyStateStore(profile.home), { provider });
      c.warn(view.config_file, view.warnings);
      if (options.json) return printJson(c.io, view);
      if (view.providers.length === 0) {
        c.io.out(
          provider === undefined
            ? "No provider keys found; set one with `herald config set model.api_key <key>`\n"
            : `No keys found for ${provider}\n`,
        );
        return;
      }
      for (const pool of view.providers) {
        const used = pool.used_by.length > 0 ? ` · used by ${pool.used_by.join(", ")}` : "";
        c.io.out(`${pool.provider} (${pool.label})${used}\n`);
        if (pool.keys.length === 0) {
          c.io.out(`  no key: set ${pool.key_env} (more keys in ${pool.key_env}_2, _3, ...)\n`);
          continue;
        }
        const width = Math.max(...pool.keys.map((key) => key.source.length));
        for (const key of pool.keys) {
          c.io.out(`  ${key.source.padEnd(width)}  ${key.key}  ${stateText(key)}\n`);
        }
      }
    });

  auth.command("reset")
    .description("forget recorded cooldowns and errors (running sessions keep theirs)")
    .argument("[provider]", "only this provider")
    .option("--json", "print JSON")
    .action(async (provider: string | undefined, options: { json?: boolean }) => {
      const c = ctx();
      // The key state is written beside the profile's files: the home must exist.
      const reset = await resetAuth(openKeyStateStore((await c.home()).home), provider);
      if (options.json) return printJson(c.io, { reset });
      c.io.out(
        reset.length === 0
          ? "Nothing recorded to forget\n"
          : `Forgot the recorded state of ${reset.join(", ")}\n`,
      );
    });
}

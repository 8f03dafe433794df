/**
 * `herald pairing list|approve <code>|revoke <platform>:<user_id>`: who
 * asked the profile's bots for a pairing code, approving a code, and taking
 * a paired person's access away. The work is core's
 * (core/usecases/pairing.ts), over the profile's `pairing.json`.
 *
 * @module
 */

import type { Command } from "commander";
import { approvePairing, listPairing, revokePairing } from "../../core/usecases/pairing.ts";
import type { PairedUserView } from "../../core/usecases/pairing.ts";
import { DEFAULT_PROFILE } from "../../core/profiles/names.ts";
import type { CliContext } from "../context.ts";
import { printJson } from "../io.ts";

/** A time (ms since the epoch) as `YYYY-MM-DD HH:MM` in UTC. */
function when(time: number): string {
  return new Date(time).toISOString().replace("T", " ").slice(0, 16) + " UTC";
}

/** `telegram:111 (Ann)`. */
function who(person: { platform: string; user_id: string; user_name: string | null }): string {
  return `${person.platform}:${person.user_id}` +
    (person.user_name ? ` (${person.user_name})` : "");
}

/** ` -p work` when the selected profile is not the default. */
function profileOption(c: CliContext): string {
  return c.profile === DEFAULT_PROFILE ? "" : ` -p ${c.profile}`;
}

/** Adds the `pairing` command family to `program`. */
export function registerPairing(program: Command, ctx: () => CliContext): void {
  const pairing = program.command("pairing").description(
    "who may talk to the profile's bots without being on an allowlist: list, approve, revoke",
  );

  pairing.command("list")
    .description("list pending pairing codes and paired people")
    .option("--json", "print JSON")
    .action(async (options: { json?: boolean }) => {
      const c = ctx();
      const now = Date.now();
      const view = await listPairing(await c.profileContext(), now);
      if (options.json) return printJson(c.io, view);
      if (view.pending.length === 0) {
        c.io.out("No pending pairing requests\n");
      } else {
        c.io.out(
          `Pending (approve with \`herald pairing approve <code>${profileOption(c)}\`):\n`,
        );
        for (const request of view.pending) {
          const minutes = Math.max(1, Math.ceil((request.expires_at - now) / 60_000));
          c.io.out(
            `  ${request.code}  ${who(request)}  asked ${when(request.requested_at)}, ` +
              `expires in ${minutes} min\n`,
          );
        }
      }
      if (view.approved.length === 0) {
        c.io.out("No paired people\n");
      } else {
        c.io.out("Paired:\n");
        for (const user of view.approved) {
          c.io.out(`  ${who(user)}  since ${when(user.approved_at)}\n`);
        }
      }
    });

  pairing.command("approve <code>")
    .description("let the person who got <code> talk to the bot")
    .option("--json", "print JSON")
    .action(async (code: string, options: { json?: boolean }) => {
      const c = ctx();
      const user: PairedUserView = await approvePairing(await c.profileContext(), code);
      if (options.json) return printJson(c.io, user);
      c.io.out(`Approved ${who(user)}: they can talk to the bot now\n`);
    });

  pairing.command("revoke <target>")
    .description("take away a paired person's access; <target> is <platform>:<user_id>")
    .option("--json", "print JSON")
    .action(async (target: string, options: { json?: boolean }) => {
      const c = ctx();
      const revoked = await revokePairing(await c.profileContext(), target);
      if (options.json) return printJson(c.io, revoked);
      c.io.out(
        `Revoked ${revoked.platform}:${revoked.user_id}: they can no longer talk to the bot ` +
          "(unless an allowlist names them)\n",
      );
    });
}

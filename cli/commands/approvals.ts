/**
 * `herald approvals list [--rules]|allow <rule>|remove <rule>`: what the
 * profile allows without asking, what it refuses, the rules that decide
 * which commands ask, and adding or removing a rule key of
 * `approvals.allow`. The work is core's (core/usecases/approvals.ts).
 *
 * @module
 */

import type { Command } from "commander";
import {
  allowApprovalRule,
  listApprovals,
  listDangerRules,
  removeApprovalRule,
} from "../../core/usecases/approvals.ts";
import type { CliContext } from "../context.ts";
import { printJson } from "../io.ts";

function list(title: string, items: readonly string[], empty: string): string {
  if (items.length === 0) return `${title}: ${empty}\n`;
  return `${title}:\n${items.map((item) => `  ${item}\n`).join("")}`;
}

/** Adds the `approvals` command family to `program`. */
export function registerApprovals(program: Command, ctx: () => CliContext): void {
  const approvals = program.command("approvals").description(
    "what the agent may run without asking, and what it never runs",
  );

  approvals.command("list")
    .description("show approvals.allow, approvals.deny, the mode and the timeout")
    .option("--rules", "list the dangerous-command rules and which are refused outright")
    .option("--json", "print JSON")
    .action(async (options: { rules?: boolean; json?: boolean }) => {
      const c = ctx();
      if (options.rules) {
        const rules = listDangerRules();
        if (options.json) return printJson(c.io, rules);
        const width = Math.max(...rules.map((rule) => rule.rule.length)) + 2;
        for (const rule of rules) {
          const key = rule.scoped ? `${rule.rule}:<targets>` : rule.rule;
          c.io.out(
            `${rule.class === "hardline" ? "refused" : "asks   "}  ${key.padEnd(width + 10)} ` +
              `${rule.description} (e.g. ${rule.example})\n`,
          );
        }
        return;
      }
      const view = await listApprovals(await c.profileContext());
      c.warn(view.file, view.warnings);
      if (options.json) return printJson(c.io, view);
      c.io.out(
        `Mode: ${view.mode}${view.mode === "yolo" ? " (dangerous commands run unasked)" : ""}\n` +
          `Questions wait ${view.timeout_seconds} s, then are denied\n` +
          list("Allowed always (approvals.allow)", view.allow, "none") +
          list("Refused (approvals.deny)", view.deny, "none") +
          "Hardline commands are always refused; see `herald approvals list --rules`.\n",
      );
    });
  approvals.command("allow <rule>")
    .description(
      "never ask again about a rule key (rm_recursive:build, git_reset_hard, " +
        "write_outside_workdir:/tmp); see `herald approvals list --rules`",
    )
    .option("--json", "print JSON")
    .action(async (rule: string, options: { json?: boolean }) => {
      const c = ctx();
      const change = await allowApprovalRule(await c.profileContext(), rule);
      if (options.json) return printJson(c.io, change);
      c.io.out(
        change.changed
          ? `Allowed ${change.rule} always (approvals.allow in ${change.file})\n`
          : `${change.rule} was already allowed (approvals.allow in ${change.file})\n`,
      );
    });

  approvals.command("remove <rule>")
    .description("remove a rule key from approvals.allow: it is asked about again")
    .option("--json", "print JSON")
    .action(async (rule: string, options: { json?: boolean }) => {
      const c = ctx();
      const change = await removeApprovalRule(await c.profileContext(), rule);
      if (options.json) return printJson(c.io, change);
      c.io.out(`Removed ${change.rule} from approvals.allow in ${change.file}\n`);
    });
}

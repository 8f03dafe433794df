/**
 * `herald update [--branch <b>] [--check] [--plan] [--yes] [--json]`:
 * updates the install Herald manages (a git checkout, or its own release
 * binary) and refuses any other with the command to use instead (exit 2).
 * The decisions are core/usecases/update.ts; the I/O is
 * adapters/install/update.ts. Progress goes to standard error; the result
 * to standard output (one JSON object with `--json`).
 *
 * @module
 */

import type { Command } from "commander";
import { runUpdate, shortCommit, type UpdateOutcome } from "../../core/usecases/update.ts";
import { updatePorts } from "../../adapters/install/update.ts";
import type { CliContext } from "../context.ts";
import { printJson } from "../io.ts";
import { openPrompter } from "../prompt.ts";

/** The options `herald update` takes. */
interface UpdateOptions {
  branch?: string;
  check?: boolean;
  plan?: boolean;
  yes?: boolean;
  json?: boolean;
}

/** The JSON form of an outcome. */
function outcomeJson(outcome: UpdateOutcome): Record<string, unknown> {
  const plan = outcome.plan;
  return {
    result: outcome.result,
    message: outcome.message,
    install: plan ? { kind: plan.install.kind, dir: plan.install.dir } : null,
    branch: plan?.branch ?? null,
    from: plan?.from ?? null,
    to: plan?.to ?? null,
    behind: plan?.behind ?? null,
    update_available: plan ? !plan.upToDate : null,
    new_commits: plan?.subjects ?? [],
    steps: plan?.steps ?? [],
    snapshot: outcome.snapshot,
    receipt: outcome.receipt,
    gateways: outcome.gateways,
  };
}

/** The text form of an outcome. */
function outcomeText(outcome: UpdateOutcome): string {
  const plan = outcome.plan;
  const lines: string[] = [];
  if (outcome.result === "planned" && plan) {
    lines.push(
      `Install: ${plan.install.kind} at ${plan.install.dir}`,
      `Branch: ${plan.branch} (${shortCommit(plan.from)} -> ${shortCommit(plan.to)})`,
      "Steps:",
      ...plan.steps.map((step, i) => `  ${i + 1}. ${step}`),
    );
  } else {
    lines.push(outcome.message);
    if (outcome.result === "checked" && plan && !plan.upToDate) {
      lines.push(...plan.subjects.map((subject) => `  ${subject}`));
    }
    for (const gateway of outcome.gateways) {
      lines.push(`Gateway ${gateway.profile}: ${gateway.ok ? "" : "failed: "}${gateway.message}`);
    }
    if (outcome.snapshot) lines.push(`Snapshot: ${outcome.snapshot}`);
    if (outcome.receipt) lines.push(`Receipt: ${outcome.receipt}`);
  }
  return lines.join("\n") + "\n";
}

/** Adds `herald update` to `program`. */
export function registerUpdate(program: Command, ctx: () => CliContext): void {
  program.command("update")
    .description(
      "update this Herald (its git checkout or release binary); rolled back if the new code does not start",
    )
    .option(
      "--branch <branch>",
      "follow this branch (default: the current one; main when detached)",
    )
    .option("--check", "say whether an update is available; change nothing")
    .option("--plan", "print the steps an update would take; change nothing")
    .option("--yes", "apply without asking (needed when no terminal can ask)")
    .option("--json", "print the result as JSON")
    .action(async (options: UpdateOptions) => {
      const c = ctx();
      const json = options.json === true;
      const prompter = c.interactive && !json ? openPrompter(c) : undefined;
      try {
        const outcome = await runUpdate(
          { branch: options.branch, check: options.check, plan: options.plan, yes: options.yes },
          updatePorts({
            root: c.root,
            env: c.env,
            progress: (line) => c.io.err(`${line}\n`),
            ...(prompter
              ? {
                confirm: async (question: string) => {
                  const answer = await prompter.askText(`${question} [y/N]`, { default: "n" });
                  return /^y(es)?$/i.test(answer);
                },
              }
              : {}),
          }),
        );
        if (json) printJson(c.io, outcomeJson(outcome));
        else c.io.out(outcomeText(outcome));
      } finally {
        await prompter?.close();
      }
    });
}

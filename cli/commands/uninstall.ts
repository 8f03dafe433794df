/**
 * `herald uninstall [--dry-run] [--gui] [--gui-summary] [--yes] [--full] [--json]`:
 * removes Herald's code and launchers (its data stays), with `--full` the
 * data too, with `--gui` only the chat GUI. Gateway services are disabled
 * and running gateways stopped first. `--dry-run` prints the plan and
 * `--gui-summary` a JSON snapshot of the install; neither changes anything.
 *
 * The plan is core/usecases/uninstall.ts's; the looking and removing is
 * adapters/install/uninstall.ts's.
 *
 * @module
 */

import type { Command } from "commander";
import { HeraldError } from "../../core/errors.ts";
import {
  describeStep,
  installSummary,
  planUninstall,
  runUninstall,
  type StepResult,
  type UninstallMode,
  type UninstallPlan,
  type UninstallStep,
} from "../../core/usecases/uninstall.ts";
import { createUninstallPorts, inspectInstall } from "../../adapters/install/uninstall.ts";
import { withInstallLock } from "../../adapters/install/install_lock.ts";
import type { CliContext } from "../context.ts";
import { printJson } from "../io.ts";
import { versionLine } from "../version.ts";
import { displayPath, readAnswer } from "./_common.ts";

/** The options of `herald uninstall`. */
interface UninstallOptions {
  dryRun?: boolean;
  gui?: boolean;
  guiSummary?: boolean;
  yes?: boolean;
  full?: boolean;
  json?: boolean;
}

function usage(message: string): HeraldError {
  return new HeraldError(
    "usage",
    "usage",
    `${message}; run \`herald uninstall --help\``,
  );
}

/** The mode the options ask for; refuses options that contradict each other. */
function modeOf(options: UninstallOptions): UninstallMode {
  if (options.guiSummary && (options.gui || options.full || options.dryRun || options.yes)) {
    throw usage("--gui-summary only prints the snapshot and takes no other option but --json");
  }
  if (options.gui && options.full) throw usage("--gui and --full cannot go together");
  return options.gui ? "gui" : options.full ? "full" : "default";
}

const HEADLINES: Record<UninstallMode, string> = {
  default: "Herald uninstall: the code and launchers go, your data stays",
  full: "Herald uninstall --full: the code, the launchers and your data go",
  gui: "Herald uninstall --gui: only the chat GUI",
};

/** The plan as text. */
function describePlan(c: CliContext, plan: UninstallPlan): string {
  const show = (text: string) => text.replaceAll(/\/[^\s()]+/g, (path) => displayPath(c, path));
  const lines = [HEADLINES[plan.mode]];
  const stops = (s: UninstallStep) => s.kind === "disable_service" || s.kind === "stop_gateway";
  const first = plan.steps.filter(stops);
  const removed = plan.steps.filter((s) => !stops(s));
  if (first.length > 0) {
    lines.push("Stopped and disabled first:", ...first.map((s) => `  ${show(describeStep(s))}`));
  }
  if (removed.length > 0) {
    lines.push("Removed:", ...removed.map((s) => `  ${show(describeStep(s))}`));
  }
  if (plan.kept.length > 0) {
    lines.push("Kept:", ...plan.kept.map((k) => `  ${displayPath(c, k.path)}: ${k.why}`));
  }
  for (const note of plan.notes) lines.push(`Note: ${show(note)}`);
  return lines.join("\n") + "\n";
}

/** One line for a step's outcome. */
function resultLine(c: CliContext, result: StepResult): string {
  const what = describeStep(result.step).replaceAll(/\/[^\s()]+/g, (p) => displayPath(c, p));
  if (result.ok) {
    const verb = result.step.kind === "disable_service" || result.step.kind === "stop_gateway"
      ? "Stopped"
      : "Removed";
    return `${verb} ${what}${result.note ? `: ${result.note}` : ""}\n`;
  }
  return `${"skipped" in result ? "Skipped" : "Failed"} ${what}: ${result.error}\n`;
}

/** Asks before removing; refuses without a terminal. */
async function confirm(c: CliContext, plan: UninstallPlan): Promise<boolean> {
  if (!c.interactive) {
    throw new HeraldError(
      "uninstall_unconfirmed",
      "usage",
      "Nothing was removed: `herald uninstall` asks before it removes anything and there is " +
        "no terminal to ask on; see the plan with `herald uninstall --dry-run" +
        `${plan.mode === "full" ? " --full" : ""}\`, then run it again with --yes`,
    );
  }
  const answer = await readAnswer(c, "Remove these? [y/N] ");
  return /^y(es)?$/i.test(answer);
}

/** The error of a plan with refusals: nothing was removed, and why. */
function refusedError(plan: UninstallPlan): HeraldError {
  return new HeraldError(
    "uninstall_refused",
    "usage",
    `Nothing was removed. ${plan.refusals.join(". ")}`,
    { details: { refusals: plan.refusals.length } },
  );
}

async function uninstall(c: CliContext, options: UninstallOptions): Promise<void> {
  const mode = modeOf(options);
  const json = options.json === true;
  const facts = await inspectInstall(c.env);
  if (options.guiSummary) return printJson(c.io, installSummary(facts, versionLine()));
  let plan = planUninstall(facts, mode);
  if (plan.refusals.length > 0) throw refusedError(plan);
  if (options.dryRun || plan.steps.length === 0) {
    if (json) return printJson(c.io, { dryRun: options.dryRun === true, plan, results: [] });
    c.io.out(describePlan(c, plan));
    if (plan.steps.length === 0) c.io.out("Nothing to remove.\n");
    else c.io.out("Dry run: nothing was removed.\n");
    return;
  }
  if (!json) c.io.out(describePlan(c, plan));
  if (!options.yes && !(await confirm(c, plan))) {
    if (json) return printJson(c.io, { dryRun: false, cancelled: true, plan, results: [] });
    c.io.out("Cancelled: nothing was removed.\n");
    return;
  }
  // Every module the removal needs is loaded before the first file goes (it may be this code).
  const ports = await createUninstallPorts();
  const remove = async () => {
    // Looked at again under the lock: an update or install may have run meanwhile.
    const now = planUninstall(await inspectInstall(c.env), mode);
    if (now.refusals.length > 0) throw refusedError(now);
    plan = now;
    return await runUninstall(now, ports, (result) => {
      if (!json) c.io.out(resultLine(c, result));
    });
  };
  const folder = facts.install.exists ? facts.install.path : undefined;
  const results = folder
    ? await withInstallLock(folder, "herald uninstall", remove)
    : await remove();
  const failed = results.filter((r) => !r.ok).length;
  if (json) printJson(c.io, { dryRun: false, plan, results, ok: failed === 0 });
  else if (failed === 0) c.io.out(closing(c, plan));
  if (failed > 0) {
    throw new HeraldError(
      "uninstall_incomplete",
      "state",
      `${failed} of ${results.length} steps did not finish (listed above); fix what they name ` +
        "and run `herald uninstall` again",
    );
  }
}

/** The last line of a finished uninstall: where the data stays, or that it is gone. */
function closing(c: CliContext, plan: UninstallPlan): string {
  if (plan.mode === "full") return "Herald is uninstalled, and its data is gone.\n";
  return plan.dataKept
    ? `Herald is uninstalled. Your data stays in ${displayPath(c, plan.dataKept)}; ` +
      "`rm -rf` it (or run `herald uninstall --full` before) to remove it too.\n"
    : "Herald is uninstalled.\n";
}

/** Adds `herald uninstall` to `program`. */
export function registerUninstall(program: Command, ctx: () => CliContext): void {
  program.command("uninstall")
    .description(
      "remove Herald's code, launchers and gateway services (your data stays; --full removes it)",
    )
    .option("--dry-run", "print what would be removed and what stays; remove nothing")
    .option("--full", "also remove the Herald home: every profile, config, .env, sessions")
    .option("--gui", "remove only the chat GUI")
    .option("--gui-summary", "print a JSON snapshot of the install (paths, versions, services)")
    .option("-y, --yes", "do not ask for confirmation")
    .option("--json", "print the plan and the results as JSON")
    .action((options: UninstallOptions) => uninstall(ctx(), options));
}

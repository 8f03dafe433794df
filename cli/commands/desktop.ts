/**
 * `herald desktop [--json] [--reset]`: runs the desktop bootstrap resolver
 * (adapters/install/bootstrap.ts) and prints which rung answered and the
 * command that runs that Herald. When no Herald is found it runs the staged
 * installer, showing its progress on standard error (or, with `--json`, as
 * one JSON event per line on standard output, the last line being the
 * result). `--reset` first clears a latched installer failure.
 *
 * @module
 */

import type { Command } from "commander";
import type { BootstrapEvent, Resolution } from "../../core/desktop/bootstrap.ts";
import { RUNG_TITLES, RUNGS } from "../../core/desktop/bootstrap.ts";
import { DesktopResolver } from "../../adapters/install/bootstrap.ts";
import type { CliContext } from "../context.ts";

/** One progress event as a line for people. */
function eventLine(event: BootstrapEvent): string | undefined {
  if (event.type === "manifest") {
    return event.stages.length === 0
      ? "Running the Herald installer..."
      : `Stages: ${event.stages.map((stage) => stage.name).join(", ")}`;
  }
  if (event.type === "output") return `  | ${event.line}`;
  if (event.state === "running") return `[${event.stage}] running`;
  if (event.state === "done") {
    return `[${event.stage}] ${event.skipped ? "skipped" : "done"}${
      event.reason ? `: ${event.reason}` : ""
    }`;
  }
  return `[${event.stage}] failed: ${event.reason}`;
}

/** The text report of a resolution. */
function describe(resolution: Resolution): string {
  const { backend, passed } = resolution;
  const number = RUNGS.indexOf(backend.rung) + 1;
  const lines = passed.map((p) => `  passed ${RUNGS.indexOf(p.rung) + 1} ${p.rung}: ${p.reason}`);
  lines.push(`Rung ${number} (${backend.rung}) answered: ${RUNG_TITLES[backend.rung]}`);
  if (backend.root) lines.push(`  folder:  ${backend.root}`);
  if (backend.version) lines.push(`  version: ${backend.version}`);
  lines.push(`  command: ${backend.command.join(" ")}`);
  return lines.join("\n") + "\n";
}

/** Adds `herald desktop` to `program`. */
export function registerDesktop(program: Command, ctx: () => CliContext): void {
  program.command("desktop")
    .description(
      "find the Herald a desktop app runs (override, checkout, install, PATH, package) and " +
        "run the staged installer when there is none",
    )
    .option("--json", "print progress events and the result as JSON lines")
    .option("--reset", "clear a latched installer failure first, then try again")
    .action(async (options: { json?: boolean; reset?: boolean }) => {
      const c = ctx();
      const json = options.json === true;
      const resolver = new DesktopResolver({
        env: c.env,
        onEvent: (event) => {
          if (json) return c.io.out(JSON.stringify(event) + "\n");
          const line = eventLine(event);
          if (line !== undefined) c.io.err(line + "\n");
        },
      });
      if (options.reset) {
        const cleared = await resolver.reset();
        const note = cleared
          ? "Cleared the latched installer failure"
          : "No installer failure was latched";
        if (json) c.io.out(JSON.stringify({ type: "reset", cleared }) + "\n");
        else c.io.err(`${note}\n`);
      }
      const resolution = await resolver.resolve();
      if (json) {
        c.io.out(JSON.stringify({ type: "resolved", ...resolution }) + "\n");
      } else {
        c.io.out(describe(resolution));
      }
    });
}

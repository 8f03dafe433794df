/**
 * The `herald` command tree. {@link run} is the whole program minus the
 * process: it takes argv, an output and an environment, and returns the exit
 * code, so tests run it in-process.
 *
 * @module
 */

import { Command } from "commander";
import type { ProcessEnv } from "../core/config/mod.ts";
import { VERSION } from "../core/version.ts";
import { extractGlobalArgs } from "./argv.ts";
import { type CliContext, createContext, type Terminal } from "./context.ts";
import { EXIT, reportError } from "./errors.ts";
import type { Output } from "./io.ts";
import { versionLine } from "./version.ts";
import { registerChat } from "./commands/chat.ts";
import { registerConfig } from "./commands/config.ts";
import { registerDashboard } from "./commands/dashboard.ts";
import { registerMcp } from "./commands/mcp.ts";
import { registerSessions } from "./commands/sessions.ts";
import { registerDoctor } from "./commands/doctor.ts";
import { registerProfile } from "./commands/profile.ts";
import { registerSkills } from "./commands/skills.ts";
import { registerBundles } from "./commands/bundles.ts";
import { registerApprovals } from "./commands/approvals.ts";
import { registerAuth } from "./commands/auth.ts";

export { captureOutput, denoOutput } from "./io.ts";

/** What one run of the program needs from the outside world. */
export interface RunOptions {
  io: Output;
  env: ProcessEnv;
  /** Standard input and whether it is a terminal; tests pass a stream of their own. */
  terminal?: Terminal;
}

/** Builds the command tree; `context` is created on first use by a command. */
export function buildProgram(io: Output, context: () => CliContext): Command {
  const program = new Command("herald")
    .exitOverride()
    .configureOutput({
      writeOut: (text) => io.out(text),
      writeErr: (text) => io.err(text),
      outputError: () => {},
    })
    .showSuggestionAfterError(true)
    .description(`Herald ${VERSION}: a conversational AI agent that runs on your machine`)
    // The version line reads .git, so it is only built when asked for (see run()).
    .option("-V, --version", "print the version and commit")
    .option("-p, --profile <name>", "run against a named profile (any position)")
    .option(
      "--safe-mode",
      "ignore config.yaml, rules files, plugins and MCP servers (credentials still load)",
    )
    .helpOption("-h, --help", "show help")
    .addHelpCommand(false);

  registerChat(program, context);
  registerSessions(program, context);
  registerDashboard(program, context);
  registerMcp(program, context);
  registerConfig(program, context);
  registerDoctor(program, context);
  registerProfile(program, context);
  registerSkills(program, context);
  registerBundles(program, context);
  registerApprovals(program, context);
  registerAuth(program, context);
  return program;
}

/**
 * Runs the program for `argv` and returns the exit code.
 *
 * @example
 * ```ts
 * const io = captureOutput();
 * const code = await run(["config", "get", "agent.max_turns"], { io, env: { HERALD_HOME: dir } });
 * ```
 */
export async function run(argv: readonly string[], options: RunOptions): Promise<number> {
  const { io, env } = options;
  const debug = env.HERALD_DEBUG === "1";
  try {
    const global = extractGlobalArgs(argv);
    let context: CliContext | undefined;
    const program = buildProgram(
      io,
      () => context ??= createContext(io, env, global.profile, options.terminal),
    );
    if (global.rest.length === 0) {
      program.outputHelp();
      return EXIT.ok;
    }
    if (global.rest[0] === "--version" || global.rest[0] === "-V") {
      io.out(`${versionLine()}\n`);
      return EXIT.ok;
    }
    await program.parseAsync(global.rest, { from: "user" });
    return EXIT.ok;
  } catch (error) {
    return reportError(error, io, debug);
  }
}

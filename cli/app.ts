/**
 * The `herald` command tree. {@link run} is the whole program minus the
 * process: it takes argv, an output and an environment, and returns the exit
 * code, so tests run it in-process.
 *
 * @module
 */

import { Command, Help, Option } from "commander";
import type { ProcessEnv } from "../core/config/mod.ts";
import { HeraldError } from "../core/errors.ts";
import { VERSION } from "../core/version.ts";
import { type EntryTree, extractGlobalArgs, hasJsonFlag, nearCommand, routeEntry } from "./argv.ts";
import { type CliContext, createContext, type Terminal } from "./context.ts";
import { EXIT, reportError } from "./errors.ts";
import { type Output, trackOutput } from "./io.ts";
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
import { registerCompletion } from "./commands/completion.ts";
import { registerSetup } from "./commands/setup.ts";
import { registerLogin } from "./commands/login.ts";
import { registerModel } from "./commands/model.ts";
import { registerPairing } from "./commands/pairing.ts";
import { registerGateway } from "./commands/gateway.ts";
import { registerSend } from "./commands/send.ts";
import { registerCron } from "./commands/cron.ts";
import { registerKanban } from "./commands/kanban.ts";
import { registerCodexRuntime } from "./commands/codex_runtime.ts";
import { registerDesktop } from "./commands/desktop.ts";
import { registerUninstall } from "./commands/uninstall.ts";
import { registerUpdate } from "./commands/update.ts";

export { captureOutput, denoOutput } from "./io.ts";

/** What one run of the program needs from the outside world. */
export interface RunOptions {
  io: Output;
  env: ProcessEnv;
  /** Standard input and whether it is a terminal; tests pass a stream of their own. */
  terminal?: Terminal;
}

const ENTRY_HELP = `
Start:
  herald                    open the interactive chat (piped input: one prompt)
  herald "<prompt>"         run one prompt in this folder and print the answer
  herald -c, --continue     continue the last session started in this folder
  herald help <command>     help for one command (also: herald <command> --help)

Examples:
  herald "what does this project do?"
  herald -C ~/src/app -c "now add the tests"
  git log -5 | herald
  herald -p work sessions list --json
  source <(herald completion bash)

Entry points, -C, -p, --json errors, completion and launchers: docs/cli.md
`;

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
    .option("-v, --version", "print the version and commit (also -V)")
    .option(
      "--safe-mode",
      "ignore config.yaml, rules files, plugins and MCP servers (credentials still load)",
    )
    .helpOption("-h, --help", "show help")
    .addHelpCommand(false)
    .addHelpText("after", ENTRY_HELP);
  listGlobalOptions(program);

  registerChat(program, context);
  registerSessions(program, context);
  registerDashboard(program, context);
  registerMcp(program, context);
  registerConfig(program, context);
  registerDoctor(program, context);
  registerSetup(program, context);
  registerLogin(program, context);
  registerModel(program, context);
  registerProfile(program, context);
  registerSkills(program, context);
  registerBundles(program, context);
  registerApprovals(program, context);
  registerAuth(program, context);
  registerPairing(program, context);
  registerGateway(program, context);
  registerSend(program, context);
  registerCron(program, context);
  registerKanban(program, context);
  registerCodexRuntime(program, context);
  registerDesktop(program, context);
  registerUninstall(program, context);
  registerUpdate(program, context);
  registerCompletion(program, context);
  registerHelp(program);
  return program;
}

/**
 * `-p` and `-C` are taken out of argv before the tree sees it
 * (cli/argv.ts extractGlobalArgs), so the tree lists them in `--help`
 * without parsing them: a prompt or an option's value such as "-Cool
 * stuff" reaches its command as typed.
 */
function listGlobalOptions(program: Command): void {
  const listed = [
    new Option("-p, --profile <name>", "run against a named profile (any position)"),
    new Option("-C, --cd <dir>", "run as if started in <dir> (any position)"),
  ];
  program.configureHelp({
    visibleOptions(this: Help, command: Command): Option[] {
      const shown = Help.prototype.visibleOptions.call(this, command);
      return command === program ? [shown[0], ...listed, ...shown.slice(1)] : shown;
    },
  });
}

/** The names a command answers to. */
function namesOf(command: Command): string[] {
  return [command.name(), ...command.aliases()];
}

/** Adds `herald help [command] [sub]`. */
function registerHelp(program: Command): void {
  program.command("help [command...]")
    .description("show help for a command, for example `herald help sessions list`")
    .action((words: string[]) => {
      let target = program;
      const path: string[] = [];
      for (const word of words) {
        const next = target.commands.find((sub) => namesOf(sub).includes(word));
        if (!next) {
          const near = nearCommand(word, target.commands.flatMap(namesOf));
          const where = path.length > 0 ? `herald ${path.join(" ")}` : "herald";
          // Several words after `help` (`herald help me fix this`) were likely meant for the agent.
          const prompt = ["help", ...words].join(" ");
          throw new HeraldError(
            "unknown_command",
            "usage",
            `Unknown command "${[...path, word].join(" ")}"` +
              (near ? ` (did you mean \`herald help ${[...path, near].join(" ")}\`?)` : "") +
              `; run \`${where} --help\` to see the commands` +
              (path.length === 0 && words.length > 1
                ? `. To send "${prompt}" to the agent as a prompt, run \`herald -- ${prompt}\``
                : ""),
          );
        }
        path.push(next.name());
        target = next;
      }
      target.outputHelp();
    });
}

/** What the entry router needs to know about `program` (cli/argv.ts routeEntry). */
function entryTree(program: Command): EntryTree {
  const chat = program.commands.find((command) => command.name() === "chat");
  return {
    commands: program.commands.flatMap(namesOf),
    programFlags: program.options
      .filter((option) => !option.required && !option.optional && option.long !== "--version")
      .flatMap((option) => [option.short, option.long].filter((f): f is string => !!f)),
    chatOptions: (chat?.options ?? []).map((option) => ({
      flags: [option.short, option.long].filter((f): f is string => !!f),
      takesValue: option.required || option.optional,
    })),
    subcommands: Object.fromEntries(
      program.commands.map((command) => [command.name(), command.commands.flatMap(namesOf)]),
    ),
  };
}

/** Makes `dir` the working folder (`-C`); a missing or non-folder path is a usage error. */
function changeDirectory(dir: string): void {
  let info: Deno.FileInfo;
  try {
    info = Deno.statSync(dir);
  } catch (error) {
    if (error instanceof Deno.errors.NotFound || error instanceof Deno.errors.NotADirectory) {
      throw new HeraldError(
        "cd_not_found",
        "usage",
        `Cannot run in "${dir}" (-C): no such folder`,
      );
    }
    throw error;
  }
  if (!info.isDirectory) {
    throw new HeraldError("cd_not_folder", "usage", `Cannot run in "${dir}" (-C): not a folder`);
  }
  Deno.chdir(dir);
}

/** Standard input as one prompt (bare `herald` with piped input). */
async function readPrompt(terminal: Terminal | undefined): Promise<string> {
  const text = terminal?.input ? await new Response(terminal.input()).text() : "";
  if (text.trim() === "") {
    throw new HeraldError(
      "empty_prompt",
      "usage",
      "Standard input was empty, so there is no prompt to run; give one with " +
        '`herald "your prompt"`, run `herald` in a terminal for a chat, or see `herald --help`',
    );
  }
  return text.replace(/\s+$/, "");
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
  const { env } = options;
  const io = trackOutput(options.io);
  const debug = env.HERALD_DEBUG === "1";
  const json = hasJsonFlag(argv);
  try {
    const global = extractGlobalArgs(argv);
    if (global.cd !== undefined) changeDirectory(global.cd);
    let context: CliContext | undefined;
    const program = buildProgram(
      io,
      () => context ??= createContext(io, env, global.profile, options.terminal),
    );
    const route = routeEntry(
      global.rest,
      entryTree(program),
      options.terminal?.interactive ?? false,
    );
    if (route.kind === "version") {
      io.out(`${versionLine()}\n`);
      return EXIT.ok;
    }
    const args = route.kind === "stdin"
      ? [...route.argv, "-q", await readPrompt(options.terminal)]
      : route.argv;
    await program.parseAsync(args, { from: "user" });
    return EXIT.ok;
  } catch (error) {
    return reportError(error, io, { debug, json: json && !io.wroteOut });
  }
}

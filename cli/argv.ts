/**
 * The command line before the command tree sees it: the global options that
 * may appear anywhere (`-p <name>`, `-C <dir>`, `--json`), and the peer
 * entry points that are not commands (bare `herald`, `herald "prompt"`,
 * `herald -c`), routed to `chat`.
 *
 * @module
 */

import { editDistance } from "../core/_util/suggest.ts";
import { HeraldError } from "../core/errors.ts";

/** The command line with the global options taken out. */
export interface GlobalArgs {
  /** The profile named on the command line, as typed (not yet validated). */
  profile?: string;
  /** The folder named with `-C`/`--cd`, as typed (not yet checked); absent when not given. */
  cd?: string;
  /** Everything else, in order. */
  rest: string[];
}

/**
 * True when `--json` appears before any `--`: errors are then printed as
 * JSON on standard output too.
 */
export function hasJsonFlag(argv: readonly string[]): boolean {
  const end = argv.indexOf("--");
  return (end === -1 ? argv : argv.slice(0, end)).includes("--json");
}

function usage(message: string): HeraldError {
  return new HeraldError("usage", "usage", message);
}

/** The value after `arg` at `argv[i + 1]`, or a usage error naming an example. */
function valueAfter(argv: readonly string[], i: number, example: string): string {
  const value = argv[i + 1];
  if (value === undefined || value === "--") {
    throw usage(`Option ${argv[i]} needs ${example}`);
  }
  return value;
}

/**
 * Takes `-p X`, `--profile X`, `--profile=X` and `-C DIR`, `--cd DIR`,
 * `--cd=DIR` out of `argv`, in any position before a `--` terminator. The
 * attached forms `-pX` and `-CDIR` count only before the first word that is
 * not an option (the command, or the prompt): after it, `-Cool stuff` is
 * prompt text and `-pfoo` an option's value. The last one of each given wins.
 *
 * @example
 * ```ts
 * extractGlobalArgs(["config", "show", "-p", "work"]) // { profile: "work", rest: ["config", "show"] }
 * extractGlobalArgs(["-C", "../app", "sessions", "list"]).cd // "../app"
 * extractGlobalArgs(["chat", "-q", "-Cool stuff"]).cd // undefined
 * ```
 */
export function extractGlobalArgs(argv: readonly string[]): GlobalArgs {
  const rest: string[] = [];
  let profile: string | undefined;
  let cd: string | undefined;
  // The attached forms count until the first word that is not an option.
  let attached = true;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === "--") {
      rest.push(...argv.slice(i));
      break;
    }
    if (arg === "-p" || arg === "--profile") {
      profile = valueAfter(
        argv,
        i,
        `a profile name, for example \`herald ${arg} work config show\``,
      );
      i++;
    } else if (arg.startsWith("--profile=")) {
      profile = arg.slice("--profile=".length);
    } else if (attached && arg.startsWith("-p") && arg.length > 2 && !arg.startsWith("--")) {
      profile = arg.slice(2).replace(/^=/, "");
    } else if (arg === "-C" || arg === "--cd") {
      cd = valueAfter(argv, i, `a folder, for example \`herald ${arg} ~/project sessions list\``);
      i++;
    } else if (arg.startsWith("--cd=")) {
      cd = arg.slice("--cd=".length);
    } else if (attached && arg.startsWith("-C") && arg.length > 2) {
      cd = arg.slice(2).replace(/^=/, "");
    } else {
      if (arg === "-" || !arg.startsWith("-")) attached = false;
      rest.push(arg);
    }
  }
  return cd === undefined ? { profile, rest } : { profile, cd, rest };
}

/** One option of a command, as the entry router needs to know it. */
export interface EntryOption {
  /** Its spellings, for example `["-m", "--model"]`. */
  flags: readonly string[];
  /** True when it takes a value (`-m <name>`). */
  takesValue: boolean;
}

/** What the entry router knows about the command tree. */
export interface EntryTree {
  /** Names (and aliases) of the top-level commands. */
  commands: readonly string[];
  /** Program options without a value that may come before `chat` (`--safe-mode`). */
  programFlags: readonly string[];
  /** The options of `chat`, passed along when the line is routed there. */
  chatOptions: readonly EntryOption[];
  /** The subcommand names of each command that has some (`config` → `show`, `get`, ...). */
  subcommands?: Readonly<Record<string, readonly string[]>>;
}

/** Where a command line goes. */
export type EntryRoute =
  /** Run the command tree with `argv`. */
  | { kind: "command"; argv: string[] }
  /** Read standard input as one prompt and run `chat` with `argv` plus `-q <prompt>`. */
  | { kind: "stdin"; argv: string[] }
  /** Print the version line. */
  | { kind: "version" };

const CONTINUE_FLAGS = ["-c", "--continue"];
const VERSION_FLAGS = ["-v", "-V", "--version"];
const HELP_FLAGS = ["-h", "--help"];
const QUERY_FLAGS = ["-q", "--query"];

/** The chat option `arg` spells (also as `--name=value`), if any. */
function chatOption(tree: EntryTree, arg: string): EntryOption | undefined {
  const bare = arg.startsWith("--") ? arg.split("=")[0] : arg;
  return tree.chatOptions.find((option) => option.flags.includes(bare));
}

/**
 * The command `word` is most likely a typo of: one edit away (`confg`,
 * `sesions`), or two when it has the same letters (`chta`). A real word two
 * edits away (`hello` and `help`) is not a typo: it is a prompt.
 */
export function nearCommand(word: string, commands: readonly string[]): string | undefined {
  const typed = word.toLowerCase();
  const letters = (text: string) => [...text].sort().join("");
  let best: string | undefined;
  let bestDistance = 3;
  for (const command of commands) {
    const distance = editDistance(typed, command);
    const typo = distance <= 1 || (distance === 2 && letters(typed) === letters(command));
    if (typo && distance < bestDistance) {
      best = command;
      bestDistance = distance;
    }
  }
  return best;
}

/**
 * Decides where a command line (after {@link extractGlobalArgs}) goes:
 *
 * - a command name first (after program options): the command tree, as typed;
 * - nothing but chat options: `chat` on a terminal, or one prompt read from
 *   standard input when it is piped;
 * - words that are not a command: `chat -q "<the words>"`, with the chat
 *   options given around them;
 * - `-c`/`--continue`: the same, with `chat --continue`;
 * - `-v`, `-V`, `--version`: the version line.
 *
 * A single word that is a likely typo of a command (`chta`), or such a
 * word followed by one of that command's subcommands (`confg show`), is a
 * usage error that suggests the command; `herald -- chta` sends it as a
 * prompt.
 * An unknown option is left for the command tree to report.
 *
 * @example
 * ```ts
 * const tree = { commands: ["chat", "sessions"], programFlags: [], chatOptions: [] };
 * routeEntry(["fix", "the", "bug"], tree, true) // { kind: "command", argv: ["chat", "-q", "fix the bug"] }
 * routeEntry([], tree, false)                  // { kind: "stdin", argv: ["chat"] }
 * ```
 */
export function routeEntry(
  rest: readonly string[],
  tree: EntryTree,
  interactive: boolean,
): EntryRoute {
  const programOptions: string[] = [];
  const chatOptions: string[] = [];
  const words: string[] = [];
  let continued = false;
  let terminated = false;
  for (let i = 0; i < rest.length; i++) {
    const arg = rest[i];
    if (terminated || arg === "-" || !arg.startsWith("-")) {
      if (words.length === 0 && !terminated && !continued && tree.commands.includes(arg)) {
        return { kind: "command", argv: [...rest] };
      }
      words.push(arg);
    } else if (arg === "--") {
      terminated = true;
    } else if (words.length === 0 && HELP_FLAGS.includes(arg)) {
      return { kind: "command", argv: [...rest] };
    } else if (words.length === 0 && VERSION_FLAGS.includes(arg)) {
      return { kind: "version" };
    } else if (CONTINUE_FLAGS.includes(arg)) {
      continued = true;
    } else if (tree.programFlags.includes(arg)) {
      programOptions.push(arg);
    } else {
      const option = chatOption(tree, arg);
      if (!option) return { kind: "command", argv: [...rest] };
      chatOptions.push(arg);
      if (option.takesValue && !arg.includes("=") && i + 1 < rest.length) {
        chatOptions.push(rest[++i]);
      }
    }
  }
  if (!terminated && !continued && words.length > 0 && !/\s/.test(words[0])) {
    const near = nearCommand(words[0], tree.commands);
    // One word, or a word and one of that command's subcommands (`confg show`): a typo.
    const typo = near !== undefined &&
      (words.length === 1 || (tree.subcommands?.[near] ?? []).includes(words[1]));
    if (typo) {
      throw new HeraldError(
        "unknown_command",
        "usage",
        `Unknown command "${words[0]}"; did you mean \`herald ${near}\`? ` +
          `To send "${words.join(" ")}" to the agent as a prompt, run ` +
          `\`herald -- ${words.join(" ")}\``,
      );
    }
  }
  const chat = [...programOptions, "chat", ...(continued ? ["--continue"] : []), ...chatOptions];
  if (words.length > 0) {
    const prompt = words.join(" ");
    if (prompt.trim() === "") throw usage('The prompt is empty; try `herald "what is in here?"`');
    return { kind: "command", argv: [...chat, "-q", prompt] };
  }
  const asked = chatOptions.some((arg) => QUERY_FLAGS.includes(arg.split("=")[0]));
  if (interactive || asked) return { kind: "command", argv: chat };
  return { kind: "stdin", argv: chat };
}

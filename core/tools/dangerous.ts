/**
 * Dangerous-command detection for the terminal tool: the shell lexer
 * (`shell_lexer.ts`) splits a command line into simple commands (across `;`,
 * `&&`, `||`, `|`, `&`, newlines, subshells and command substitutions),
 * wrappers such as `sudo`, `env`, `nohup` and `xargs` are stripped
 * (`shell_words.ts`), and each command is checked against a table of rules.
 * A match means "ask the user first", not "refuse".
 *
 * Quoting is honoured: text inside quotes is data, so `echo "rm -rf /"` and
 * `git commit -m "rm -rf build"` are not flagged. Quoted text is inspected
 * again only where a shell will run it as code: the argument of `bash -c`,
 * `sh -c` and friends, `eval`, and command substitutions (`$(...)`,
 * backticks, `<(...)`), even inside double quotes.
 *
 * @module
 */

import { parseShell, type SimpleCommand } from "./shell_lexer.ts";
import { basename, parseArgs, skipOptions, unwrap } from "./shell_words.ts";

/** Why a command needs approval: a stable rule key and a short reason for the user. */
export interface DangerMatch {
  /** Stable identifier of the matched rule, used for "session"/"always" approvals. */
  ruleKey: string;
  /** Short human-readable reason, e.g. `recursive delete`. */
  reason: string;
}

/**
 * Returns the first dangerous pattern found in a shell command, or `null`.
 *
 * @example
 * ```ts
 * detectDangerousCommand("cd build && sudo rm -rf out");
 * // { ruleKey: "rm_recursive", reason: "recursive delete (rm -r)" }
 * detectDangerousCommand("rm notes.txt"); // null
 * ```
 */
export function detectDangerousCommand(command: string): DangerMatch | null {
  return analyze(command, 0);
}

const MAX_DEPTH = 8;

function analyze(command: string, depth: number): DangerMatch | null {
  if (depth > MAX_DEPTH) return null;
  if (isForkBomb(command)) return { ruleKey: "fork_bomb", reason: "fork bomb" };
  const { pipelines, subs } = parseShell(command);
  for (const sub of subs) {
    const found = analyze(sub, depth + 1);
    if (found) return found;
  }
  for (const pipeline of pipelines) {
    for (let i = 0; i < pipeline.length; i++) {
      const found = checkCommand(pipeline[i], depth) ??
        checkPipedFetch(pipeline, i);
      if (found) return found;
    }
  }
  return null;
}

// --- command rules -----------------------------------------------------------

const SHELLS = new Set(["sh", "bash", "zsh", "dash", "ksh", "mksh", "ash", "fish"]);
const INTERPRETERS = new Set(["python", "python3", "python2", "perl", "ruby", "node", "php"]);
const FETCHERS = new Set(["curl", "wget", "fetch"]);
const SAFE_DEVICES =
  /^\/dev\/(null|zero|stdout|stderr|stdin|tty|fd\/\d+|shm\/.*|pts\/\d+|tcp\/.*|udp\/.*)$/;
/** The root, the home folder and the top-level system folders themselves (not paths below them). */
const SYSTEM_PATH =
  /^(\/|~|\$HOME|\$\{HOME\}|\/(bin|boot|dev|etc|home|lib|lib32|lib64|opt|proc|root|sbin|srv|sys|usr|var|Users|System|Library))\/?\*?$/;

function checkCommand(command: SimpleCommand, depth: number): DangerMatch | null {
  for (const { op, target } of command.redirects) {
    if (op.includes(">") && target.startsWith("/dev/") && !SAFE_DEVICES.test(target)) {
      return { ruleKey: "device_write", reason: `write to raw device ${target}` };
    }
  }
  const rawWords = command.words;
  const words = unwrap(rawWords.map((w) => w.text));
  if (words.length === 0) return null;
  const offset = rawWords.length - words.length;
  const name = basename(words[0]);
  const args = words.slice(1);

  if (name.startsWith("$(") || name.startsWith("`")) {
    const word = rawWords[offset];
    if (word.subs.some(isFetch)) {
      return { ruleKey: "remote_script", reason: "runs a script downloaded from the internet" };
    }
  }

  if (SHELLS.has(name) || name === "eval" || name === "source" || name === ".") {
    const argWords = rawWords.slice(offset + 1);
    if (argWords.some((w) => w.subs.some(isFetch))) {
      return { ruleKey: "remote_script", reason: "runs a script downloaded from the internet" };
    }
    const script = name === "eval"
      ? args.join(" ")
      : SHELLS.has(name)
      ? shellScriptArg(args)
      : undefined;
    if (script !== undefined) return analyze(script, depth + 1);
    return null;
  }

  switch (name) {
    case "rm":
      return checkRm(args);
    case "find":
      return checkFind(args);
    case "dd":
      return checkDd(args);
    case "chmod":
      return checkChmod(args);
    case "chown":
    case "chgrp":
      return checkChown(name, args);
    case "git":
      return checkGit(args);
    case "kill":
      return checkKill(args);
    case "tee":
      return args.find((a) => a.startsWith("/dev/") && !SAFE_DEVICES.test(a))
        ? { ruleKey: "device_write", reason: "write to a raw device" }
        : null;
    case "shutdown":
    case "reboot":
    case "halt":
    case "poweroff":
      return { ruleKey: "shutdown", reason: `${name} the machine` };
    case "init":
    case "telinit":
      return args[0] === "0" || args[0] === "6"
        ? { ruleKey: "shutdown", reason: "shutdown or reboot the machine" }
        : null;
    case "systemctl":
      return args.some((a) => ["poweroff", "reboot", "halt", "kexec"].includes(a))
        ? { ruleKey: "shutdown", reason: "shutdown or reboot the machine" }
        : null;
  }
  if (/^(mkfs(\..+)?|mke2fs|mkswap|wipefs)$/.test(name)) {
    return { ruleKey: "mkfs", reason: "formats or wipes a filesystem" };
  }
  return null;
}

/** The `-c` script of a shell invocation, if any. */
function shellScriptArg(args: string[]): string | undefined {
  for (let i = 0; i < args.length; i++) {
    const arg = args[i];
    if (!arg.startsWith("-") || arg === "-" || arg === "--") return undefined;
    if (/^-[a-zA-Z]*c[a-zA-Z]*$/.test(arg)) return args[i + 1];
  }
  return undefined;
}

function isFetch(body: string): boolean {
  return parseShell(body).pipelines.some((pipeline) =>
    pipeline.some((c) => {
      const words = unwrap(c.words.map((w) => w.text));
      return words.length > 0 && FETCHERS.has(basename(words[0]));
    })
  );
}

function checkRm(args: string[]): DangerMatch | null {
  const { short, long, operands } = parseArgs(args);
  if (long.includes("no-preserve-root")) {
    return { ruleKey: "rm_root", reason: "delete with --no-preserve-root" };
  }
  if (/[rR]/.test(short) || long.includes("recursive")) {
    return { ruleKey: "rm_recursive", reason: "recursive delete (rm -r)" };
  }
  if (operands.some((p) => SYSTEM_PATH.test(p))) {
    return { ruleKey: "rm_root", reason: "delete in the root or home folder" };
  }
  return null;
}

function checkFind(args: string[]): DangerMatch | null {
  for (let i = 0; i < args.length; i++) {
    if (args[i] === "-delete") {
      return { ruleKey: "find_delete", reason: "find -delete removes every match" };
    }
    if (/^-(exec|execdir|ok|okdir)$/.test(args[i])) {
      const exec = basename(args[i + 1] ?? "");
      if (exec === "rm" || exec === "shred" || exec === "unlink") {
        return { ruleKey: "find_delete", reason: `find -exec ${exec} removes every match` };
      }
    }
  }
  return null;
}

function checkDd(args: string[]): DangerMatch | null {
  const target = args.find((a) => a.startsWith("of="))?.slice(3);
  if (target?.startsWith("/dev/") && !SAFE_DEVICES.test(target)) {
    return { ruleKey: "dd_device", reason: `dd writes to raw device ${target}` };
  }
  return null;
}

function checkChmod(args: string[]): DangerMatch | null {
  const { short, long, operands } = parseArgs(args);
  const recursive = /R/.test(short) || long.includes("recursive");
  // The mode is the first operand; a symbolic mode like -w lands in `short`, which is harmless here.
  const [mode = "", ...paths] = operands;
  const worldWritable = /^0?[0-7]?[0-7][0-7][2367]$/.test(mode) ||
    /^[ugoa]*[ao][ugoa]*[+=][rwxXst]*w/.test(mode);
  const system = paths.some((p) => SYSTEM_PATH.test(p));
  if ((recursive && system) || (worldWritable && system)) {
    return { ruleKey: "chmod_system", reason: "permission change on a system or home folder" };
  }
  if (recursive && worldWritable) {
    return { ruleKey: "chmod_world_writable", reason: "recursive world-writable permissions" };
  }
  return null;
}

function checkChown(name: string, args: string[]): DangerMatch | null {
  const { short, long, operands } = parseArgs(args);
  const recursive = /R/.test(short) || long.includes("recursive");
  if (recursive && operands.slice(1).some((p) => SYSTEM_PATH.test(p))) {
    return { ruleKey: "chown_system", reason: `recursive ${name} on a system or home folder` };
  }
  return null;
}

function checkGit(args: string[]): DangerMatch | null {
  const rest = skipOptions(args, /^-[Cc]$/);
  const [sub, ...subArgs] = rest;
  const { short, long, operands } = parseArgs(subArgs);
  if (sub === "reset" && long.includes("hard")) {
    return { ruleKey: "git_reset_hard", reason: "git reset --hard discards uncommitted changes" };
  }
  if (sub === "clean" && (/f/.test(short) || long.includes("force"))) {
    return { ruleKey: "git_clean_force", reason: "git clean -f deletes untracked files" };
  }
  if (
    sub === "push" &&
    (/f/.test(short) || long.some((l) => l.startsWith("force")) ||
      operands.some((o) => o.startsWith("+")))
  ) {
    return { ruleKey: "git_push_force", reason: "force push rewrites remote history" };
  }
  return null;
}

function checkKill(args: string[]): DangerMatch | null {
  let rest = args;
  if (rest[0] === "-s" || rest[0] === "-n") rest = rest.slice(2);
  else if (rest[0]?.startsWith("-") && rest[0] !== "--") rest = rest.slice(1);
  if (rest[0] === "--") rest = rest.slice(1);
  return rest.includes("-1")
    ? { ruleKey: "kill_all", reason: "kill every process (kill -1)" }
    : null;
}

/** `curl ... | sh`: a fetcher earlier in the pipeline feeding a shell or interpreter reading stdin. */
function checkPipedFetch(pipeline: SimpleCommand[], index: number): DangerMatch | null {
  if (index === 0) return null;
  const words = unwrap(pipeline[index].words.map((w) => w.text));
  if (words.length === 0) return null;
  const name = basename(words[0]);
  const isShell = SHELLS.has(name);
  if (!isShell && !INTERPRETERS.has(name.replace(/[\d.]+$/, "")) && !INTERPRETERS.has(name)) {
    return null;
  }
  if (!readsProgramFromStdin(words.slice(1), isShell)) return null;
  const fed = pipeline.slice(0, index).some((c) => {
    const w = unwrap(c.words.map((x) => x.text));
    return w.length > 0 && FETCHERS.has(basename(w[0]));
  });
  return fed ? { ruleKey: "remote_script", reason: "pipes a download into an interpreter" } : null;
}

function readsProgramFromStdin(args: string[], isShell: boolean): boolean {
  for (const arg of args) {
    if (arg === "-" || arg === "-s" || arg === "--") return true;
    if (isShell && /^-[a-zA-Z]*c/.test(arg)) return false;
    if (!isShell && /^-(c|e|m|E|p|r|-eval|-print)/.test(arg)) return false;
    if (!arg.startsWith("-")) return false;
  }
  return true;
}

/** `:(){ :|:& };:` and named variants: a function that pipes itself into itself in the background. */
function isForkBomb(command: string): boolean {
  const unquoted = command.replace(/'[^']*'|"(?:\\.|[^"\\])*"/g, "''");
  const compact = unquoted.replace(/\s+/g, "");
  return /([\w:.]+)\(\)\{\1\|\1&\};?\1/.test(compact) ||
    /function([\w:.]+)(\(\))?\{\1\|\1&\};?\1/.test(compact);
}

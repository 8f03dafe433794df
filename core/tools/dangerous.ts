/**
 * Dangerous-command detection for the terminal tool: a small shell lexer
 * splits a command line into simple commands (across `;`, `&&`, `||`, `|`,
 * `&`, newlines, subshells and command substitutions), strips wrappers such
 * as `sudo`, `env`, `nohup` and `xargs`, and checks each command against a
 * table of rules. A match means "ask the user first", not "refuse".
 *
 * Quoting is honoured: text inside quotes is data, so `echo "rm -rf /"` and
 * `git commit -m "rm -rf build"` are not flagged. Quoted text is inspected
 * again only where a shell will run it as code: the argument of `bash -c`,
 * `sh -c` and friends, `eval`, and command substitutions (`$(...)`,
 * backticks, `<(...)`), even inside double quotes.
 *
 * @module
 */

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

/** A shell word after quote removal, with the bodies of substitutions found in it. */
interface Word {
  text: string;
  subs: string[];
}

type Token =
  | { kind: "word"; word: Word }
  | { kind: "op"; op: string }
  | { kind: "redirect"; op: string };

interface SimpleCommand {
  words: Word[];
  redirects: { op: string; target: string }[];
}

function analyze(command: string, depth: number): DangerMatch | null {
  if (depth > MAX_DEPTH) return null;
  if (isForkBomb(command)) return { ruleKey: "fork_bomb", reason: "fork bomb" };
  const { tokens, subs } = lex(command);
  for (const sub of subs) {
    const found = analyze(sub, depth + 1);
    if (found) return found;
  }
  for (const pipeline of splitPipelines(tokens)) {
    for (let i = 0; i < pipeline.length; i++) {
      const found = checkCommand(pipeline[i], depth) ??
        checkPipedFetch(pipeline, i);
      if (found) return found;
    }
  }
  return null;
}

// --- lexer -----------------------------------------------------------------

const SPACE = new Set([" ", "\t"]);

/** Splits a command line into words, operators and redirections; collects substitution bodies. */
function lex(input: string): { tokens: Token[]; subs: string[] } {
  const tokens: Token[] = [];
  const subs: string[] = [];
  let text = "";
  let wordSubs: string[] = [];
  let inWord = false;
  let heredocs: string[] = [];
  let i = 0;

  const endWord = () => {
    if (inWord) tokens.push({ kind: "word", word: { text, subs: wordSubs } });
    text = "";
    wordSubs = [];
    inWord = false;
  };
  const addSub = (body: string) => {
    subs.push(body);
    wordSubs.push(body);
  };

  while (i < input.length) {
    const c = input[i];
    if (SPACE.has(c)) {
      endWord();
      i++;
    } else if (c === "\n") {
      endWord();
      tokens.push({ kind: "op", op: ";" });
      i++;
      if (heredocs.length > 0) {
        i = skipHeredocs(input, i, heredocs);
        heredocs = [];
      }
    } else if (c === "#" && !inWord) {
      while (i < input.length && input[i] !== "\n") i++;
    } else if (c === "\\") {
      if (input[i + 1] === "\n") {
        i += 2;
      } else {
        text += input[i + 1] ?? "";
        inWord = true;
        i += 2;
      }
    } else if (c === "'") {
      const end = input.indexOf("'", i + 1);
      const stop = end < 0 ? input.length : end;
      text += input.slice(i + 1, stop);
      inWord = true;
      i = stop + 1;
    } else if (c === '"') {
      i = lexDoubleQuoted(input, i + 1, (s) => (text += s), addSub);
      inWord = true;
    } else if (c === "`") {
      const end = findBacktickEnd(input, i + 1);
      addSub(input.slice(i + 1, end));
      text += input.slice(i, end + 1);
      inWord = true;
      i = end + 1;
    } else if (c === "$" && input[i + 1] === "(") {
      const end = findParenEnd(input, i + 2);
      addSub(input.slice(i + 2, end));
      text += input.slice(i, end + 1);
      inWord = true;
      i = end + 1;
    } else if ((c === "<" || c === ">") && input[i + 1] === "(") {
      const end = findParenEnd(input, i + 2);
      addSub(input.slice(i + 2, end));
      text += input.slice(i, end + 1);
      inWord = true;
      i = end + 1;
    } else if (c === ">" || c === "<") {
      if (inWord && /^\d+$/.test(text)) {
        text = "";
        wordSubs = [];
        inWord = false;
      }
      endWord();
      let op = c;
      i++;
      while (i < input.length && /[<>&|-]/.test(input[i]) && op.length < 3) op += input[i++];
      tokens.push({ kind: "redirect", op });
      if (op.startsWith("<<") && op !== "<<<") {
        while (SPACE.has(input[i])) i++;
        const start = i;
        while (i < input.length && !SPACE.has(input[i]) && !/[;&|\n<>]/.test(input[i])) i++;
        heredocs.push(input.slice(start, i).replace(/["']/g, ""));
        tokens.pop();
      }
    } else if (c === "&" || c === "|" || c === ";") {
      endWord();
      const two = input.slice(i, i + 2);
      if (c === "&" && input[i + 1] === ">") {
        const op = input[i + 2] === ">" ? "&>>" : "&>";
        tokens.push({ kind: "redirect", op });
        i += op.length;
      } else if (two === "&&" || two === "||" || two === ";;") {
        tokens.push({ kind: "op", op: two });
        i += 2;
      } else if (two === "|&") {
        tokens.push({ kind: "op", op: "|" });
        i += 2;
      } else {
        tokens.push({ kind: "op", op: c });
        i++;
      }
    } else if ((c === "(" || c === ")") && !inWord) {
      tokens.push({ kind: "op", op: c });
      i++;
    } else {
      text += c;
      inWord = true;
      i++;
    }
  }
  endWord();
  return { tokens, subs };
}

/** Reads a double-quoted string starting after the opening quote; returns the index after the closing quote. */
function lexDoubleQuoted(
  input: string,
  start: number,
  emit: (s: string) => void,
  addSub: (body: string) => void,
): number {
  let i = start;
  while (i < input.length && input[i] !== '"') {
    const c = input[i];
    if (c === "\\" && i + 1 < input.length) {
      const next = input[i + 1];
      emit('"\\$`'.includes(next) ? next : next === "\n" ? "" : c + next);
      i += 2;
    } else if (c === "$" && input[i + 1] === "(") {
      const end = findParenEnd(input, i + 2);
      addSub(input.slice(i + 2, end));
      emit(input.slice(i, end + 1));
      i = end + 1;
    } else if (c === "`") {
      const end = findBacktickEnd(input, i + 1);
      addSub(input.slice(i + 1, end));
      emit(input.slice(i, end + 1));
      i = end + 1;
    } else {
      emit(c);
      i++;
    }
  }
  return i + 1;
}

/** Index of the `)` closing a `$(` or `(` whose body starts at `start` (or the input length). */
function findParenEnd(input: string, start: number): number {
  let depth = 1;
  let i = start;
  while (i < input.length) {
    const c = input[i];
    if (c === "\\") {
      i += 2;
      continue;
    }
    if (c === "'") {
      const end = input.indexOf("'", i + 1);
      i = end < 0 ? input.length : end + 1;
      continue;
    }
    if (c === '"') {
      i = lexDoubleQuoted(input, i + 1, () => {}, () => {});
      continue;
    }
    if (c === "(") depth++;
    if (c === ")" && --depth === 0) return i;
    i++;
  }
  return input.length;
}

function findBacktickEnd(input: string, start: number): number {
  let i = start;
  while (i < input.length && input[i] !== "`") i += input[i] === "\\" ? 2 : 1;
  return Math.min(i, input.length);
}

/** Skips here-document bodies that start at `start`; returns the index after the last terminator line. */
function skipHeredocs(input: string, start: number, delimiters: string[]): number {
  let i = start;
  for (const delimiter of delimiters) {
    while (i < input.length) {
      const end = input.indexOf("\n", i);
      const line = input.slice(i, end < 0 ? input.length : end);
      i = end < 0 ? input.length : end + 1;
      if (line.replace(/^\t+/, "") === delimiter) break;
    }
  }
  return i;
}

/** Groups tokens into pipelines (split by `;`, `&&`, `||`, `&`, parentheses) of simple commands. */
function splitPipelines(tokens: Token[]): SimpleCommand[][] {
  const pipelines: SimpleCommand[][] = [];
  let pipeline: SimpleCommand[] = [];
  let current: SimpleCommand = { words: [], redirects: [] };
  const endCommand = () => {
    if (current.words.length > 0 || current.redirects.length > 0) pipeline.push(current);
    current = { words: [], redirects: [] };
  };
  for (let i = 0; i < tokens.length; i++) {
    const token = tokens[i];
    if (token.kind === "word") {
      current.words.push(token.word);
    } else if (token.kind === "redirect") {
      const next = tokens[i + 1];
      if (next?.kind === "word") {
        current.redirects.push({ op: token.op, target: next.word.text });
        i++;
      }
    } else if (token.op === "|") {
      endCommand();
    } else {
      endCommand();
      if (pipeline.length > 0) pipelines.push(pipeline);
      pipeline = [];
    }
  }
  endCommand();
  if (pipeline.length > 0) pipelines.push(pipeline);
  return pipelines;
}

// --- command rules -----------------------------------------------------------

const SHELLS = new Set(["sh", "bash", "zsh", "dash", "ksh", "mksh", "ash", "fish"]);
const INTERPRETERS = new Set(["python", "python3", "python2", "perl", "ruby", "node", "php"]);
const FETCHERS = new Set(["curl", "wget", "fetch"]);
const KEYWORDS = new Set(["{", "}", "!", "if", "then", "else", "elif", "do", "while", "until"]);
const SAFE_DEVICES =
  /^\/dev\/(null|zero|stdout|stderr|stdin|tty|fd\/\d+|shm\/.*|pts\/\d+|tcp\/.*|udp\/.*)$/;
/** The root, the home folder and the top-level system folders themselves (not paths below them). */
const SYSTEM_PATH =
  /^(\/|~|\$HOME|\$\{HOME\}|\/(bin|boot|dev|etc|home|lib|lib32|lib64|opt|proc|root|sbin|srv|sys|usr|var|Users|System|Library))\/?\*?$/;

function basename(path: string): string {
  return path.slice(path.lastIndexOf("/") + 1);
}

/** Drops keywords, variable assignments and wrapper commands; returns the words of the real command. */
function unwrap(words: string[]): string[] {
  let rest = words;
  for (let guard = 0; guard < 16 && rest.length > 0; guard++) {
    const head = basename(rest[0]);
    if (KEYWORDS.has(rest[0]) || /^[A-Za-z_][A-Za-z0-9_]*=/.test(rest[0])) {
      rest = rest.slice(1);
    } else if (head === "sudo" || head === "doas") {
      rest = skipOptions(rest.slice(1), /^-[ugCDhprtUT]$/);
    } else if (head === "env") {
      rest = skipOptions(rest.slice(1), /^-[uCS]$/);
      while (rest.length > 0 && /^[A-Za-z_][A-Za-z0-9_]*=/.test(rest[0])) rest = rest.slice(1);
    } else if (head === "nice" || head === "ionice" || head === "stdbuf" || head === "chroot") {
      rest = skipOptions(rest.slice(1), /^-[ncpt]$/);
      if (head === "chroot") rest = rest.slice(1);
    } else if (head === "timeout") {
      rest = skipOptions(rest.slice(1), /^-[sk]$/).slice(1);
    } else if (head === "xargs") {
      rest = skipOptions(rest.slice(1), /^-[IiLlnPdsaE]$/);
    } else if (
      ["nohup", "exec", "command", "builtin", "setsid", "time", "busybox"].includes(head)
    ) {
      rest = skipOptions(rest.slice(1), /^$/);
    } else {
      break;
    }
  }
  return rest;
}

/** Skips leading `-x` options; options matching `takesValue` consume the next word too. */
function skipOptions(words: string[], takesValue: RegExp): string[] {
  let i = 0;
  while (i < words.length && words[i].startsWith("-") && words[i] !== "-") {
    if (words[i] === "--") return words.slice(i + 1);
    i += takesValue.test(words[i]) ? 2 : 1;
  }
  return words.slice(i);
}

/** Splits arguments into option letters/long names and operands, honouring `--`. */
function parseArgs(args: string[]): { short: string; long: string[]; operands: string[] } {
  let short = "";
  const long: string[] = [];
  const operands: string[] = [];
  let endOfOptions = false;
  for (const arg of args) {
    if (endOfOptions || !arg.startsWith("-") || arg === "-") operands.push(arg);
    else if (arg === "--") endOfOptions = true;
    else if (arg.startsWith("--")) long.push(arg.slice(2).split("=")[0]);
    else short += arg.slice(1);
  }
  return { short, long, operands };
}

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
  const { tokens } = lex(body);
  return splitPipelines(tokens).some((pipeline) =>
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

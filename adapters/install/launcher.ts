/**
 * The `herald` launcher on the PATH: a small POSIX sh script that runs this
 * checkout's `cli/main.ts` with the pinned Deno, by absolute paths, in the
 * folder the user is in; and the per-profile launchers beside it (`work`
 * runs `herald -p work`).
 *
 * Every launcher carries a marker line (`# herald-launcher: ...`), so
 * Herald rewrites or removes only files it wrote. Used by
 * scripts/install.ts (`deno task install|uninstall`) and by
 * `herald profile create|delete`.
 *
 * @module
 */

import { heraldCheckout } from "../process/herald_command.ts";
import { dirname, join, resolve } from "node:path";
import { writeFileAtomic } from "../fs/atomic.ts";
import { missing } from "../fs/read.ts";
import { releaseInstallDir } from "./release_dir.ts";
import { HeraldError } from "../../core/errors.ts";

/** The file name of the main launcher. */
export const LAUNCHER_NAME = "herald";

/** The start of the marker line every launcher carries. */
export const LAUNCHER_MARKER = "# herald-launcher:";

/** What a launcher runs. */
export type LauncherTarget =
  /** Herald from a checkout, with a Deno binary. */
  | { kind: "herald"; deno: string; checkout: string; denoVersion?: string }
  /** The `herald` launcher at `herald`, with `-p <profile>`. */
  | { kind: "profile"; profile: string; herald: string };

/** What is at a launcher's path. */
export type LauncherFile =
  | { state: "missing" }
  /** A launcher Herald wrote; `kind` and `profile` come from its marker. */
  | { state: "ours"; kind: "herald" | "profile"; profile?: string }
  /** Something else: a file without the marker, a folder, a symbolic link. */
  | { state: "foreign"; what: string };

/** Quotes `value` for a POSIX shell: `it's` → `'it'\''s'`. */
export function shellQuote(value: string): string {
  return `'${value.replaceAll("'", `'\\''`)}'`;
}

/** Control characters (a line break, a tab, ...): never in a path a launcher holds. */
// deno-lint-ignore no-control-regex
const CONTROL = /[\x00-\x1f\x7f]/;

/**
 * Refuses a path (or name) a launcher would hold when it has a control
 * character: a line break there would end the comment or the quoted value
 * it is in and start a line of script.
 *
 * @example
 * ```ts
 * checkLauncherPath("checkout path", "/src/herald");      // fine
 * checkLauncherPath("checkout path", "/src/x\nrm -rf ~"); // throws
 * ```
 *
 * @throws HeraldError (usage, `launcher_path_invalid`) naming what and the value.
 */
export function checkLauncherPath(what: string, value: string): void {
  if (!CONTROL.test(value)) return;
  throw new HeraldError(
    "launcher_path_invalid",
    "usage",
    `The ${what} ${JSON.stringify(value)} holds a control character (a line break or ` +
      "a tab), so no launcher is written for it; use a folder whose path has none",
    { details: { what, value } },
  );
}

/** `text` for a `#` comment line: line breaks and other control characters become spaces. */
function commentText(text: string): string {
  return text.replace(new RegExp(CONTROL.source, "g"), " ");
}

/**
 * The text of a launcher.
 *
 * @throws HeraldError (usage, `launcher_path_invalid`) for a path with a control character.
 *
 * @example
 * ```ts
 * renderLauncher({ kind: "herald", deno: "/opt/deno", checkout: "/src/herald" });
 * // #!/bin/sh
 * // # herald-launcher: herald
 * // ...
 * // exec "$deno" run --allow-all --config "$checkout/deno.json" "$checkout/cli/main.ts" "$@"
 * ```
 */
export function renderLauncher(target: LauncherTarget): string {
  if (target.kind === "profile") {
    checkLauncherPath("herald launcher path", target.herald);
    checkLauncherPath("profile name", target.profile);
    const profile = commentText(target.profile);
    return [
      "#!/bin/sh",
      `${LAUNCHER_MARKER} profile ${profile}`,
      `# Runs \`herald -p ${profile}\`. Written by \`herald profile create ` +
      `${profile} --launcher\`;`,
      `# \`herald profile delete ${profile}\` and \`deno task uninstall\` remove it.`,
      `herald=${shellQuote(target.herald)}`,
      'if [ ! -x "$herald" ]; then',
      `  echo "${profile}: $herald is gone; run \\\`deno task install\\\` in the Herald ` +
      'checkout again" >&2',
      "  exit 127",
      "fi",
      `exec "$herald" -p ${shellQuote(target.profile)} "$@"`,
      "",
    ].join("\n");
  }
  checkLauncherPath("Deno path", target.deno);
  checkLauncherPath("checkout path", target.checkout);
  const version = target.denoVersion ? `@${target.denoVersion}` : "";
  return [
    "#!/bin/sh",
    `${LAUNCHER_MARKER} herald`,
    `# Runs Herald from ${commentText(target.checkout)} in the folder you are in.`,
    "# Written by `deno task install` there; `deno task uninstall` removes it.",
    `deno=${shellQuote(target.deno)}`,
    `checkout=${shellQuote(target.checkout)}`,
    'if [ ! -x "$deno" ]; then',
    `  echo "herald: Deno is no longer at $deno; run \\\`npx -y deno${version} task install\\\` ` +
    'in $checkout again" >&2',
    "  exit 127",
    "fi",
    "export DENO_NO_UPDATE_CHECK=1",
    'exec "$deno" run --allow-all --config "$checkout/deno.json" "$checkout/cli/main.ts" "$@"',
    "",
  ].join("\n");
}

/** The kind a launcher's text declares in its marker line, if it has one. */
export function parseLauncherMarker(
  text: string,
): { kind: "herald" | "profile"; profile?: string } | undefined {
  const match = text.match(/^# herald-launcher: (herald|profile ([a-z0-9][a-z0-9_-]*))$/m);
  if (!match) return undefined;
  return match[2] === undefined ? { kind: "herald" } : { kind: "profile", profile: match[2] };
}

/** The checkout a `herald` launcher's text runs (its `checkout='...'` line), if it names one. */
export function parseLauncherCheckout(text: string): string | undefined {
  const match = text.match(/^checkout='((?:[^']|'\\'')*)'$/m);
  return match ? match[1].replaceAll(`'\\''`, "'") : undefined;
}

/** Looks at `path` without following a symbolic link. */
export async function readLauncher(path: string): Promise<LauncherFile> {
  let info: Deno.FileInfo;
  try {
    info = await Deno.lstat(path);
  } catch (error) {
    if (missing(error)) return { state: "missing" };
    throw error;
  }
  if (info.isSymlink) return { state: "foreign", what: "a symbolic link" };
  if (!info.isFile) return { state: "foreign", what: "a folder" };
  // A launcher is a few hundred bytes; a large file is not one.
  if (info.size > 8192) return { state: "foreign", what: "a file Herald did not write" };
  const marker = parseLauncherMarker(await Deno.readTextFile(path).catch(() => ""));
  if (!marker) return { state: "foreign", what: "a file Herald did not write" };
  return { state: "ours", ...marker };
}

/** Writes `text` to `path` atomically, executable (0755). */
export async function writeLauncher(path: string, text: string): Promise<void> {
  await writeFileAtomic(path, text, { mode: 0o755, forceMode: true });
}

/**
 * Writes a launcher at `path` unless something Herald did not write is
 * there; returns whether it replaced an older launcher.
 */
export async function installLauncher(path: string, target: LauncherTarget): Promise<boolean> {
  const text = renderLauncher(target);
  const existing = await readLauncher(path);
  if (existing.state === "foreign") {
    throw new HeraldError(
      "launcher_path_taken",
      "conflict",
      `${path} is ${existing.what}, not a launcher Herald wrote; move it away or ` +
        "install into another folder with --dir <folder>",
      { details: { path } },
    );
  }
  await Deno.mkdir(dirname(path), { recursive: true, mode: 0o755 });
  await writeLauncher(path, text);
  return existing.state === "ours";
}

/** Removes `path` when it is a launcher Herald wrote; true when it removed one. */
export async function removeLauncher(path: string): Promise<boolean> {
  const existing = await readLauncher(path);
  if (existing.state !== "ours") return false;
  await Deno.remove(path);
  return true;
}

/** The profile launchers in `dir`: their paths and profiles. */
export async function profileLaunchers(
  dir: string,
): Promise<{ path: string; profile: string }[]> {
  const found: { path: string; profile: string }[] = [];
  try {
    for await (const entry of Deno.readDir(dir)) {
      if (!entry.isFile) continue;
      const path = join(dir, entry.name);
      const file = await readLauncher(path);
      if (file.state === "ours" && file.kind === "profile" && file.profile === entry.name) {
        found.push({ path, profile: file.profile });
      }
    }
  } catch (error) {
    if (!missing(error)) throw error;
  }
  return found.sort((a, b) => a.path.localeCompare(b.path));
}

/** The environment variables the launcher functions read. */
export interface LauncherEnv {
  HOME?: string;
  PATH?: string;
  HERALD_BIN_DIR?: string;
}

/**
 * The folder the launcher goes in: `dir` when given, else
 * `HERALD_BIN_DIR`, else `~/.local/bin`. Relative folders resolve against `cwd`.
 */
export function launcherDir(env: LauncherEnv, dir?: string, cwd: string = Deno.cwd()): string {
  const chosen = dir ?? (env.HERALD_BIN_DIR || undefined);
  if (chosen !== undefined) return resolve(cwd, chosen);
  if (!env.HOME) {
    throw new HeraldError(
      "launcher_no_home",
      "usage",
      "HOME is not set, so there is no ~/.local/bin; choose a folder with --dir <folder> " +
        "or HERALD_BIN_DIR",
    );
  }
  return join(env.HOME, ".local", "bin");
}

function realOrSelf(path: string): string {
  try {
    return Deno.realPathSync(path);
  } catch {
    return resolve(path);
  }
}

/** The folders of `PATH`, in order (empty entries left out). */
export function pathDirs(env: LauncherEnv): string[] {
  return (env.PATH ?? "").split(":").filter((dir) => dir !== "");
}

/** True when `dir` is one of the folders of `PATH` (links resolved). */
export function onPath(env: LauncherEnv, dir: string): boolean {
  const wanted = realOrSelf(dir);
  return pathDirs(env).some((entry) => realOrSelf(entry) === wanted);
}

/** The first executable file called `name` in the folders of `PATH`. */
export async function findOnPath(name: string, env: LauncherEnv): Promise<string | undefined> {
  for (const dir of pathDirs(env)) {
    const path = join(dir, name);
    try {
      const info = await Deno.stat(path);
      if (info.isFile && ((info.mode ?? 0o111) & 0o111) !== 0) return path;
    } catch (error) {
      if (!missing(error) && !(error instanceof Deno.errors.PermissionDenied)) throw error;
    }
  }
  return undefined;
}

/**
 * Whether `path` is the link installers/install.sh puts on the PATH for a
 * release install: a symbolic link to a binary of a release install folder.
 */
async function isReleaseBinaryLink(path: string): Promise<boolean> {
  try {
    if (!(await Deno.lstat(path)).isSymlink) return false;
    return (await releaseInstallDir(await Deno.realPath(path))) !== undefined;
  } catch {
    return false;
  }
}

/**
 * Where the installed `herald` command is: the first of
 * `HERALD_BIN_DIR/herald`, each `PATH` folder's `herald`, and
 * `~/.local/bin/herald` that Herald wrote (a launcher, or the link to a
 * release binary that install.sh writes).
 */
export async function findInstalledLauncher(env: LauncherEnv): Promise<string | undefined> {
  const candidates = [
    ...(env.HERALD_BIN_DIR ? [resolve(env.HERALD_BIN_DIR)] : []),
    ...pathDirs(env).map((dir) => resolve(dir)),
    ...(env.HOME ? [join(env.HOME, ".local", "bin")] : []),
  ];
  for (const dir of new Set(candidates)) {
    const path = join(dir, LAUNCHER_NAME);
    const file = await readLauncher(path).catch(() => undefined);
    if (file?.state === "ours" && file.kind === "herald") return path;
    if (await isReleaseBinaryLink(path)) return path;
  }
  return undefined;
}

/** The folder of this Herald checkout (the one holding deno.json and cli/). */
export function checkoutRoot(): string {
  const root = heraldCheckout();
  if (root === undefined) throw new Error("A compiled Herald has no checkout to install from");
  return root;
}

/** The line that puts `dir` on the PATH, and the shell profile file it goes in. */
export interface PathAdvice {
  /** The profile file, shown with `~` (for example `~/.bashrc`). */
  file: string;
  /** The exact line to add. */
  line: string;
}

/**
 * What to add to which shell profile so `dir` is on the PATH, for the
 * user's `SHELL` (bash, zsh, fish; anything else gets `~/.profile`). A
 * folder under `HOME` is written after `$HOME`, which stays expandable;
 * the rest of the path is quoted for that shell, so spaces, quotes, `$`
 * and `!` are taken as they are.
 *
 * @example
 * ```ts
 * pathAdvice({ HOME: "/home/ann", SHELL: "/bin/zsh" }, "/home/ann/.local/bin", "linux")
 * // { file: "~/.zshrc", line: 'export PATH="$HOME/.local/bin:$PATH"' }
 * ```
 */
export function pathAdvice(
  env: LauncherEnv & { SHELL?: string },
  dir: string,
  os: typeof Deno.build.os = Deno.build.os,
): PathAdvice {
  const home = env.HOME?.replace(/\/+$/, "");
  const underHome = home !== undefined && home !== "" && dir.startsWith(`${home}/`);
  const prefix = underHome ? "$HOME" : "";
  const rest = underHome ? dir.slice(home!.length) : dir;
  const shell = (env.SHELL ?? "").split("/").pop() ?? "";
  if (shell === "fish") {
    return { file: "~/.config/fish/config.fish", line: `fish_add_path ${fishWord(prefix, rest)}` };
  }
  const line = `export PATH=${posixWord(prefix, rest)}`;
  if (shell === "zsh") return { file: "~/.zshrc", line };
  if (shell === "bash") return { file: os === "darwin" ? "~/.bash_profile" : "~/.bashrc", line };
  return { file: "~/.profile", line };
}

/**
 * The value of a POSIX `PATH=` assignment: `prefix` (`$HOME` or nothing,
 * expanded), then `rest` as it is, then `:$PATH`. Plain text goes in one
 * pair of double quotes; text with `\`, `"`, `$`, a backquote or `!` (which
 * an interactive bash or zsh expands even there) in single quotes.
 */
function posixWord(prefix: string, rest: string): string {
  if (!/[\\"$`!]/.test(rest)) return `"${prefix}${rest}:$PATH"`;
  return `${prefix ? `"${prefix}"` : ""}${shellQuote(rest)}":$PATH"`;
}

/**
 * A fish word: `prefix` (`$HOME` or nothing, expanded), then `rest` as it
 * is: bare when it is plain, else in double quotes with `\`, `"` and `$`
 * escaped (the only escapes fish reads there).
 */
function fishWord(prefix: string, rest: string): string {
  if (/^[\w/.+@%:-]+$/.test(rest)) return `${prefix}${rest}`;
  return `"${prefix}${rest.replace(/(["\\$])/g, "\\$1")}"`;
}

/** Shell words a launcher must not shadow: keywords and builtins found on no PATH. */
const SHELL_WORDS = new Set([
  "alias",
  "bg",
  "break",
  "case",
  "cd",
  "command",
  "continue",
  "do",
  "done",
  "elif",
  "else",
  "esac",
  "eval",
  "exec",
  "exit",
  "export",
  "fg",
  "fi",
  "for",
  "function",
  "getopts",
  "hash",
  "history",
  "if",
  "jobs",
  "read",
  "return",
  "select",
  "set",
  "shift",
  "source",
  "then",
  "time",
  "trap",
  "type",
  "ulimit",
  "umask",
  "unalias",
  "unset",
  "until",
  "wait",
  "while",
]);

/** Where a profile launcher goes, and the herald launcher it runs. */
export interface ProfileLauncherPlan {
  /** The profile launcher's path (beside the herald launcher). */
  path: string;
  /** The installed herald launcher. */
  herald: string;
}

/**
 * Checks that a `<profile>` launcher can be written beside the installed
 * herald launcher: one is installed, nothing Herald did not write is at
 * `<bin>/<profile>`, and `<profile>` is not already a command on the PATH.
 */
export async function planProfileLauncher(
  profile: string,
  env: LauncherEnv,
): Promise<ProfileLauncherPlan> {
  const herald = await findInstalledLauncher(env);
  if (herald === undefined) {
    throw new HeraldError(
      "launcher_not_installed",
      "state",
      "No herald launcher is installed (looked in HERALD_BIN_DIR, the PATH and ~/.local/bin); " +
        "run `deno task install` in the Herald checkout first (or install with " +
        "installers/install.sh), or create the profile " +
        "without --launcher",
    );
  }
  const path = join(dirname(herald), profile);
  const existing = await readLauncher(path);
  const ours = existing.state === "ours" && existing.kind === "profile" &&
    existing.profile === profile;
  if (existing.state !== "missing" && !ours) {
    throw new HeraldError(
      "launcher_path_taken",
      "conflict",
      `Cannot write a launcher at ${path}: it is ${
        existing.state === "foreign" ? existing.what : "another Herald launcher"
      }; choose another profile name or create it without --launcher`,
      { details: { path } },
    );
  }
  const command = SHELL_WORDS.has(profile) ? `a shell word` : await findOnPath(profile, env);
  if (command !== undefined && command !== path) {
    throw new HeraldError(
      "launcher_shadows_command",
      "conflict",
      `"${profile}" is already a command (${command}); a launcher of that name would ` +
        "hide it. Choose another profile name or create it without --launcher",
      { details: { profile } },
    );
  }
  return { path, herald };
}

/** Writes the profile launcher {@link planProfileLauncher} planned. */
export async function writeProfileLauncher(
  plan: ProfileLauncherPlan,
  profile: string,
): Promise<void> {
  await writeLauncher(plan.path, renderLauncher({ kind: "profile", profile, herald: plan.herald }));
}

/**
 * Removes the `<profile>` launcher beside the installed herald launcher,
 * when Herald wrote it for that profile; returns its path when it did.
 */
export async function removeProfileLauncher(
  profile: string,
  env: LauncherEnv,
): Promise<string | undefined> {
  const herald = await findInstalledLauncher(env);
  if (herald === undefined) return undefined;
  const path = join(dirname(herald), profile);
  const existing = await readLauncher(path);
  if (existing.state !== "ours" || existing.kind !== "profile" || existing.profile !== profile) {
    return undefined;
  }
  await Deno.remove(path);
  return path;
}

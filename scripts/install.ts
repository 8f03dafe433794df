/**
 * `deno task install` and `deno task uninstall`: put a `herald` command on
 * the PATH, or take it away again.
 *
 * ```sh
 * npx -y deno@2.9.6 task install                 # writes ~/.local/bin/herald
 * npx -y deno@2.9.6 task install --dir ~/bin     # or HERALD_BIN_DIR=~/bin
 * npx -y deno@2.9.6 task uninstall               # removes it and the profile launchers beside it
 * ```
 *
 * The launcher (adapters/install/launcher.ts) runs this checkout with the
 * Deno that ran this script, by absolute paths, in the folder it is run from.
 *
 * @module
 */

import { join } from "node:path";
import { HeraldError } from "../core/errors.ts";
import {
  checkoutRoot,
  findOnPath,
  installLauncher,
  LAUNCHER_NAME,
  launcherDir,
  onPath,
  pathAdvice,
  profileLaunchers,
  readLauncher,
  removeLauncher,
} from "../adapters/install/launcher.ts";

/** What the command line asks for. */
export interface InstallArgs {
  uninstall: boolean;
  dir?: string;
  help: boolean;
}

const USAGE = `Usage: deno task install [--dir <folder>]
       deno task uninstall [--dir <folder>]

Writes (or removes) the \`herald\` launcher: ~/.local/bin/herald unless --dir or
HERALD_BIN_DIR names another folder. \`uninstall\` also removes the profile launchers
that \`herald profile create <name> --launcher\` wrote beside it.
`;

function usage(message: string): HeraldError {
  return new HeraldError("usage", "usage", `${message}; run \`deno task install --help\``);
}

/**
 * Parses the script's arguments.
 *
 * @example
 * ```ts
 * parseInstallArgs(["--dir", "/opt/bin"]) // { uninstall: false, dir: "/opt/bin", help: false }
 * ```
 */
export function parseInstallArgs(argv: readonly string[]): InstallArgs {
  const args: InstallArgs = { uninstall: false, help: false };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === "--uninstall") args.uninstall = true;
    else if (arg === "-h" || arg === "--help") args.help = true;
    else if (arg === "--dir") {
      const value = argv[++i];
      if (value === undefined || value === "") throw usage("--dir needs a folder");
      args.dir = value;
    } else if (arg.startsWith("--dir=")) {
      args.dir = arg.slice("--dir=".length);
      if (args.dir === "") throw usage("--dir needs a folder");
    } else throw usage(`Unknown argument "${arg}"`);
  }
  return args;
}

/** Where one run of the script reads and writes. */
export interface InstallContext {
  env: Record<string, string | undefined>;
  /** The folder relative `--dir` values resolve against (the caller's, under `deno task`). */
  cwd: string;
  out: (text: string) => void;
  /** The Deno binary the launcher runs. */
  deno: string;
  denoVersion: string;
  /** The checkout the launcher runs. */
  checkout: string;
}

/** Writes the launcher and says what to do next. */
export async function install(args: InstallArgs, c: InstallContext): Promise<void> {
  if (Deno.build.os === "windows") {
    throw new HeraldError(
      "launcher_unsupported",
      "usage",
      "The herald launcher is a POSIX shell script; on Windows run `deno task herald` " +
        "in the checkout, or use WSL",
    );
  }
  const dir = launcherDir(c.env, args.dir, c.cwd);
  const path = join(dir, LAUNCHER_NAME);
  const replaced = await installLauncher(path, {
    kind: "herald",
    deno: c.deno,
    checkout: c.checkout,
    denoVersion: c.denoVersion,
  });
  c.out(
    `${replaced ? "Replaced" : "Wrote"} ${path}: runs Herald from ${c.checkout} ` +
      `with Deno ${c.denoVersion} (${c.deno}), in the folder you run it from\n`,
  );
  if (!onPath(c.env, dir)) {
    const advice = pathAdvice(c.env, dir);
    c.out(
      `${dir} is not on your PATH. Add this line to ${advice.file}, then open a new terminal:\n` +
        `  ${advice.line}\n`,
    );
  } else {
    const first = await findOnPath(LAUNCHER_NAME, c.env);
    if (first !== undefined && first !== path) {
      c.out(`Note: ${first} comes first on your PATH, so \`herald\` runs that one\n`);
    }
  }
  c.out("Then run `herald` in any folder (`herald --help` lists the commands).\n");
}

/** Removes the launcher (only when Herald wrote it) and the profile launchers beside it. */
export async function uninstall(args: InstallArgs, c: InstallContext): Promise<void> {
  const dir = launcherDir(c.env, args.dir, c.cwd);
  const path = join(dir, LAUNCHER_NAME);
  const existing = await readLauncher(path);
  if (existing.state === "foreign" || (existing.state === "ours" && existing.kind !== "herald")) {
    throw new HeraldError(
      "launcher_path_taken",
      "conflict",
      `${path} is ${
        existing.state === "foreign" ? existing.what : "a profile launcher"
      }, not the herald launcher; left it as it is`,
      { details: { path } },
    );
  }
  for (const launcher of await profileLaunchers(dir)) {
    await Deno.remove(launcher.path);
    c.out(`Removed ${launcher.path} (profile "${launcher.profile}")\n`);
  }
  if (await removeLauncher(path)) c.out(`Removed ${path}\n`);
  else c.out(`Nothing to remove: there is no herald launcher at ${path}\n`);
}

function writeAll(bytes: Uint8Array): void {
  let written = 0;
  while (written < bytes.length) written += Deno.stdout.writeSync(bytes.subarray(written));
}

async function main(): Promise<number> {
  const env = Deno.env.toObject();
  try {
    const args = parseInstallArgs(Deno.args);
    if (args.help) {
      console.log(USAGE);
      return 0;
    }
    const context: InstallContext = {
      env,
      // `deno task` runs in the checkout and says where it was started from.
      cwd: env.INIT_CWD || Deno.cwd(),
      out: (text) => writeAll(new TextEncoder().encode(text)),
      deno: Deno.execPath(),
      denoVersion: Deno.version.deno,
      checkout: checkoutRoot(),
    };
    await (args.uninstall ? uninstall(args, context) : install(args, context));
    return 0;
  } catch (error) {
    if (error instanceof HeraldError) {
      console.error(`install: ${error.message}`);
      return error.kind === "usage" ? 2 : 1;
    }
    throw error;
  }
}

if (import.meta.main) Deno.exit(await main());

/**
 * One `deno compile` of Herald for one target: the `--include` list (every
 * lazily loaded module and the bundled skills), the command, and what its
 * failure means: Deno's runtime image (`denort`) could not be had, or the
 * code does not build.
 *
 * @module
 */

import { join } from "node:path";
import { LAZY_MODULES } from "../adapters/lazy.ts";
import type { Target } from "./targets.ts";

/** The program's entry point, relative to the repository root. */
export const ENTRY = "cli/main.ts";

/**
 * Files the program reads at run time from beside its modules, embedded
 * with `--include` as they are (adapters/skills/seed.ts's bundled skills;
 * the installers, whose install.sh the desktop bootstrap copies out and runs).
 */
export const EMBEDDED_FOLDERS: readonly string[] = ["adapters/skills/bundled", "installers"];

/**
 * What `--include` gets for one {@link LAZY_MODULES} entry: a repository
 * path as it is, a bare package name as deno.json's import map resolves it
 * (`deno compile --include` takes paths and `npm:` specifiers, not bare
 * names).
 */
export function includeFor(entry: string, imports: Readonly<Record<string, string>>): string {
  if (entry.endsWith(".ts")) return entry;
  const mapped = imports[entry];
  if (!mapped) {
    throw new Error(`LAZY_MODULES names "${entry}", which deno.json's imports do not map`);
  }
  return mapped;
}

/** The import map of the deno.json at `root`. */
export async function readImports(root: string): Promise<Record<string, string>> {
  const config = JSON.parse(await Deno.readTextFile(join(root, "deno.json")));
  return config.imports ?? {};
}

/**
 * Everything `deno compile` gets with `--include`: each {@link LAZY_MODULES}
 * entry ({@link includeFor}) and the {@link EMBEDDED_FOLDERS}.
 */
export function includeList(imports: Readonly<Record<string, string>>): string[] {
  return [...LAZY_MODULES.map((entry) => includeFor(entry, imports)), ...EMBEDDED_FOLDERS];
}

/**
 * The `deno compile` arguments for `target` into `output`. Type-checking is
 * left to one `deno check` before the matrix ({@link checkArgs}).
 */
export function compileArgs(target: Target, output: string, includes: readonly string[]): string[] {
  return [
    "compile",
    "--allow-all",
    "--no-check",
    "--target",
    target.triple,
    ...includes.flatMap((include) => ["--include", include]),
    "--output",
    output,
    ENTRY,
  ];
}

/** The `deno check` arguments covering what every compile embeds as code. */
export function checkArgs(includes: readonly string[]): string[] {
  return ["check", "--quiet", ENTRY, ...includes.filter((include) => include.endsWith(".ts"))];
}

/** How one compile ended. */
export type CompileResult =
  | { kind: "built" }
  | { kind: "no-runtime"; reason: string }
  | { kind: "failed"; output: string };

// deno-lint-ignore no-control-regex
const ANSI = /\x1b\[[0-9;]*m/g;

/**
 * Reads a failed compile's output: a missing or unobtainable runtime image
 * is `no-runtime` with a short reason; anything else is a real failure.
 */
export function classifyFailure(output: string, denort: string | undefined): CompileResult {
  const text = output.replace(ANSI, "");
  if (/Could not find denort at/.test(text)) {
    return { kind: "no-runtime", reason: `DENORT_BIN points at ${denort}, which cannot be read` };
  }
  if (/Setting up base binary|dl\.deno\.land|denort-[\w-]+\.zip/.test(text)) {
    const chain = text.split("Stack backtrace")[0];
    const causes = [...chain.matchAll(/^\s*\d+: (.+)$/gm)].map((match) => match[1].trim());
    const cause = causes.at(-1) ?? "no answer";
    return {
      kind: "no-runtime",
      reason: `the download from dl.deno.land failed (${cause}) and DENORT_BIN is not set`,
    };
  }
  return { kind: "failed", output: text.trim() };
}

/**
 * Compiles Herald for `target` into `output` with the `deno` running this
 * build. `denort` is passed as `DENORT_BIN` when given and removed from the
 * child's environment otherwise (so Deno downloads the image).
 */
export async function compileTarget(options: {
  root: string;
  target: Target;
  output: string;
  includes: readonly string[];
  denort?: string;
}): Promise<CompileResult> {
  const env = Deno.env.toObject();
  delete env.DENORT_BIN;
  if (options.denort) env.DENORT_BIN = options.denort;
  env.NO_COLOR = "1";
  const result = await new Deno.Command(Deno.execPath(), {
    args: compileArgs(options.target, options.output, options.includes),
    cwd: options.root,
    env,
    clearEnv: true,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).output();
  if (result.success) return { kind: "built" };
  const decode = (bytes: Uint8Array) => new TextDecoder().decode(bytes);
  return classifyFailure(`${decode(result.stdout)}${decode(result.stderr)}`, options.denort);
}

/** How a built binary answered `--version`. */
export type SmokeResult =
  | { kind: "runs" }
  | { kind: "not-herald"; detail: string }
  | { kind: "broken"; output: string };

/**
 * Runs a binary built for this machine with `--version`: it must print
 * Herald's version line naming `commit`. A binary that prints no such line
 * and no error was made from something that is not a Deno runtime image
 * (`not-herald`); one that reports an error is a broken build.
 */
export async function smokeTest(binary: string, commit: string): Promise<SmokeResult> {
  let output: Deno.CommandOutput;
  try {
    output = await new Deno.Command(binary, {
      args: ["--version"],
      stdin: "null",
      stdout: "piped",
      stderr: "piped",
      signal: AbortSignal.timeout(60_000),
    }).output();
  } catch (error) {
    return { kind: "not-herald", detail: `it does not start (${(error as Error).message})` };
  }
  const stdout = new TextDecoder().decode(output.stdout).trim();
  const stderr = new TextDecoder().decode(output.stderr).trim();
  const short = commit === "unknown" ? "" : commit.slice(0, 12);
  if (output.success && stdout.startsWith("herald ") && stdout.includes(short)) {
    return { kind: "runs" };
  }
  if (/\berror\b/i.test(stderr) && !output.success && stdout === "") {
    return { kind: "broken", output: stderr };
  }
  const said = (stdout || stderr).split("\n")[0].slice(0, 60);
  return {
    kind: "not-herald",
    detail: said ? `its --version printed "${said}"` : "its --version printed nothing",
  };
}

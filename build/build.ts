/**
 * `deno task build` (`deno run -A build/build.ts [--target <triple>...] [--out dist]`):
 * the web app embed step (build/ui.ts), the build stamp, one `deno compile`
 * per target, and `SHA256SUMS`.
 *
 * The stamp goes to `<out>/install-stamp.json` and, for the compiles only,
 * into build/stamp.gen.ts (its committed placeholder is put back after).
 * Where Deno's runtime image (`denort`) cannot be had, as when it cannot be
 * downloaded and `DENORT_BIN` is unset or unusable, the build says so in
 * one line, skips those compiles and still writes the stamp and the sums
 * (exit 0). Code that does not type-check or compile fails the build
 * (exit 1); a bad argument is exit 2. build/README.md has the details.
 *
 * @module
 */

import { parseArgs } from "node:util";
import { join, relative, resolve } from "node:path";
import {
  type BuildStamp,
  readStamp,
  renderStampModule,
  ROOT,
  STAMP_FILE,
  STAMP_MODULE,
} from "./stamp.ts";
import {
  artifactName,
  binaryTarget,
  hostTarget,
  type Target,
  targetByTriple,
  TARGETS,
} from "./targets.ts";
import { checkArgs, compileTarget, includeList, readImports, smokeTest } from "./compile.ts";
import { SUMS_FILE, writeSums } from "./sums.ts";

/** What a build run was asked for. */
export interface BuildOptions {
  /** The targets to compile, in {@link TARGETS} order. */
  targets: Target[];
  /** The output folder. */
  out: string;
}

/** A usage mistake: the message says what to pass instead. */
export class UsageError extends Error {}

/**
 * Reads the build's arguments: `--target <triple>` (repeatable; default
 * every target) and `--out <folder>` (default `dist`, relative to the folder
 * `deno task build` was started from).
 */
export function parseBuildArgs(args: readonly string[]): BuildOptions {
  let parsed;
  try {
    parsed = parseArgs({
      args: [...args],
      options: { target: { type: "string", multiple: true }, out: { type: "string" } },
      strict: true,
      allowPositionals: false,
    });
  } catch (error) {
    throw new UsageError(`${(error as Error).message}. Usage: ${USAGE}`);
  }
  const triples = parsed.values.target ?? TARGETS.map((target) => target.triple);
  const unknown = triples.filter((triple) => !targetByTriple(triple));
  if (unknown.length > 0) {
    throw new UsageError(
      `Unknown target ${unknown.join(", ")}: choose from ${
        TARGETS.map((t) => t.triple).join(", ")
      }`,
    );
  }
  return {
    targets: TARGETS.filter((target) => triples.includes(target.triple)),
    // `deno task build` runs in the checkout; a relative --out is the caller's folder's.
    out: resolve(Deno.env.get("INIT_CWD") ?? Deno.cwd(), parsed.values.out ?? "dist"),
  };
}

const USAGE = "deno task build [--target <triple>]... [--out <folder>]";

/** The runtime image a target would be compiled with, or why there is none. */
type Runtime = { denort?: string } | { missing: string };

/** Reads the first bytes of `path`, or undefined when it cannot be read. */
async function header(path: string): Promise<Uint8Array | undefined> {
  try {
    using file = await Deno.open(path);
    const bytes = new Uint8Array(4096);
    const read = await file.read(bytes);
    return bytes.subarray(0, read ?? 0);
  } catch {
    return undefined;
  }
}

/**
 * Decides, before compiling, which image each target would use: `DENORT_BIN`
 * for the one target its file was built for (the others are skipped: Deno
 * would put that same image in every binary), else Deno's download.
 */
async function planRuntimes(targets: Target[], denort: string | undefined): Promise<Runtime[]> {
  if (!denort) return targets.map(() => ({}));
  const bytes = await header(denort);
  if (!bytes) {
    return targets.map(() => ({ missing: `DENORT_BIN points at ${denort}, which cannot be read` }));
  }
  const built = binaryTarget(bytes);
  if (!built) {
    return targets.map(() => ({
      missing: `DENORT_BIN (${denort}) is not a program for any build target`,
    }));
  }
  return targets.map((target) =>
    target === built
      ? { denort }
      : { missing: `DENORT_BIN (${denort}) is a runtime for ${built.triple} only` }
  );
}

async function removeIfPresent(path: string): Promise<void> {
  await Deno.remove(path).catch((error) => {
    if (!(error instanceof Deno.errors.NotFound)) throw error;
  });
}

async function exists(path: string): Promise<boolean> {
  return await Deno.stat(path).then(() => true, () => false);
}

/** Runs the web app embed step (build/ui.ts) as `deno task ui:build` does. */
async function embedUi(): Promise<void> {
  const status = await new Deno.Command(Deno.execPath(), {
    args: ["run", "--allow-all", "--quiet", join(ROOT, "build", "ui.ts")],
    cwd: ROOT,
    stdin: "null",
  }).spawn().status;
  if (!status.success) throw new BuildError("the web app embed step (build/ui.ts) failed");
}

/** A failure of the build itself (bad code, a failed step): exit 1. */
export class BuildError extends Error {}

async function typeCheck(includes: readonly string[]): Promise<void> {
  const output = await new Deno.Command(Deno.execPath(), {
    args: checkArgs(includes),
    cwd: ROOT,
    env: { NO_COLOR: "1" },
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).output();
  if (!output.success) {
    const decode = (bytes: Uint8Array) => new TextDecoder().decode(bytes);
    throw new BuildError(
      `the code does not type-check:\n${decode(output.stdout)}${decode(output.stderr)}`,
    );
  }
}

/** The one line naming the targets left without a binary and why. */
export function skippedLine(skipped: Map<string, string[]>, requested: number): string {
  const parts = [...skipped].map(([reason, triples]) =>
    `${
      triples.length === requested && skipped.size === 1 ? "every target" : triples.join(", ")
    }: ${reason}`
  );
  return `build: no Deno runtime image (denort ${Deno.version.deno}) for ${
    parts.join("; ")
  }; those binaries skipped, install-stamp.json and SHA256SUMS still written (DENORT_BIN: see build/README.md)`;
}

/** Compiles every target it can; returns the artifacts built and the targets skipped by reason. */
async function compileAll(
  options: BuildOptions,
  stamp: BuildStamp,
  includes: readonly string[],
): Promise<{ built: string[]; skipped: Map<string, string[]> }> {
  const denort = Deno.env.get("DENORT_BIN")?.trim() || undefined;
  const runtimes = await planRuntimes(options.targets, denort);
  const built: string[] = [];
  const skipped = new Map<string, string[]>();
  const skip = (target: Target, reason: string) =>
    skipped.set(reason, [...(skipped.get(reason) ?? []), target.triple]);
  let downloadFailed: string | undefined;
  for (const [index, target] of options.targets.entries()) {
    const runtime = runtimes[index];
    if ("missing" in runtime) {
      skip(target, runtime.missing);
      continue;
    }
    if (!runtime.denort && downloadFailed) {
      skip(target, downloadFailed);
      continue;
    }
    const name = artifactName(target);
    const output = join(options.out, name);
    const result = await compileTarget({
      root: ROOT,
      target,
      output,
      includes,
      denort: runtime.denort,
    });
    if (result.kind === "failed") {
      throw new BuildError(`deno compile for ${target.triple} failed:\n${result.output}`);
    }
    if (result.kind === "no-runtime") {
      if (!runtime.denort) downloadFailed = result.reason;
      skip(target, result.reason);
      continue;
    }
    if (target === hostTarget()) {
      const smoke = await smokeTest(output, stamp.commit);
      if (smoke.kind === "broken") {
        throw new BuildError(`${name} was built but does not run:\n${smoke.output}`);
      }
      if (smoke.kind === "not-herald") {
        await removeIfPresent(output);
        const image = runtime.denort ? `DENORT_BIN (${runtime.denort})` : "the downloaded image";
        skip(
          target,
          `${image} is not a Deno runtime image: the binary made with it does not run Herald (${smoke.detail})`,
        );
        continue;
      }
    }
    const size = (await Deno.stat(output)).size / (1024 * 1024);
    console.log(`build: ${shown(output)} (${size.toFixed(1)} MB, ${target.triple})`);
    built.push(name);
  }
  return { built, skipped };
}

/** `path` relative to the working folder when it is inside it, else as it is. */
function shown(path: string): string {
  const rel = relative(Deno.cwd(), path);
  return rel.startsWith("..") ? path : rel;
}

/**
 * The signals that put the placeholder stamp module back before the build
 * exits, with the exit code (128 + the signal's number). Windows delivers
 * only SIGINT and SIGBREAK to a Deno program.
 */
const RESTORE_SIGNALS: ReadonlyArray<readonly [Deno.Signal, number]> = Deno.build.os === "windows"
  ? [["SIGINT", 130], ["SIGBREAK", 149]]
  : [["SIGINT", 130], ["SIGTERM", 143], ["SIGHUP", 129]];

/** Runs the whole build for `options`. */
export async function build(options: BuildOptions): Promise<void> {
  await embedUi();
  const stamp = await readStamp(ROOT);
  await Deno.mkdir(options.out, { recursive: true });
  for (const name of [SUMS_FILE, STAMP_FILE, ...TARGETS.map(artifactName)]) {
    await removeIfPresent(join(options.out, name));
  }
  await Deno.writeTextFile(join(options.out, STAMP_FILE), `${JSON.stringify(stamp, null, 2)}\n`);
  const includes = includeList(await readImports(ROOT));
  await typeCheck(includes);
  const placeholder = renderStampModule();
  const restore = () => Deno.writeTextFileSync(STAMP_MODULE, placeholder);
  const listeners = RESTORE_SIGNALS.map(([signal, code]) => {
    const listener = () => {
      restore();
      Deno.exit(code);
    };
    Deno.addSignalListener(signal, listener);
    return [signal, listener] as const;
  });
  let result;
  try {
    await Deno.writeTextFile(STAMP_MODULE, renderStampModule(stamp));
    result = await compileAll(options, stamp, includes);
  } finally {
    restore();
    for (const [signal, listener] of listeners) Deno.removeSignalListener(signal, listener);
  }
  if (result.skipped.size > 0) console.log(skippedLine(result.skipped, options.targets.length));
  const artifacts = [STAMP_FILE];
  for (const name of result.built) if (await exists(join(options.out, name))) artifacts.push(name);
  await writeSums(options.out, artifacts);
  const files = `${artifacts.length} file${artifacts.length === 1 ? "" : "s"}`;
  const dirty = stamp.dirty ? ", dirty" : "";
  const sums = shown(join(options.out, SUMS_FILE));
  console.log(`build: ${sums} (${files}, commit ${stamp.commit.slice(0, 12)}${dirty})`);
}

if (import.meta.main) {
  try {
    await build(parseBuildArgs(Deno.args));
  } catch (error) {
    if (error instanceof UsageError) {
      console.error(`build: ${error.message}`);
      Deno.exit(2);
    }
    if (error instanceof BuildError) {
      console.error(`build: ${error.message}`);
      Deno.exit(1);
    }
    throw error;
  }
}

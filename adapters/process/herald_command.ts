/**
 * Running Herald itself in a child process (the dashboard's update, gateway
 * restart, web terminal and MCP installs): the same program this process
 * is, started the same way.
 *
 * From source this process is the `deno` binary running `cli/main.ts`, so a
 * child is `deno run --allow-all --quiet <repo>/cli/main.ts ...`. From a
 * `deno compile` binary the program is the binary itself and takes Herald's
 * arguments directly. Which one applies is decided from the runtime's own
 * facts ({@link heraldLaunchMode}), never from a hard-coded command.
 *
 * @module
 */

import { fileURLToPath } from "node:url";

/** How this process runs Herald. */
export type HeraldLaunchMode = "source" | "compiled";

/** The facts {@link heraldLaunchMode} decides from, as the runtime reports them. */
export interface HeraldRuntimeFacts {
  /** `Deno.execPath()`: the deno binary from source, the compiled binary otherwise. */
  execPath: string;
  /** `Deno.mainModule`: the URL of the entry point. */
  mainModule: string;
  /** `Deno.build.standalone`: true inside a `deno compile` binary (absent on older runtimes). */
  standalone?: boolean;
  /** Herald's source entry point (`cli/main.ts`), a path or a URL. */
  sourceMain: string;
}

/**
 * The folder a compiled binary's embedded files appear under: its virtual
 * file system is rooted at `<temp>/deno-compile-<binary name>/`.
 */
const COMPILED_ROOT = /[\\/]deno-compile-[^\\/]+[\\/]/;

/**
 * Decides whether `facts` describe a `deno compile` binary or the deno
 * binary running Herald's source: compiled when the runtime says it is
 * standalone, or when the main module lives in a compiled binary's virtual
 * file system; source otherwise (a `file:` entry point on disk, or a remote
 * one).
 *
 * @example
 * ```ts
 * heraldLaunchMode({
 *   execPath: "/usr/local/bin/herald",
 *   mainModule: "file:///tmp/deno-compile-herald/cli/main.ts",
 *   sourceMain: "/tmp/deno-compile-herald/cli/main.ts",
 * }); // "compiled"
 * ```
 */
export function heraldLaunchMode(facts: HeraldRuntimeFacts): HeraldLaunchMode {
  if (facts.standalone === true) return "compiled";
  if (!facts.mainModule.startsWith("file:")) return "source";
  let path: string;
  try {
    path = decodeURIComponent(new URL(facts.mainModule).pathname);
  } catch {
    return "source";
  }
  return COMPILED_ROOT.test(path) ? "compiled" : "source";
}

/**
 * The command (program first) that runs Herald as described by `facts`;
 * append Herald's own arguments to it.
 *
 * @example
 * ```ts
 * heraldCommandFor({
 *   execPath: "/usr/bin/deno",
 *   mainModule: "file:///src/herald/cli/main.ts",
 *   sourceMain: "/src/herald/cli/main.ts",
 * }); // ["/usr/bin/deno", "run", "--allow-all", "--quiet", "/src/herald/cli/main.ts"]
 * ```
 */
export function heraldCommandFor(facts: HeraldRuntimeFacts): string[] {
  return heraldLaunchMode(facts) === "compiled"
    ? [facts.execPath]
    : [facts.execPath, "run", "--allow-all", "--quiet", facts.sourceMain];
}

/** Herald's source entry point next to this module: a path on disk, or the URL it was loaded from. */
function sourceMain(): string {
  const main = new URL("../../cli/main.ts", import.meta.url);
  return main.protocol === "file:" ? fileURLToPath(main) : main.href;
}

/**
 * The path a program should be started from, given what `Deno.execPath()`
 * reported on `os`: on Linux, once the running binary was replaced (a
 * `herald update` of a release install), the kernel names the old file
 * `<path> (deleted)`; the new binary is at `<path>`.
 */
export function liveExecPath(reported: string, os: typeof Deno.build.os): string {
  return os === "linux" ? reported.replace(/ \(deleted\)$/, "") : reported;
}

/** The facts of this process. */
export function currentRuntimeFacts(): HeraldRuntimeFacts {
  return {
    execPath: liveExecPath(Deno.execPath(), Deno.build.os),
    mainModule: Deno.mainModule,
    standalone: Deno.build.standalone,
    sourceMain: sourceMain(),
  };
}

/**
 * The command that runs Herald the way this process runs: from source or
 * as a compiled binary. Child processes get it with Herald's arguments after
 * it.
 *
 * @example
 * ```ts
 * const [program, ...prefix] = heraldCommand();
 * await new Deno.Command(program, { args: [...prefix, "--version"] }).output();
 * ```
 */
export function heraldCommand(): string[] {
  return heraldCommandFor(currentRuntimeFacts());
}

/**
 * The folder of the Herald checkout holding the module at `moduleUrl` (this
 * module's own URL, `adapters/process/herald_command.ts`, two levels below
 * the checkout), as `facts` describe the process: undefined in a compiled
 * binary, whose modules sit in a read-only virtual folder with no deno.json,
 * .git or node_modules, and undefined for a module that is not a file.
 *
 * @example
 * ```ts
 * heraldCheckoutFor(facts, "file:///src/herald/adapters/process/herald_command.ts");
 * // "/src/herald" from source, undefined when facts describe a compiled binary
 * ```
 */
export function heraldCheckoutFor(
  facts: HeraldRuntimeFacts,
  moduleUrl: string | URL,
): string | undefined {
  if (heraldLaunchMode(facts) === "compiled") return undefined;
  const url = new URL("../../", moduleUrl);
  return url.protocol === "file:" ? fileURLToPath(url).replace(/[\\/]$/, "") : undefined;
}

/**
 * The folder of the Herald checkout this code runs from (the one holding
 * deno.json and cli/), or undefined in a compiled binary, which has none:
 * what a checkout provides (node_modules/.bin, installers/, .git) must come
 * from elsewhere there, and nothing may be written beside the code.
 */
export function heraldCheckout(): string | undefined {
  return heraldCheckoutFor(currentRuntimeFacts(), import.meta.url);
}

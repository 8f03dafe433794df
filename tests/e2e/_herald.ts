/**
 * Running the real `herald` program as a subprocess for end-to-end tests,
 * with its own home and a model pointed at the fake model server.
 *
 * @module
 */

import { join } from "node:path";
import { REPO_ROOT } from "../_helpers.ts";

/** What a run of the program produced. */
export interface HeraldRun {
  code: number;
  stdout: string;
  stderr: string;
}

/** Options of one run. */
export interface HeraldRunOptions {
  args: string[];
  home: string;
  cwd?: string;
  stdin?: string;
  env?: Record<string, string>;
  /** Start from `env` alone (plus `NO_COLOR` and `HERALD_HOME`), not this process's environment. */
  clearEnv?: boolean;
}

const MAIN = join(REPO_ROOT, "cli", "main.ts");

/** Runs `herald <args>` with `HERALD_HOME=home`, feeding `stdin` when given. */
export async function runHerald(options: HeraldRunOptions): Promise<HeraldRun> {
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", "--allow-all", "--quiet", MAIN, ...options.args],
    cwd: options.cwd ?? options.home,
    env: { NO_COLOR: "1", HERALD_HOME: options.home, ...options.env },
    clearEnv: options.clearEnv ?? false,
    stdin: "piped",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const writer = child.stdin.getWriter();
  if (options.stdin !== undefined) await writer.write(new TextEncoder().encode(options.stdin));
  await writer.close();
  const output = await child.output();
  const decode = (bytes: Uint8Array) => new TextDecoder().decode(bytes);
  return { code: output.code, stdout: decode(output.stdout), stderr: decode(output.stderr) };
}

/** Writes a config.yaml that points the default model at an OpenAI-compatible base URL. */
export async function configureModel(
  home: string,
  baseUrl: string,
  extra = "",
  provider = "custom",
): Promise<void> {
  await Deno.mkdir(home, { recursive: true });
  await Deno.writeTextFile(
    join(home, "config.yaml"),
    `model:\n  provider: ${provider}\n  base_url: ${baseUrl}\n  default: test-model\n${extra}`,
  );
}

/** A running `herald dashboard` process. */
export interface DashboardProcess extends AsyncDisposable {
  /** The URL its first line printed (with `#token=` on public binds). */
  url: URL;
  /** Its first line of output. */
  line: string;
  child: Deno.ChildProcess;
  /** Everything the process writes to stdout after the first line, until it exits. */
  restOfStdout(): Promise<string>;
}

/** Options of {@link startDashboardProcess}. */
export interface DashboardProcessOptions {
  /** `HERALD_HOME`. */
  home: string;
  /** Arguments before the command (`-p work`). */
  globalArgs?: string[];
  /** Arguments after `dashboard --no-open --port 0`. */
  dashboardArgs?: string[];
  env?: Record<string, string>;
  /** The working folder (default: the caller's). */
  cwd?: string;
  /** Where its stderr goes (default: piped and discarded on dispose). */
  stderr?: "piped" | "inherit";
  /** The program that is Herald (default: deno running this checkout's cli/main.ts). */
  program?: string[];
}

/** Starts `herald dashboard` on a free port and waits for its "listening on" line. */
export async function startDashboardProcess(
  options: DashboardProcessOptions,
): Promise<DashboardProcess> {
  const [program, ...prefix] = options.program ??
    [Deno.execPath(), "run", "--allow-all", "--quiet", MAIN];
  const child = new Deno.Command(program, {
    args: [
      ...prefix,
      ...(options.globalArgs ?? []),
      "dashboard",
      "--no-open",
      "--port",
      "0",
      ...(options.dashboardArgs ?? []),
    ],
    cwd: options.cwd,
    env: { HERALD_HOME: options.home, NO_COLOR: "1", ...options.env },
    stdin: "null",
    stdout: "piped",
    stderr: options.stderr ?? "piped",
  }).spawn();
  const reader = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  let text = "";
  while (!text.includes("\n")) {
    const { value, done } = await reader.read();
    if (done) break;
    text += value;
  }
  const line = text.split("\n")[0];
  const match = /listening on (\S+)/.exec(line);
  if (!match) {
    child.kill("SIGKILL");
    await child.status;
    throw new Error(`dashboard did not start: ${line}`);
  }
  return {
    url: new URL(match[1]),
    line,
    child,
    async restOfStdout() {
      let rest = text.slice(text.indexOf("\n") + 1);
      while (true) {
        const { value, done } = await reader.read();
        if (done) return rest;
        rest += value;
      }
    },
    async [Symbol.asyncDispose]() {
      try {
        child.kill("SIGTERM");
      } catch {
        // It has already exited.
      }
      await child.status;
      await reader.cancel().catch(() => {});
      if (options.stderr !== "inherit") await child.stderr.cancel().catch(() => {});
    },
  };
}

/**
 * A real `herald dashboard` process for the benches (bench/dashboard.ts and
 * bench/ui.ts): started from source on a free loopback port with its own
 * home, its URL read from the line it prints, its RSS read from /proc.
 *
 * @module
 */

import { join } from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = fileURLToPath(new URL("../", import.meta.url));

/** A running dashboard; disposing it stops the process. */
export interface DashboardProcess extends AsyncDisposable {
  child: Deno.ChildProcess;
  /** The base URL, `http://127.0.0.1:<port>/`. */
  url: URL;
  /** The process's resident set size now, in MB (VmRSS of /proc/<pid>/status). */
  rssMb(): Promise<number>;
}

/** Options of {@link startDashboardProcess}. */
export interface DashboardProcessOptions {
  /** `HERALD_HOME` of the process. */
  home: string;
  /** `HERALD_DASHBOARD_SESSION_TOKEN`; the dashboard makes one when absent. */
  token?: string;
  /** More environment (the parent's is inherited). */
  env?: Record<string, string>;
}

/**
 * Starts `deno run --allow-all cli/main.ts dashboard --no-open --port 0` and
 * resolves once it prints `listening on <url>`.
 *
 * @example
 * ```ts
 * await using dashboard = await startDashboardProcess({ home });
 * console.log(dashboard.url.href, await dashboard.rssMb());
 * ```
 */
export async function startDashboardProcess(
  options: DashboardProcessOptions,
): Promise<DashboardProcess> {
  const child = new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "--allow-all",
      join(ROOT, "cli/main.ts"),
      "dashboard",
      "--no-open",
      "--port",
      "0",
    ],
    cwd: ROOT,
    env: {
      HERALD_HOME: options.home,
      NO_COLOR: "1",
      ...(options.token ? { HERALD_DASHBOARD_SESSION_TOKEN: options.token } : {}),
      ...options.env,
    },
    stdout: "piped",
    stderr: "inherit",
    stdin: "null",
  }).spawn();
  const reader = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  let text = "";
  while (!text.includes("\n")) {
    const { value, done } = await reader.read();
    if (done) break;
    text += value;
  }
  // Keep draining stdout so the process never blocks on a full pipe.
  (async () => {
    while (!(await reader.read().catch(() => ({ done: true }))).done) {
      // Discard.
    }
  })();
  const stop = async () => {
    try {
      child.kill("SIGTERM");
    } catch {
      // Already gone.
    }
    await child.status;
  };
  const match = /listening on (\S+)/.exec(text);
  if (!match) {
    await stop();
    throw new Error(`herald dashboard did not start: ${JSON.stringify(text.split("\n")[0])}`);
  }
  const url = new URL(match[1]);
  url.hash = "";
  url.search = "";
  url.pathname = "/";
  return {
    child,
    url,
    rssMb: () => readRssMb(child.pid),
    [Symbol.asyncDispose]: stop,
  };
}

/** The resident set size of process `pid` in MB (VmRSS of /proc/<pid>/status). */
export async function readRssMb(pid: number): Promise<number> {
  const status = await Deno.readTextFile(`/proc/${pid}/status`);
  const match = /VmRSS:\s+(\d+) kB/.exec(status);
  if (!match) throw new Error(`/proc/${pid}/status has no VmRSS line`);
  return Number(match[1]) / 1024;
}

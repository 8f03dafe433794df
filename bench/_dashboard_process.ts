/**
 * A real `herald dashboard` process for the benches (bench/dashboard.ts and
 * bench/ui.ts): started from source on a free loopback port with its own
 * home, its URL read from the line it prints, its RSS read from /proc.
 *
 * @module
 */

import { fileURLToPath } from "node:url";
import { startDashboardProcess as startHerald } from "../tests/e2e/mod.ts";

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
 * Starts `herald dashboard --no-open --port 0` from source (the tests' own
 * starter, tests/e2e/_herald.ts) and resolves once it prints its URL.
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
  const dashboard = await startHerald({
    home: options.home,
    cwd: ROOT,
    env: {
      ...(options.token ? { HERALD_DASHBOARD_SESSION_TOKEN: options.token } : {}),
      ...options.env,
    },
    stderr: "inherit",
  });
  // Keep draining stdout so the process never blocks on a full pipe.
  dashboard.restOfStdout().catch(() => {});
  const url = new URL(dashboard.url);
  url.hash = "";
  url.search = "";
  url.pathname = "/";
  return {
    child: dashboard.child,
    url,
    rssMb: () => readRssMb(dashboard.child.pid),
    [Symbol.asyncDispose]: () => dashboard[Symbol.asyncDispose](),
  };
}

/** The first line `stream` carries (the port or URL a started server prints). */
export async function firstLine(stream: ReadableStream<Uint8Array>): Promise<string> {
  const reader = stream.pipeThrough(new TextDecoderStream()).getReader();
  let text = "";
  while (!text.includes("\n")) {
    const { value, done } = await reader.read();
    if (done) break;
    text += value;
  }
  reader.releaseLock();
  return text.split("\n")[0];
}

/** The resident set size of process `pid` in MB (VmRSS of /proc/<pid>/status). */
export async function readRssMb(pid: number): Promise<number> {
  const status = await Deno.readTextFile(`/proc/${pid}/status`);
  const match = /VmRSS:\s+(\d+) kB/.exec(status);
  if (!match) throw new Error(`/proc/${pid}/status has no VmRSS line`);
  return Number(match[1]) / 1024;
}

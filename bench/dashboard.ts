/**
 * Dashboard server figures: authenticated `GET /api/status` throughput
 * against a bare Hono JSON route (each in its own server process, loaded
 * by wrk when installed, else by a Deno fetch client), and the RSS of a real
 * `herald dashboard` process, idle and after its web app was served once.
 *
 * @module
 */

import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { UI_ASSETS, UI_PAGE } from "../server/ui_assets.gen.ts";
import { firstLine, startDashboardProcess } from "./_dashboard_process.ts";
import { embeddedAppSizes } from "./_ui_assets.ts";

const BENCH_TOKEN = "bench-token-0123456789abcdefghijklmnopqrstu";
const root = fileURLToPath(new URL("../", import.meta.url));

/** Throughput of one endpoint. */
export interface Throughput {
  label: string;
  /** The best round. */
  requestsPerSecond: number;
  /** Every round, in order. */
  runs: number[];
}

/** The dashboard figures. */
export interface DashboardBenchResult {
  tool: string;
  seconds: number;
  connections: number;
  bare: Throughput;
  status: Throughput;
  ratio: number;
  idleRssMb: number;
  /** RSS after /chat and its initial files were served once. */
  afterPageRssMb: number;
}

async function startServer(mode: "bare" | "herald", home: string) {
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", "--allow-all", join(root, "bench/fixtures/dashboard_server.ts"), mode, home],
    cwd: root,
    stdout: "piped",
    stderr: "inherit",
    stdin: "null",
  }).spawn();
  const port = Number(await firstLine(child.stdout));
  child.stdout.cancel().catch(() => {});
  return { child, port };
}

async function hasWrk(): Promise<boolean> {
  try {
    return (await new Deno.Command("wrk", { args: ["--version"], stdout: "null", stderr: "null" })
      .output())
      .code !== 127;
  } catch {
    return false;
  }
}

async function loadWithWrk(
  url: string,
  headers: Record<string, string>,
  seconds: number,
  connections: number,
) {
  const args = ["-t1", `-c${connections}`, `-d${seconds}s`];
  for (const [name, value] of Object.entries(headers)) args.push("-H", `${name}: ${value}`);
  const output = await new Deno.Command("wrk", {
    args: [...args, url],
    stdout: "piped",
    stderr: "piped",
  })
    .output();
  const text = new TextDecoder().decode(output.stdout);
  const match = /Requests\/sec:\s+([\d.]+)/.exec(text);
  if (!match) throw new Error(`wrk gave no figure: ${text}`);
  if (/Non-2xx/.test(text)) throw new Error(`wrk saw errors for ${url}: ${text}`);
  return Number(match[1]);
}

async function loadWithFetch(
  url: string,
  headers: Record<string, string>,
  seconds: number,
  connections: number,
) {
  const deadline = performance.now() + seconds * 1000;
  let count = 0;
  await Promise.all(Array.from({ length: connections }, async () => {
    while (performance.now() < deadline) {
      const response = await fetch(url, { headers });
      if (!response.ok) throw new Error(`${url} answered ${response.status}`);
      await response.arrayBuffer();
      count++;
    }
  }));
  return count / seconds;
}

/**
 * RSS of a real `herald dashboard` 3 s after it prints its URL, and again 3 s
 * after /chat and the files its page loads first were fetched once (the
 * embedded app is loaded on the first page request).
 */
async function dashboardRss(home: string): Promise<{ idleMb: number; afterPageMb: number }> {
  await using dashboard = await startDashboardProcess({ home });
  await new Promise((resolve) => setTimeout(resolve, 3000));
  const idleMb = await dashboard.rssMb();
  const { initial } = await embeddedAppSizes(UI_ASSETS, UI_PAGE);
  for (const path of ["/chat", ...initial.map((asset) => asset.path)]) {
    const response = await fetch(new URL(path, dashboard.url));
    if (!response.ok) throw new Error(`GET ${path} answered ${response.status}`);
    await response.arrayBuffer();
  }
  await new Promise((resolve) => setTimeout(resolve, 3000));
  return { idleMb, afterPageMb: await dashboard.rssMb() };
}

/**
 * Measures both servers with the same load (three alternating rounds, the best
 * of each), then the idle RSS.
 */
export async function benchDashboard(seconds = 8, connections = 50): Promise<DashboardBenchResult> {
  const home = await Deno.makeTempDir({ prefix: "herald-bench-" });
  const wrk = await hasWrk();
  const load = wrk ? loadWithWrk : loadWithFetch;
  try {
    const measure = async (
      mode: "bare" | "herald",
      path: string,
      headers: Record<string, string>,
    ) => {
      const { child, port } = await startServer(mode, home);
      try {
        const url = `http://127.0.0.1:${port}${path}`;
        await load(url, headers, 1, connections); // warm-up
        return await load(url, headers, seconds, connections);
      } finally {
        child.kill("SIGTERM");
        await child.status;
      }
    };
    // Three rounds, alternating, and the best of each: the load generator and the
    // server share the machine's cores, so a single run swings by 20% or more.
    const bareRuns: number[] = [];
    const statusRuns: number[] = [];
    for (let round = 0; round < 3; round++) {
      bareRuns.push(await measure("bare", "/json", {}));
      statusRuns.push(
        await measure("herald", "/api/status", { "X-Herald-Session-Token": BENCH_TOKEN }),
      );
    }
    const rss = await dashboardRss(home);
    const bare = Math.max(...bareRuns);
    const status = Math.max(...statusRuns);
    return {
      tool: wrk ? "wrk -t1" : "Deno fetch client",
      seconds,
      connections,
      bare: { label: "bare Hono JSON route", requestsPerSecond: bare, runs: bareRuns },
      status: {
        label: "authenticated GET /api/status",
        requestsPerSecond: status,
        runs: statusRuns,
      },
      ratio: status / bare,
      idleRssMb: rss.idleMb,
      afterPageRssMb: rss.afterPageMb,
    };
  } finally {
    await Deno.remove(home, { recursive: true });
  }
}

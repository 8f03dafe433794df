/**
 * Races of worker processes for the tests that prove a store safe across
 * processes: the test starts one `deno run` per label with
 * {@link raceWorkers}, each worker calls {@link startWorker} to read its
 * arguments and announce itself, and all of them are let go at once so their
 * writes overlap.
 *
 * A worker is run as
 * `deno run --allow-all <script> [before...] <target> <label> <count> <barrier-dir>`:
 * it writes `<barrier-dir>/ready-<label>`, waits for `<barrier-dir>/go`, then
 * handles `count` items on `target` (a database file, a profile home).
 *
 * @module
 */

import { REPO_ROOT } from "./_helpers.ts";

/** How long a worker waits for the go, and the parent for every worker to be ready. */
const WORKER_GO_TIMEOUT_MS = 30_000;
const WORKERS_READY_TIMEOUT_MS = 60_000;

/** What a race runs. */
export interface WorkerRace {
  /** The worker script's absolute path. */
  script: string;
  /** Arguments before the common ones (a mode, say). */
  before?: readonly string[];
  /** What every worker works on: a database file, a profile home. */
  target: string;
  /** One worker per label; each announces itself under its label. */
  labels: readonly string[];
  /** How many items each worker handles. */
  count: number;
  /** The folder the workers meet in; created here. */
  barrier: string;
}

function exists(path: string): Promise<boolean> {
  return Deno.stat(path).then(() => true, () => false);
}

/**
 * Starts one worker per label, waits until every one is ready (or one has
 * already ended), lets them all go at once and returns their outputs in the
 * order of the labels, for the test to check each exit code.
 *
 * @throws Error when the workers are not all ready within 60 s (they are
 * killed first).
 *
 * @example
 * ```ts
 * const results = await raceWorkers({ script, target: path, labels: ["a", "b"], count: 100, barrier });
 * results.forEach((result) => assert.equal(result.code, 0));
 * ```
 */
export async function raceWorkers(race: WorkerRace): Promise<Deno.CommandOutput[]> {
  await Deno.mkdir(race.barrier, { recursive: true });
  const ended = new Set<string>();
  const children = race.labels.map((label) => {
    const child = new Deno.Command(Deno.execPath(), {
      args: [
        "run",
        "--allow-all",
        race.script,
        ...race.before ?? [],
        race.target,
        label,
        String(race.count),
        race.barrier,
      ],
      cwd: REPO_ROOT,
      stdin: "null",
      stdout: "piped",
      stderr: "piped",
    }).spawn();
    child.status.then(() => ended.add(label));
    return child;
  });
  let started = false;
  try {
    const deadline = Date.now() + WORKERS_READY_TIMEOUT_MS;
    while (!started) {
      const ready = await Promise.all(
        race.labels.map((label) => exists(`${race.barrier}/ready-${label}`)),
      );
      started = ready.every(Boolean) || ended.size > 0;
      if (!started && Date.now() > deadline) break;
      if (!started) await new Promise((resolve) => setTimeout(resolve, 10));
    }
  } finally {
    // Released even when one failed to start, so no worker is left waiting.
    await Deno.writeTextFile(`${race.barrier}/go`, "");
  }
  if (!started) {
    for (const child of children) child.kill();
    await Promise.all(children.map((child) => child.output()));
    throw new Error(`the workers did not start within ${WORKERS_READY_TIMEOUT_MS / 1000} s`);
  }
  return await Promise.all(children.map((child) => child.output()));
}

/** A worker's own arguments. */
export interface WorkerArgs {
  target: string;
  label: string;
  count: number;
  barrier: string;
}

/**
 * In a worker: reads `<target> <label> <count> <barrier-dir>` from `args`
 * (on a mistake prints `usage` and exits 2), announces itself ready and
 * waits for the go.
 *
 * @throws Error when the go does not come within 30 s.
 *
 * @example
 * ```ts
 * const { target, label, count } = await startWorker("usage: _worker.ts <db> <label> <count> <barrier-dir>");
 * ```
 */
export async function startWorker(
  usage: string,
  args: readonly string[] = Deno.args,
): Promise<WorkerArgs> {
  const [target, label, countText, barrier] = args;
  const count = Number(countText);
  if (!target || !label || !Number.isInteger(count) || !barrier) {
    console.error(usage);
    Deno.exit(2);
  }
  await Deno.writeTextFile(`${barrier}/ready-${label}`, String(Deno.pid));
  const deadline = Date.now() + WORKER_GO_TIMEOUT_MS;
  while (!await exists(`${barrier}/go`)) {
    if (Date.now() > deadline) {
      throw new Error(`worker ${label}: no go signal within ${WORKER_GO_TIMEOUT_MS / 1000} s`);
    }
    await new Promise((resolve) => setTimeout(resolve, 1));
  }
  return { target, label, count, barrier };
}

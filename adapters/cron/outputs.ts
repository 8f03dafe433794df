/**
 * A profile's saved job runs, `cron/output/<job>/<timestamp>.md` (0600 in
 * 0700 folders), behind core's {@link JobOutputs}, and the last tick in
 * `cron/ticker.json`. Each file is a small header (one JSON value per
 * line, between `---` lines) and the output as Markdown, so it reads well
 * in an editor and lists without parsing the output. A job keeps its
 * newest {@link KEPT_RUNS} runs.
 *
 * @module
 */

import { join } from "node:path";
import { HeraldError } from "../../core/errors.ts";
import type {
  CronFiles,
  JobOutputs,
  JobRunEntry,
  RunStatus,
  SavedRun,
  TickerMark,
} from "../../core/schedules/mod.ts";
import { writeFileAtomic } from "../fs/atomic.ts";
import { missing, readTextOrEmpty } from "../fs/read.ts";
import { openJobStore } from "./job_store.ts";

/** Runs kept per job; older ones are removed when a new one is saved. */
export const KEPT_RUNS = 100;
/** The folder of saved runs in `cron/`. */
export const OUTPUT_DIR = "output";

const FILE = /^\d{4}-\d\d-\d\dT\d\d-\d\d-\d\d\.\d{3}Z(?:-\d+)?\.md$/;
const JOB_ID = /^job_[a-z0-9]{8,}$/;
const STATUSES: readonly RunStatus[] = ["ok", "error", "silent", "skipped"];

function fileStem(at: number): string {
  return new Date(at).toISOString().replaceAll(":", "-");
}

function header(run: SavedRun): string {
  return [
    "---",
    `job: ${JSON.stringify(run.job_id)}`,
    `at: ${JSON.stringify(new Date(run.at).toISOString())}`,
    `planned_at: ${JSON.stringify(new Date(run.planned_at).toISOString())}`,
    `status: ${JSON.stringify(run.status)}`,
    `delivered: ${JSON.stringify(run.delivered)}`,
    `error: ${JSON.stringify(run.error)}`,
    "---",
    "",
    "",
  ].join("\n");
}

function notARun(jobId: string, file: string): HeraldError {
  return new HeraldError(
    "run_not_found",
    "not_found",
    `Job ${jobId} has no saved run "${file}" (herald cron show ${jobId} lists its runs)`,
    { details: { job: jobId, file } },
  );
}

/** The run saved in `text` (file `file` of job `jobId`). */
function parseRun(jobId: string, file: string, text: string): SavedRun {
  const lines = text.split("\n");
  if (lines[0] !== "---") throw notARun(jobId, file);
  const end = lines.indexOf("---", 1);
  if (end < 0) throw notARun(jobId, file);
  const fields = new Map<string, unknown>();
  for (const line of lines.slice(1, end)) {
    const colon = line.indexOf(": ");
    if (colon < 0) continue;
    try {
      fields.set(line.slice(0, colon), JSON.parse(line.slice(colon + 2)));
    } catch {
      throw notARun(jobId, file);
    }
  }
  const text_ = (key: string) =>
    typeof fields.get(key) === "string" ? fields.get(key) as string : "";
  const status = text_("status") as RunStatus;
  const error = fields.get("error");
  return {
    job_id: jobId,
    at: Date.parse(text_("at")) || 0,
    planned_at: Date.parse(text_("planned_at")) || 0,
    status: STATUSES.includes(status) ? status : "error",
    delivered: text_("delivered"),
    error: typeof error === "string" ? error : null,
    // A blank line parts the header from the output.
    output: lines.slice(lines[end + 1] === "" ? end + 2 : end + 1).join("\n").replace(/\n$/, ""),
  };
}

async function runFiles(dir: string): Promise<string[]> {
  const names: string[] = [];
  try {
    for await (const entry of Deno.readDir(dir)) {
      if (entry.isFile && FILE.test(entry.name)) names.push(entry.name);
    }
  } catch (error) {
    if (missing(error)) return [];
    throw error;
  }
  return names.sort(newestFirst);
}

/** Orders run files newest first; runs saved in the same millisecond (`-1`, `-2`) by their number. */
function newestFirst(a: string, b: string): number {
  const [stemA, countA] = fileOrder(a);
  const [stemB, countB] = fileOrder(b);
  return stemA === stemB ? countB - countA : stemA < stemB ? 1 : -1;
}

function fileOrder(name: string): [string, number] {
  const match = /^(.*Z)(?:-(\d+))?\.md$/.exec(name)!;
  return [match[1], Number(match[2] ?? 0)];
}

/** The saved runs under `cronDir` (the profile's `cron/` folder). */
export function openJobOutputs(cronDir: string): JobOutputs {
  const jobDir = (jobId: string) => {
    if (!JOB_ID.test(jobId)) throw notARun(jobId, "");
    return join(cronDir, OUTPUT_DIR, jobId);
  };
  const read = async (jobId: string, file: string): Promise<SavedRun> => {
    if (!FILE.test(file)) throw notARun(jobId, file);
    const text = await readTextOrEmpty(join(jobDir(jobId), file));
    if (text === "") throw notARun(jobId, file);
    return parseRun(jobId, file, text);
  };
  return {
    async save(run) {
      const dir = jobDir(run.job_id);
      await Deno.mkdir(dir, { recursive: true, mode: 0o700 });
      const existing = new Set(await runFiles(dir));
      let name = `${fileStem(run.at)}.md`;
      for (let n = 1; existing.has(name); n++) name = `${fileStem(run.at)}-${n}.md`;
      const path = join(dir, name);
      await writeFileAtomic(path, header(run) + run.output + "\n", { mode: 0o600 });
      const all = await runFiles(dir);
      for (const old of all.slice(KEPT_RUNS)) {
        await Deno.remove(join(dir, old)).catch((error) => {
          if (!missing(error)) throw error;
        });
      }
      return path;
    },
    async list(jobId, limit = 20) {
      const dir = jobDir(jobId);
      const entries: JobRunEntry[] = [];
      for (const file of (await runFiles(dir)).slice(0, Math.max(0, limit))) {
        let run: SavedRun;
        try {
          run = await read(jobId, file);
        } catch {
          continue; // Removed meanwhile, or not a run file: not listed.
        }
        entries.push({
          job_id: jobId,
          file,
          at: run.at,
          planned_at: run.planned_at,
          status: run.status,
          delivered: run.delivered,
          error: run.error,
          bytes: new TextEncoder().encode(run.output).length,
        });
      }
      return entries;
    },
    read,
    async removeAll(jobId) {
      await Deno.remove(jobDir(jobId), { recursive: true }).catch((error) => {
        if (!missing(error)) throw error;
      });
    },
  };
}

const TICKER_FILE = "ticker.json";

/** The profile's `cron/` folder as core's {@link CronFiles}. */
export function openCronFiles(cronDir: string): CronFiles {
  const tickerPath = join(cronDir, TICKER_FILE);
  return {
    jobs: openJobStore(cronDir),
    outputs: openJobOutputs(cronDir),
    async readTicker(): Promise<TickerMark | null> {
      const text = await readTextOrEmpty(tickerPath);
      try {
        const value = JSON.parse(text) as Partial<TickerMark>;
        if (typeof value.by !== "string" || typeof value.at !== "number") return null;
        return {
          by: value.by,
          at: value.at,
          pid: typeof value.pid === "number" ? value.pid : null,
        };
      } catch {
        return null;
      }
    },
    async writeTicker(mark) {
      await Deno.mkdir(cronDir, { recursive: true, mode: 0o700 });
      await writeFileAtomic(tickerPath, JSON.stringify(mark) + "\n", { mode: 0o600 });
    },
  };
}

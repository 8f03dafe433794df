/**
 * A profile's scheduled jobs in `cron/jobs.json`, behind core's
 * {@link JobStore}. Every change reads, changes and writes under the file's
 * lock (adapters/fs/file_lock.ts, which also holds across processes), so
 * the gateway's ticker and a `herald cron` command never lose each other's
 * changes. A file that is not a job list is never overwritten: every call
 * fails naming it.
 *
 * The ticker changes a few jobs a minute, each twice (claimed, then its run
 * recorded), and a list can hold thousands of jobs: rewriting megabytes for
 * every change would make a tick take seconds. So:
 *
 * - A change to one job (`update`) is one JSON line appended to
 *   `cron/jobs.journal` and flushed. `jobs.json` is rewritten atomically
 *   (0600), with the journal folded in, when a job is added or removed and
 *   when the journal has grown past half the list (at least
 *   {@link JOURNAL_MIN_BYTES}); the journal is then removed. Its first line
 *   names the generation of the `jobs.json` it continues, so a journal left
 *   behind by a crash between those two steps is ignored, never replayed
 *   over a newer list. A `jobs.json` written before there were journals
 *   (it names no generation) is rewritten on its first change.
 * - Reading keeps the parsed list in memory per file, keyed by `jobs.json`'s
 *   identity (device, inode, size, mtime, ctime: an atomic write renames a
 *   new inode in, so any write changes it), and reads only the lines the
 *   journal gained since. A write by another process is always seen.
 *
 * The records handed out are frozen (shared by every caller of this
 * process); `list()` returns a fresh array, `update()` changes a copy.
 *
 * @module
 */

import { join } from "node:path";
import { HeraldError } from "../../core/errors.ts";
import { JobRecord, type JobStore } from "../../core/schedules/mod.ts";
import { writeFileAtomic } from "../fs/atomic.ts";
import { withFileLock } from "../fs/file_lock.ts";
import { missing, readTextOrEmpty } from "../fs/read.ts";

/** The list's file in the profile's `cron/` folder. */
export const JOBS_FILE = "jobs.json";
/** The changes made since `jobs.json` was last written, one JSON line each. */
export const JOURNAL_FILE = "jobs.journal";
/** The journal is folded into `jobs.json` past half the list's size, and never below this. */
export const JOURNAL_MIN_BYTES = 64 * 1024;
/** Lists up to this many jobs are written indented; longer ones one job per line. */
const INDENTED_UP_TO = 200;

/** The job store of the profile whose `cron/` folder is `cronDir`, with its path. */
export interface FileJobStore extends JobStore {
  readonly path: string;
}

function unreadable(path: string, why: string): HeraldError {
  return new HeraldError(
    "jobs_file_invalid",
    "state",
    `${path} is not a job list (${why}); it was left as it is: fix or move it, and the jobs ` +
      "start over",
    { details: { file: path } },
  );
}

function notFound(id: string): HeraldError {
  return new HeraldError(
    "job_not_found",
    "not_found",
    `No job "${id}" (herald cron list shows the jobs)`,
    { details: { id } },
  );
}

/** The list as this process last read it: `jobs.json`, then the journal's lines up to `offset`. */
interface Loaded {
  /** The identity of `jobs.json` when it was read ("" when there was none). */
  snapshot: string;
  snapshotBytes: number;
  /** The generation `jobs.json` names (null in a file written before there were journals). */
  generation: string | null;
  /** The device and inode of the journal read, or null when there was none. */
  journal: string | null;
  /** The journal belongs to an older generation of `jobs.json`: it is ignored. */
  stale: boolean;
  /** Bytes of the journal applied (whole lines). */
  offset: number;
  /** The journal's size when read (more than `offset`: a line cut short by a crash). */
  journalBytes: number;
  /** Frozen records, in creation order. */
  jobs: Map<string, JobRecord>;
}

/** The lists this process read, by `jobs.json` path. */
const loadedLists = new Map<string, Loaded>();
/** Per path, the work on its cached list, one at a time. */
const queues = new Map<string, Promise<unknown>>();

/** Runs `work` after every earlier `exclusive` work on `path` in this process. */
function exclusive<T>(path: string, work: () => Promise<T>): Promise<T> {
  const run = (queues.get(path) ?? Promise.resolve()).then(work, work);
  const settled = run.then(() => {}, () => {});
  queues.set(path, settled);
  void settled.then(() => {
    if (queues.get(path) === settled) queues.delete(path);
  });
  return run;
}

/** `value` and everything in it, frozen. */
function frozen<T>(value: T): T {
  if (value !== null && typeof value === "object" && !Object.isFrozen(value)) {
    for (const part of Object.values(value)) frozen(part);
    Object.freeze(value);
  }
  return value;
}

function identity(info: Deno.FileInfo | null): string {
  if (info === null) return "";
  return [info.dev, info.ino, info.size, info.mtime?.getTime(), info.ctime?.getTime()].join(":");
}

async function statOrNull(path: string): Promise<Deno.FileInfo | null> {
  try {
    return await Deno.stat(path);
  } catch (error) {
    if (missing(error)) return null;
    throw error;
  }
}

function record(path: string, value: unknown, where: string): JobRecord {
  const parsed = JobRecord.safeParse(value);
  if (!parsed.success) {
    throw unreadable(path, `${where}: ${parsed.error.issues[0]?.message ?? "invalid"}`);
  }
  return frozen(parsed.data);
}

/** The jobs and generation in `text` (the content of `jobs.json` at `path`). */
function parseList(path: string, text: string) {
  const jobs = new Map<string, JobRecord>();
  if (text.trim() === "") return { generation: null, jobs };
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw unreadable(path, "not JSON");
  }
  const list = (value as { jobs?: unknown })?.jobs;
  if (!Array.isArray(list)) throw unreadable(path, "no jobs list");
  list.forEach((each, index) => {
    const job = record(path, each, `job ${index + 1}`);
    jobs.set(job.id, job);
  });
  const generation = (value as { generation?: unknown }).generation;
  return { generation: typeof generation === "string" ? generation : null, jobs };
}

/** The text of `jobs.json` holding `jobs`, generation `generation`. */
function listText(generation: string, jobs: readonly JobRecord[]): string {
  if (jobs.length <= INDENTED_UP_TO) {
    return JSON.stringify({ version: 1, generation, jobs }, null, 2) + "\n";
  }
  return `{"version":1,"generation":${JSON.stringify(generation)},"jobs":[\n` +
    jobs.map((job) => JSON.stringify(job)).join(",\n") + "\n]}\n";
}

/** A journal line. */
type JournalLine = { journal: 1; generation: string } | { put: unknown };

const NEWLINE = 10;
const encoder = new TextEncoder();

/**
 * Applies the journal's lines that `loaded` has not seen. False when the
 * list must be read again from `jobs.json` (the journal was replaced or cut).
 */
async function readJournal(path: string, loaded: Loaded): Promise<boolean> {
  const gone = () => {
    if (loaded.journal !== null && !loaded.stale && loaded.offset > 0) return false;
    Object.assign(loaded, { journal: null, stale: false, offset: 0, journalBytes: 0 });
    return true;
  };
  // Most reads find the journal as it was: one stat.
  const seen = await statOrNull(path);
  if (seen === null) return gone();
  if (`${seen.dev}:${seen.ino}` === loaded.journal && seen.size === loaded.journalBytes) {
    return true;
  }
  let file: Deno.FsFile;
  try {
    file = await Deno.open(path, { read: true });
  } catch (error) {
    if (!missing(error)) throw error;
    return gone();
  }
  try {
    const info = await file.stat();
    const journal = `${info.dev}:${info.ino}`;
    if (loaded.journal !== journal) {
      if (loaded.journal !== null && !loaded.stale && loaded.offset > 0) return false;
      Object.assign(loaded, { journal, stale: false, offset: 0, journalBytes: 0 });
    }
    if (loaded.stale) return true;
    if (info.size < loaded.offset) return false;
    const bytes = new Uint8Array(info.size - loaded.offset);
    await file.seek(loaded.offset, Deno.SeekMode.Start);
    let read = 0;
    while (read < bytes.length) {
      const count = await file.read(bytes.subarray(read));
      if (count === null) break;
      read += count;
    }
    loaded.journalBytes = loaded.offset + read;
    // Whole lines only: a line being written (or cut short by a crash) waits.
    const end = bytes.subarray(0, read).lastIndexOf(NEWLINE) + 1;
    const lines = new TextDecoder().decode(bytes.subarray(0, end)).split("\n").slice(0, -1);
    for (const text of lines) {
      const at = loaded.offset;
      loaded.offset += encoder.encode(text).length + 1;
      let line: JournalLine;
      try {
        line = JSON.parse(text);
      } catch {
        throw unreadable(path, `the line at byte ${at} is not JSON`);
      }
      if (typeof line !== "object" || line === null) {
        throw unreadable(path, `the line at byte ${at} is not a change`);
      }
      if (at === 0) {
        if (!("journal" in line)) throw unreadable(path, "its first line names no generation");
        if (line.generation !== loaded.generation) {
          loaded.stale = true; // Left behind when jobs.json was last written: ignored.
          return true;
        }
      } else if ("put" in line) {
        const job = record(path, line.put, `the line at byte ${at}`);
        loaded.jobs.set(job.id, job);
      } else {
        throw unreadable(path, `the line at byte ${at} is not a change`);
      }
    }
    return true;
  } finally {
    file.close();
  }
}

/** The files of one store. */
interface Files {
  list: string;
  journal: string;
}

/**
 * The list as it is now: from memory when `jobs.json` is unchanged, plus
 * the journal's new lines. `locked`: the caller holds the file's lock, so
 * nobody rewrites `jobs.json` meanwhile.
 */
async function current(files: Files, locked: boolean): Promise<Loaded> {
  for (let attempt = 1;; attempt++) {
    const info = await statOrNull(files.list);
    const before = identity(info);
    let loaded = loadedLists.get(files.list);
    if (loaded === undefined || loaded.snapshot !== before) {
      // Should the file change after the stat, the check below reads it again.
      const text = await readTextOrEmpty(files.list);
      loaded = {
        snapshot: before,
        snapshotBytes: info?.size ?? 0,
        ...parseList(files.list, text),
        journal: null,
        stale: false,
        offset: 0,
        journalBytes: 0,
      };
    }
    loadedLists.delete(files.list); // Until it is whole again.
    const whole = await readJournal(files.journal, loaded);
    // Written meanwhile (the journal folded in by another process): read again.
    if (whole && (locked || identity(await statOrNull(files.list)) === before)) {
      loadedLists.set(files.list, loaded);
      return loaded;
    }
    if (attempt >= 50) {
      throw new HeraldError(
        "jobs_file_busy",
        "unavailable",
        `${files.list} kept changing while it was read; try again`,
        { details: { file: files.list } },
      );
    }
  }
}

function newGeneration(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(8));
  return Array.from(bytes, (byte) => byte.toString(16).padStart(2, "0")).join("");
}

/** Writes `jobs` as the whole list (the journal folded in) and remembers it. */
async function writeList(files: Files, jobs: readonly JobRecord[]): Promise<void> {
  const generation = newGeneration();
  loadedLists.delete(files.list);
  await writeFileAtomic(files.list, listText(generation, jobs), { mode: 0o600 });
  await Deno.remove(files.journal).catch((error) => {
    if (!missing(error)) throw error;
  });
  const info = await Deno.stat(files.list);
  loadedLists.set(files.list, {
    snapshot: identity(info),
    snapshotBytes: info.size,
    generation,
    journal: null,
    stale: false,
    offset: 0,
    journalBytes: 0,
    jobs: new Map(jobs.map((job) => [job.id, frozen(job)])),
  });
}

async function appendAll(file: Deno.FsFile, bytes: Uint8Array): Promise<void> {
  let written = 0;
  while (written < bytes.length) written += await file.write(bytes.subarray(written));
}

/**
 * Records `changed` jobs in the journal (one flushed append), or folds the
 * journal into `jobs.json` when it is due.
 */
async function recordChanges(
  files: Files,
  loaded: Loaded,
  changed: readonly JobRecord[],
): Promise<void> {
  if (changed.length === 0) return;
  const line = encoder.encode(changed.map((job) => JSON.stringify({ put: job }) + "\n").join(""));
  const limit = Math.max(JOURNAL_MIN_BYTES, loaded.snapshotBytes / 2);
  if (loaded.generation === null || loaded.journalBytes + line.length > limit) {
    const jobs = new Map(loaded.jobs);
    for (const job of changed) jobs.set(job.id, job);
    await writeList(files, [...jobs.values()]);
    return;
  }
  if (loaded.journal === null || loaded.stale) {
    // This generation's first change starts its journal (replacing one left from an older one).
    const header = encoder.encode(
      JSON.stringify({ journal: 1, generation: loaded.generation }) + "\n",
    );
    const text = new Uint8Array(header.length + line.length);
    text.set(header);
    text.set(line, header.length);
    loadedLists.delete(files.list);
    await writeFileAtomic(files.journal, text, { mode: 0o600, forceMode: true });
    const info = await Deno.stat(files.journal);
    Object.assign(loaded, {
      journal: `${info.dev}:${info.ino}`,
      stale: false,
      offset: text.length,
      journalBytes: text.length,
    });
  } else {
    loadedLists.delete(files.list);
    // A line cut short by a crash goes first (only a lock holder writes here).
    if (loaded.journalBytes > loaded.offset) await Deno.truncate(files.journal, loaded.offset);
    const file = await Deno.open(files.journal, { append: true });
    try {
      await appendAll(file, line);
      await file.syncData();
    } finally {
      file.close();
    }
    loaded.offset += line.length;
    loaded.journalBytes = loaded.offset;
  }
  for (const job of changed) loaded.jobs.set(job.id, job);
  loadedLists.set(files.list, loaded);
}

/**
 * Opens the job store in `cronDir` (the profile's `cron/` folder; created
 * on the first write).
 *
 * @example
 * ```ts
 * const store = openJobStore(paths.cron);
 * await store.add(job);
 * await store.update(job.id, (current) => ({ ...current, state: "paused" }));
 * ```
 */
export function openJobStore(cronDir: string): FileJobStore {
  const files: Files = { list: join(cronDir, JOBS_FILE), journal: join(cronDir, JOURNAL_FILE) };
  const locked = async <T>(work: (loaded: Loaded) => Promise<T>) => {
    // The lock file lives beside jobs.json: the folder comes first.
    await Deno.mkdir(cronDir, { recursive: true, mode: 0o700 });
    return await withFileLock(
      files.list,
      () => exclusive(files.list, async () => await work(await current(files, true))),
    );
  };
  return {
    path: files.list,
    list: () => exclusive(files.list, async () => [...(await current(files, false)).jobs.values()]),
    add: (job) =>
      locked(async (loaded) => {
        if (loaded.jobs.has(job.id)) {
          throw new HeraldError("job_exists", "conflict", `A job "${job.id}" exists already`);
        }
        await writeList(files, [...loaded.jobs.values(), frozen(JobRecord.parse(job))]);
      }),
    update: (id, change) =>
      locked(async (loaded) => {
        const job = loaded.jobs.get(id);
        if (job === undefined) throw notFound(id);
        const next = JobRecord.parse(change(structuredClone(job)));
        if (next.id !== id) throw new TypeError("A job's id cannot change");
        await recordChanges(files, loaded, [frozen(structuredClone(next))]);
        return next;
      }),
    updateMany: (ids, change) =>
      locked(async (loaded) => {
        const changed: JobRecord[] = [];
        for (const id of new Set(ids)) {
          const job = loaded.jobs.get(id);
          if (job === undefined) continue;
          const next = JobRecord.parse(change(structuredClone(job)));
          if (next.id !== id) throw new TypeError("A job's id cannot change");
          changed.push(next);
        }
        await recordChanges(files, loaded, changed.map((job) => frozen(structuredClone(job))));
        return changed;
      }),
    remove: (id) =>
      locked(async (loaded) => {
        if (!loaded.jobs.has(id)) return false;
        await writeList(files, [...loaded.jobs.values()].filter((job) => job.id !== id));
        return true;
      }),
  };
}

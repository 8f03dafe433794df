/**
 * The checkpoint store on disk, one folder per working directory under the
 * profile home:
 *
 * ```
 * <home>/checkpoints/<key>/          key: 16 hex digits of SHA-256(absolute working directory)
 *   workdir.json                     {"workdir": "/abs/project"}, for people and tools
 *   records/<chk_id>.json            one checkpoint: its turn and, per file, before and after
 *   objects/<aa>/<sha256>            file contents by the SHA-256 of their bytes, shared
 * ```
 *
 * A content store of Herald's own rather than a shadow git repository:
 * it works where git is not installed (the standalone binaries, a bare
 * Windows machine), it never runs a program whose behaviour the user's
 * environment can bend (`GIT_DIR`, `GIT_WORK_TREE`, hooks, global config),
 * so the project's own `.git` is out of reach by construction, and it
 * keeps only the files a turn is about to change, not a scan of the whole
 * tree, so a large repository costs nothing per turn. Identical contents
 * are kept once, as git would.
 *
 * Writes are atomic (temp + rename) and every change to the store (taking
 * a file, noting an after state, deleting checkpoints and the contents no
 * longer needed) holds the store's cross-process lock, so two sessions in
 * the same folder never lose a record or a content another one needs.
 * Files over 10 MiB, and paths that are not regular files, are noted but
 * not kept. A record that does not parse is skipped.
 *
 * @module
 */

import { createHash } from "node:crypto";
import { dirname, join, resolve } from "node:path";
import type {
  CheckpointRecord,
  CheckpointStore,
  FileCopy,
  FileState,
  NewCheckpoint,
} from "../../core/agent/checkpoints.ts";
import { StoreError } from "../../core/errors.ts";
import { withFileLock, writeFileAtomic } from "../fs/mod.ts";
import { CheckpointRecordSchema } from "./_record.ts";

/** Files larger than this are noted in a checkpoint but not kept. */
export const MAX_CHECKPOINT_FILE_BYTES = 10 * 1024 * 1024;

/** Options of {@link openCheckpointStore}. */
export interface CheckpointStoreOptions {
  /** Largest file kept, in bytes (default {@link MAX_CHECKPOINT_FILE_BYTES}). */
  maxFileBytes?: number;
}

function sha256(data: string | Uint8Array): string {
  return createHash("sha256").update(data).digest("hex");
}

function missing(error: unknown): boolean {
  return error instanceof Deno.errors.NotFound || error instanceof Deno.errors.NotADirectory;
}

/** The folder under `root` that keeps the checkpoints of `workdir`. */
export function checkpointFolder(root: string, workdir: string): string {
  return join(root, sha256(resolve(workdir)).slice(0, 16));
}

/**
 * Opens the checkpoint store of `workdir` under `root` (the profile's
 * `checkpoints/` folder). Nothing is created until the first snapshot.
 *
 * @example
 * ```ts
 * const store = openCheckpointStore(`${home}/checkpoints`, Deno.cwd());
 * const checkpoints = new Checkpoints(store, { maxSnapshots: 20 });
 * ```
 */
export function openCheckpointStore(
  root: string,
  workdir: string,
  options: CheckpointStoreOptions = {},
): CheckpointStore {
  return new FileCheckpointStore(
    checkpointFolder(root, workdir),
    resolve(workdir),
    options.maxFileBytes ?? MAX_CHECKPOINT_FILE_BYTES,
  );
}

class FileCheckpointStore implements CheckpointStore {
  readonly workdir: string;
  readonly #dir: string;
  readonly #records: string;
  readonly #objects: string;
  readonly #maxFileBytes: number;
  /** The store's folders and `workdir.json`, made before the first change. */
  #ready: Promise<void> | undefined;

  constructor(dir: string, workdir: string, maxFileBytes: number) {
    this.workdir = workdir;
    this.#dir = dir;
    this.#records = join(dir, "records");
    this.#objects = join(dir, "objects");
    this.#maxFileBytes = maxFileBytes;
  }

  read(path: string): Promise<FileCopy> {
    return this.#copy(path, true);
  }

  snapshot(checkpoint: NewCheckpoint, path: string, copy: FileCopy): Promise<void> {
    return this.#locked(async () => {
      const record: CheckpointRecord = (await this.#read(checkpoint.id)) ??
        { ...checkpoint, files: [] };
      if (record.files.some((file) => file.path === path)) return;
      if (copy.state.kind === "file") {
        // read() hashed these bytes; a copy without them was not made by read().
        if (!copy.bytes) throw new TypeError(`The copy of ${path} holds no content`);
        await this.#keepObject(copy.state.hash, copy.bytes);
      }
      record.files.push({ path, before: copy.state });
      await this.#write(record);
    });
  }

  recordAfter(id: string, path: string, after?: FileState): Promise<void> {
    return this.#locked(async () => {
      const record = await this.#read(id);
      const file = record?.files.find((entry) => entry.path === path);
      if (!record || !file) return;
      file.after = after ?? (await this.#copy(path, false)).state;
      await this.#write(record);
    });
  }

  async inspect(path: string): Promise<FileState> {
    return (await this.#copy(path, false)).state;
  }

  async list(): Promise<CheckpointRecord[]> {
    const records: CheckpointRecord[] = [];
    for (const name of await this.#names(this.#records)) {
      if (!/^chk_[0-9a-z]+\.json$/.test(name)) continue;
      const record = await this.#read(name.slice(0, -".json".length));
      if (record) records.push(record);
    }
    return records.sort((a, b) =>
      a.createdAt - b.createdAt || a.messageId - b.messageId || (a.id < b.id ? -1 : 1)
    );
  }

  async put(path: string, state: FileState & { kind: "file" | "absent" }): Promise<void> {
    if (state.kind === "absent") {
      const info = await Deno.lstat(path).catch((error) => {
        if (missing(error)) return undefined;
        throw error;
      });
      if (info && !info.isDirectory) await Deno.remove(path);
      for (const dir of state.missingDirs ?? []) {
        await Deno.remove(dir).catch(() => {}); // only while empty
      }
      return;
    }
    const object = this.#objectPath(state.hash);
    const bytes = await Deno.readFile(object).catch(() => undefined);
    if (!bytes || sha256(bytes) !== state.hash) {
      throw new StoreError(object, "the checkpoint's copy of the file is missing or damaged");
    }
    let target = path;
    const info = await Deno.lstat(path).catch(() => undefined);
    if (info?.isSymlink) target = await Deno.realPath(path);
    await Deno.mkdir(dirname(target), { recursive: true });
    await writeFileAtomic(
      target,
      bytes,
      state.mode === undefined ? { mode: 0o644 } : { mode: state.mode, forceMode: true },
    );
  }

  remove(ids: readonly string[]): Promise<void> {
    if (ids.length === 0) return Promise.resolve();
    return this.#locked(async () => {
      for (const id of ids) {
        await Deno.remove(join(this.#records, `${id}.json`)).catch((error) => {
          if (!missing(error)) throw error;
        });
      }
      const needed = new Set<string>();
      for (const record of await this.list()) {
        for (const file of record.files) {
          if (file.before.kind === "file") needed.add(file.before.hash);
        }
      }
      for (const prefix of await this.#names(this.#objects)) {
        const folder = join(this.#objects, prefix);
        for (const name of await this.#names(folder)) {
          if (!needed.has(name)) await Deno.remove(join(folder, name)).catch(() => {});
        }
        await Deno.remove(folder).catch(() => {}); // only while empty
      }
    });
  }

  /** Runs `work` holding the store's lock, creating the store first (once). */
  async #locked<T>(work: () => Promise<T>): Promise<T> {
    this.#ready ??= this.#prepare().catch((error) => {
      this.#ready = undefined; // tried again by the next change
      throw error;
    });
    await this.#ready;
    return await withFileLock(join(this.#dir, "store"), work);
  }

  /** Creates the store's folders and its `workdir.json`. */
  async #prepare(): Promise<void> {
    await Deno.mkdir(this.#records, { recursive: true });
    const marker = join(this.#dir, "workdir.json");
    if (await Deno.lstat(marker).then(() => true, () => false)) return;
    // Another process writing it at the same time writes the same text.
    await writeFileAtomic(marker, `${JSON.stringify({ workdir: this.workdir })}\n`);
  }

  /**
   * What `path` holds now; with `full`, a missing file's missing folders
   * and a file's bytes too.
   */
  async #copy(path: string, full: boolean): Promise<FileCopy> {
    let info: Deno.FileInfo;
    try {
      info = await Deno.stat(path);
    } catch (error) {
      if (!missing(error)) throw error;
      const missingDirs = full ? await this.#missingDirs(path) : undefined;
      return { state: { kind: "absent", ...(missingDirs ? { missingDirs } : {}) } };
    }
    if (!info.isFile) return { state: { kind: "skipped", reason: "not a regular file" } };
    if (info.size > this.#maxFileBytes) {
      const mib = Math.round(this.#maxFileBytes / 1024 / 1024 * 10) / 10;
      return {
        state: { kind: "skipped", reason: `larger than ${mib} MiB when the checkpoint was taken` },
      };
    }
    const bytes = await Deno.readFile(path);
    const state: FileState = {
      kind: "file",
      hash: sha256(bytes),
      size: bytes.length,
      ...(info.mode === null ? {} : { mode: info.mode & 0o777 }),
    };
    return full ? { state, bytes } : { state };
  }

  /** The folders above `path` that do not exist, deepest first. */
  async #missingDirs(path: string): Promise<string[]> {
    const dirs: string[] = [];
    let dir = dirname(path);
    while (!(await Deno.stat(dir).then(() => true, () => false))) {
      dirs.push(dir);
      const parent = dirname(dir);
      if (parent === dir) break;
      dir = parent;
    }
    return dirs;
  }

  #objectPath(hash: string): string {
    return join(this.#objects, hash.slice(0, 2), hash);
  }

  async #keepObject(hash: string, bytes: Uint8Array): Promise<void> {
    const path = this.#objectPath(hash);
    if (await Deno.lstat(path).then(() => true, () => false)) return;
    await Deno.mkdir(dirname(path), { recursive: true });
    await writeFileAtomic(path, bytes, { mode: 0o600, forceMode: true });
  }

  async #read(id: string): Promise<CheckpointRecord | undefined> {
    let text: string;
    try {
      text = await Deno.readTextFile(join(this.#records, `${id}.json`));
    } catch (error) {
      if (missing(error)) return undefined;
      throw error;
    }
    try {
      const parsed = CheckpointRecordSchema.safeParse(JSON.parse(text));
      return parsed.success ? parsed.data : undefined;
    } catch {
      return undefined;
    }
  }

  async #write(record: CheckpointRecord): Promise<void> {
    await writeFileAtomic(
      join(this.#records, `${record.id}.json`),
      `${JSON.stringify(record, null, 2)}\n`,
    );
  }

  async #names(dir: string): Promise<string[]> {
    const names: string[] = [];
    try {
      for await (const entry of Deno.readDir(dir)) names.push(entry.name);
    } catch (error) {
      if (!missing(error)) throw error;
    }
    return names.sort();
  }
}

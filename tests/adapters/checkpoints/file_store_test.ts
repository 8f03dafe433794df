/**
 * The checkpoint store on disk: its layout, shared contents and their
 * clean-up, files it does not keep, records it cannot read, folder removal,
 * symbolic links and modes, damaged contents, and concurrent writers.
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import type { CheckpointStore, FileState, NewCheckpoint } from "../../../core/agent/checkpoints.ts";
import { StoreError } from "../../../core/errors.ts";
import { checkpointFolder, openCheckpointStore } from "../../../adapters/checkpoints/mod.ts";
import { tempDir } from "../../_helpers.ts";

function checkpoint(id: string, messageId = 1): NewCheckpoint {
  return { id, sessionId: "ses_a", messageId, label: id, createdAt: 1_000 + messageId };
}

/** Reads `path` and keeps it in checkpoint `cp`, as a turn does; returns the state kept. */
async function snap(store: CheckpointStore, cp: NewCheckpoint, path: string): Promise<FileState> {
  const copy = await store.read(path);
  await store.snapshot(cp, path, copy);
  return copy.state;
}

async function filesUnder(dir: string): Promise<string[]> {
  const found: string[] = [];
  const walk = async (path: string, prefix: string) => {
    for await (const entry of Deno.readDir(path)) {
      const name = prefix ? `${prefix}/${entry.name}` : entry.name;
      if (entry.isDirectory) await walk(join(path, entry.name), name);
      else found.push(name);
    }
  };
  await walk(dir, "").catch(() => {});
  return found.sort();
}

async function exists(path: string): Promise<boolean> {
  return await Deno.lstat(path).then(() => true, () => false);
}

Deno.test("the store keeps one folder per working directory and identical contents once", async () => {
  await using root = await tempDir();
  const work = join(root.path, "work");
  await Deno.mkdir(work);
  await Deno.writeTextFile(join(work, "a.txt"), "same");
  await Deno.writeTextFile(join(work, "b.txt"), "same");
  const checkpoints = join(root.path, "checkpoints");
  const store = openCheckpointStore(checkpoints, work);
  assert.equal(await exists(checkpoints), false, "nothing is made before the first snapshot");

  await snap(store, checkpoint("chk_one"), join(work, "a.txt"));
  await snap(store, checkpoint("chk_one"), join(work, "b.txt"));
  const folder = checkpointFolder(checkpoints, work);
  const files = await filesUnder(folder);
  assert.deepEqual(files.filter((name) => name.startsWith("objects/")).length, 1);
  assert.ok(files.includes("records/chk_one.json"));
  assert.deepEqual(JSON.parse(await Deno.readTextFile(join(folder, "workdir.json"))), {
    workdir: work,
  });
  assert.notEqual(checkpointFolder(checkpoints, join(root.path, "other")), folder);
});

Deno.test("removing checkpoints deletes the contents no remaining checkpoint needs", async () => {
  await using root = await tempDir();
  const store = openCheckpointStore(join(root.path, "checkpoints"), root.path);
  const a = join(root.path, "a.txt");
  const b = join(root.path, "b.txt");
  await Deno.writeTextFile(a, "shared");
  await Deno.writeTextFile(b, "only in the first");
  await snap(store, checkpoint("chk_one", 1), a);
  await snap(store, checkpoint("chk_one", 1), b);
  await snap(store, checkpoint("chk_two", 2), a);
  const objects = join(checkpointFolder(join(root.path, "checkpoints"), root.path), "objects");
  assert.equal((await filesUnder(objects)).length, 2);

  await store.remove(["chk_one"]);
  assert.deepEqual((await store.list()).map((record) => record.id), ["chk_two"]);
  const left = await filesUnder(objects);
  assert.equal(left.length, 1, "the shared content stays for chk_two");
  const before = (await store.list())[0].files[0].before as FileState & { kind: "file" };
  assert.ok(left[0].endsWith(before.hash));

  await store.remove(["chk_two"]);
  assert.deepEqual(await filesUnder(objects), []);
});

Deno.test("a file over the size limit and a folder are noted but not kept", async () => {
  await using root = await tempDir();
  const store = openCheckpointStore(join(root.path, "checkpoints"), root.path, {
    maxFileBytes: 8,
  });
  await Deno.writeTextFile(join(root.path, "big.txt"), "more than eight bytes");
  await Deno.mkdir(join(root.path, "folder"));
  const big = await snap(store, checkpoint("chk_one"), join(root.path, "big.txt"));
  assert.equal(big.kind, "skipped");
  assert.match(big.kind === "skipped" ? big.reason : "", /larger than/);
  const folder = await snap(store, checkpoint("chk_one"), join(root.path, "folder"));
  assert.deepEqual(folder, { kind: "skipped", reason: "not a regular file" });
});

Deno.test("a record that does not parse is skipped, not a crash", async () => {
  await using root = await tempDir();
  const store = openCheckpointStore(join(root.path, "checkpoints"), root.path);
  await snap(store, checkpoint("chk_good"), join(root.path, "none.txt"));
  const records = join(checkpointFolder(join(root.path, "checkpoints"), root.path), "records");
  await Deno.writeTextFile(join(records, "chk_bad.json"), "{ not json");
  await Deno.writeTextFile(join(records, "chk_odd.json"), JSON.stringify({ id: "chk_odd" }));
  assert.deepEqual((await store.list()).map((record) => record.id), ["chk_good"]);
});

Deno.test("putting back a missing file removes it and only the empty folders made for it", async () => {
  await using root = await tempDir();
  const store = openCheckpointStore(join(root.path, "checkpoints"), root.path);
  const path = join(root.path, "new", "deep", "file.txt");
  const before = await snap(store, checkpoint("chk_one"), path);
  assert.deepEqual(before, {
    kind: "absent",
    missingDirs: [join(root.path, "new", "deep"), join(root.path, "new")],
  });
  await Deno.mkdir(join(root.path, "new", "deep"), { recursive: true });
  await Deno.writeTextFile(path, "made by the agent");
  await Deno.writeTextFile(join(root.path, "new", "user.txt"), "made by the user");

  await store.put(path, before as FileState & { kind: "absent" });
  assert.equal(await exists(join(root.path, "new", "deep")), false);
  assert.equal(await exists(join(root.path, "new", "user.txt")), true, "a folder in use stays");
});

Deno.test("putting back a file writes through a symbolic link and restores the mode", async () => {
  await using root = await tempDir();
  const store = openCheckpointStore(join(root.path, "checkpoints"), root.path);
  const target = join(root.path, "target.sh");
  const link = join(root.path, "link.sh");
  await Deno.writeTextFile(target, "#!/bin/sh\necho before\n");
  await Deno.chmod(target, 0o750);
  await Deno.symlink(target, link);
  const before = await snap(store, checkpoint("chk_one"), link);
  assert.equal(before.kind === "file" && before.mode, 0o750);

  await Deno.writeTextFile(link, "echo after\n");
  await Deno.chmod(target, 0o600);
  await store.put(link, before as FileState & { kind: "file" });
  assert.ok((await Deno.lstat(link)).isSymlink, "the link is still a link");
  assert.equal(await Deno.readTextFile(target), "#!/bin/sh\necho before\n");
  assert.equal((await Deno.stat(target)).mode! & 0o777, 0o750);
});

Deno.test("a damaged kept content is refused with a store error", async () => {
  await using root = await tempDir();
  const store = openCheckpointStore(join(root.path, "checkpoints"), root.path);
  const path = join(root.path, "a.txt");
  await Deno.writeTextFile(path, "kept");
  const before = await snap(store, checkpoint("chk_one"), path) as FileState & { kind: "file" };
  const objects = join(checkpointFolder(join(root.path, "checkpoints"), root.path), "objects");
  const [object] = await filesUnder(objects);
  await Deno.writeTextFile(join(objects, object), "tampered");
  await Deno.writeTextFile(path, "changed");
  await assert.rejects(store.put(path, before), StoreError);
  assert.equal(await Deno.readTextFile(path), "changed");
});

Deno.test("two stores writing one checkpoint at once lose no file", async () => {
  await using root = await tempDir();
  const folder = join(root.path, "checkpoints");
  const first = openCheckpointStore(folder, root.path);
  const second = openCheckpointStore(folder, root.path);
  const paths = Array.from({ length: 12 }, (_, index) => join(root.path, `f${index}.txt`));
  for (const path of paths) await Deno.writeTextFile(path, path);
  await Promise.all(
    paths.map((path, index) => snap(index % 2 ? first : second, checkpoint("chk_shared"), path)),
  );
  await Promise.all(paths.map((path) => first.recordAfter("chk_shared", path)));
  const [record] = await second.list();
  assert.deepEqual(record.files.map((file) => file.path).sort(), [...paths].sort());
  assert.ok(record.files.every((file) => file.after?.kind === "file"));
});

/**
 * Bundle files written, moved and deleted under the bundle's lock: an
 * update looks the bundle up inside the lock (so it never re-creates one
 * that was just moved or deleted), a move never replaces another file and
 * undoes itself when the old file cannot be deleted.
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { BundleExistsError, BundleNotFoundError } from "../../../core/skills/mod.ts";
import { withFileLock } from "../../../adapters/fs/file_lock.ts";
import { deleteBundle, saveBundle, updateBundle } from "../../../adapters/skills/mod.ts";
import { tempDir } from "../../_helpers.ts";
import { writeTree } from "./_write.ts";

function names(dir: string): string[] {
  return [...Deno.readDirSync(dir)].map((entry) => entry.name).sort();
}

/**
 * Holds the lock of `path` until the returned `release` is called. The
 * holder runs in its own async context, so the caller can still start
 * work that waits on the same lock.
 */
async function holdLock(path: string): Promise<{ release: () => Promise<void> }> {
  let letGo!: () => void;
  const released = new Promise<void>((done) => letGo = done);
  let locked!: () => void;
  const taken = new Promise<void>((done) => locked = done);
  const holder = withFileLock(path, async () => {
    locked();
    await released;
  });
  await taken;
  return {
    release: async () => {
      letGo();
      await holder;
    },
  };
}

Deno.test("an update waiting on the bundle's lock finds it gone and re-creates nothing", async () => {
  await using home = await tempDir();
  await saveBundle(home.path, { name: "backend", skills: ["review"] });
  const dir = join(home.path, "skill-bundles");
  const lock = await holdLock(join(dir, "backend.yaml"));
  const edit = updateBundle(home.path, "backend", { name: "backend", skills: ["other"] });
  const refused = assert.rejects(edit, BundleNotFoundError);
  // Whoever holds the lock (a rename, a delete) removes the bundle before letting go.
  await new Promise((done) => setTimeout(done, 50));
  await Deno.remove(join(dir, "backend.yaml"));
  await lock.release();
  await refused;
  assert.deepEqual(names(dir), []);
});

Deno.test("a delete waits for the bundle's lock and deletes what the holder left", async () => {
  await using home = await tempDir();
  await saveBundle(home.path, { name: "backend", skills: ["review"] });
  const dir = join(home.path, "skill-bundles");
  const lock = await holdLock(join(dir, "backend.yaml"));
  const deleted = deleteBundle(home.path, "backend");
  await new Promise((done) => setTimeout(done, 50));
  await Deno.rename(join(dir, "backend.yaml"), join(dir, "backend.yml"));
  await lock.release();
  assert.equal(await deleted, join(dir, "backend.yml"));
  assert.deepEqual(names(dir), []);
});

Deno.test("a rename never replaces a file of the new name, not even a broken one", async () => {
  await using home = await tempDir();
  await writeTree(home.path, {
    "skill-bundles/old.yaml": "name: old\nskills: [review]\n",
    "skill-bundles/taken.yaml": "name: [broken\n",
  });
  const dir = join(home.path, "skill-bundles");
  await assert.rejects(
    updateBundle(home.path, "old", { name: "Taken", skills: ["x"] }),
    BundleExistsError,
  );
  assert.equal(await Deno.readTextFile(join(dir, "taken.yaml")), "name: [broken\n");
  assert.equal(await Deno.readTextFile(join(dir, "old.yaml")), "name: old\nskills: [review]\n");
  assert.deepEqual(names(dir), ["old.yaml", "taken.yaml"]);
});

Deno.test("a rename onto the name of the bundle's own file rewrites that file in place", async () => {
  await using home = await tempDir();
  await writeTree(home.path, { "skill-bundles/server.yaml": "name: backend\nskills: [review]\n" });
  const moved = await updateBundle(home.path, "backend", { name: "Server", skills: ["review"] });
  const dir = join(home.path, "skill-bundles");
  assert.deepEqual(moved, {
    slug: "server",
    file: join(dir, "server.yaml"),
    renamedFrom: "backend",
  });
  assert.match(await Deno.readTextFile(join(dir, "server.yaml")), /^name: Server$/m);
  assert.deepEqual(names(dir), ["server.yaml"]);
});

Deno.test("a rename whose old file cannot be deleted removes the new file again", async () => {
  await using home = await tempDir();
  await saveBundle(home.path, { name: "backend", skills: ["review"] });
  const dir = join(home.path, "skill-bundles");
  const old = join(dir, "backend.yaml");
  const before = await Deno.readTextFile(old);
  const remove = Deno.remove;
  // The one failure the file system here cannot be made to give on demand (tests may run as root).
  Deno.remove = (path, options) =>
    String(path) === old
      ? Promise.reject(new Deno.errors.PermissionDenied(`cannot remove ${old}`))
      : remove(path, options);
  try {
    await assert.rejects(
      updateBundle(home.path, "backend", { name: "Server", skills: ["x"] }),
      Deno.errors.PermissionDenied,
    );
  } finally {
    Deno.remove = remove;
  }
  assert.deepEqual(names(dir), ["backend.yaml"]);
  assert.equal(await Deno.readTextFile(old), before);
});

Deno.test("updating or deleting in a profile without bundles is a not-found error that creates nothing", async () => {
  await using home = await tempDir();
  await assert.rejects(
    updateBundle(home.path, "ghost", { name: "ghost", skills: ["x"] }, "~/skill-bundles"),
    (error: unknown) => error instanceof BundleNotFoundError && error.dir === "~/skill-bundles",
  );
  await assert.rejects(deleteBundle(home.path, "ghost"), BundleNotFoundError);
  await assert.rejects(deleteBundle(home.path, "!!"), BundleNotFoundError);
  assert.deepEqual(names(home.path), []);
});

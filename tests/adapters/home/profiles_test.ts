/**
 * Profile homes on disk: staging on create, hidden folders, deletion.
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import {
  createProfile,
  deleteProfile,
  listProfiles,
  profilePaths,
  readProfileMeta,
  updateProfileMeta,
  writeActiveProfile,
} from "../../../adapters/home/mod.ts";
import { tempDir } from "../../_helpers.ts";

function names(dir: string): string[] {
  return [...Deno.readDirSync(dir)].map((entry) => entry.name).sort();
}

Deno.test("a clone that fails part-way leaves neither the profile nor its staging folder", async () => {
  await using home = await tempDir();
  const notAHome = join(home.path, "file");
  await Deno.writeTextFile(notAHome, "x");
  const from = { ...profilePaths(home.path, "other"), home: notAHome };
  await assert.rejects(() => createProfile(home.path, "broken", { clone: { from, mode: "all" } }));
  assert.deepEqual(names(join(home.path, "profiles")), []);
  assert.deepEqual(await listProfiles(home.path), ["default"]);
});

Deno.test("listing skips hidden staging folders and anything that is not a profile name", async () => {
  await using home = await tempDir();
  await createProfile(home.path, "work", { bundledSkills: false });
  await Deno.mkdir(join(home.path, "profiles", ".work2.creating-abc"));
  await Deno.mkdir(join(home.path, "profiles", "Not A Name"));
  await Deno.writeTextFile(join(home.path, "profiles", "file"), "");
  assert.deepEqual(await listProfiles(home.path), ["default", "work"]);
});

Deno.test("deleting a profile removes its home and clears only a sticky default naming it", async () => {
  await using home = await tempDir();
  await createProfile(home.path, "a", { bundledSkills: false });
  await createProfile(home.path, "b", { bundledSkills: false });
  await writeActiveProfile(home.path, "b");
  assert.equal((await deleteProfile(home.path, "a")).clearedSticky, false);
  assert.equal(await Deno.readTextFile(join(home.path, "active_profile")), "b\n");
  assert.equal((await deleteProfile(home.path, "B")).clearedSticky, true);
  assert.deepEqual(names(join(home.path, "profiles")), []);
  assert.equal(names(home.path).includes("active_profile"), false);
});

Deno.test("profile.yaml writes are atomic replacements that keep unknown keys", async () => {
  await using home = await tempDir();
  const file = join(home.path, "profile.yaml");
  assert.deepEqual(await readProfileMeta(file), {
    meta: { description: "", description_auto: false },
  });
  await Deno.writeTextFile(file, "display_name: X\n");
  await updateProfileMeta(file, { description: "Hi.", description_auto: true });
  assert.deepEqual((await readProfileMeta(file)).meta, {
    description: "Hi.",
    description_auto: true,
  });
  assert.match(await Deno.readTextFile(file), /display_name: X/);
  assert.deepEqual(names(home.path), ["profile.yaml"]);
  await Deno.remove(file);
  await Deno.mkdir(file);
  const unreadable = await readProfileMeta(file);
  assert.equal(unreadable.meta.description, "");
  assert.match(unreadable.warning ?? "", /profile\.yaml: /);
});

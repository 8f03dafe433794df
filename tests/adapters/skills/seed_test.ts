import assert from "node:assert/strict";
import { join } from "node:path";
import {
  bundledSetHash,
  bundledSkillsDir,
  createSkillCatalog,
  hashSkillDir,
  listBundledSkills,
  OPT_OUT_MARKER,
  readManifest,
  readSeededSet,
  removeUnmodifiedBundledSkills,
  seedBundledSkills,
  seedSkillsFrom,
  syncBundledSkills,
  trackedSkills,
} from "../../../adapters/skills/mod.ts";
import { parseSkill } from "../../../core/skills/mod.ts";
import { tempDir } from "../../_helpers.ts";
import { exists, skillMd, writeTree } from "./_write.ts";

/** A bundled set of three skills in its own temp folder. */
async function bundledSet(root: string): Promise<void> {
  await writeTree(root, {
    "dev/alpha/SKILL.md": skillMd("alpha"),
    "dev/alpha/scripts/run.sh": "echo alpha\n",
    "dev/beta/SKILL.md": skillMd("beta"),
    "ops/gamma/SKILL.md": skillMd("gamma"),
  });
}

Deno.test("seeding copies new bundled skills and records their origin hashes", async () => {
  await using source = await tempDir();
  await using home = await tempDir();
  await bundledSet(source.path);
  const report = await seedSkillsFrom(home.path, source.path);
  assert.deepEqual(report.added, ["alpha", "beta", "gamma"]);
  assert.equal(report.optedOut, false);
  assert.equal(
    await Deno.readTextFile(join(home.path, "skills", "dev", "alpha", "scripts", "run.sh")),
    "echo alpha\n",
  );
  const manifest = await readManifest(home.path);
  assert.equal(manifest.get("alpha"), await hashSkillDir(join(source.path, "dev", "alpha")));
  assert.equal(manifest.size, 3);
  const again = await seedSkillsFrom(home.path, source.path);
  assert.deepEqual(again.unchanged, ["alpha", "beta", "gamma"]);
  assert.deepEqual(again.added, []);
});

Deno.test("seeding updates unmodified copies, keeps modified ones and never re-adds deleted ones", async () => {
  await using source = await tempDir();
  await using home = await tempDir();
  await bundledSet(source.path);
  await seedSkillsFrom(home.path, source.path);
  const local = (rel: string) => join(home.path, "skills", ...rel.split("/"));

  await Deno.writeTextFile(local("dev/beta/SKILL.md"), skillMd("beta", "My own changes."));
  await Deno.remove(local("ops/gamma"), { recursive: true });
  await writeTree(source.path, {
    "dev/alpha/SKILL.md": skillMd("alpha", "Version two."),
    "dev/beta/SKILL.md": skillMd("beta", "Version two."),
    "ops/gamma/SKILL.md": skillMd("gamma", "Version two."),
    "ops/delta/SKILL.md": skillMd("delta"),
  });

  const report = await seedSkillsFrom(home.path, source.path);
  assert.deepEqual(report.updated, ["alpha"]);
  assert.deepEqual(report.keptModified, ["beta"]);
  assert.deepEqual(report.skippedDeleted, ["gamma"]);
  assert.deepEqual(report.added, ["delta"]);
  assert.match(await Deno.readTextFile(local("dev/alpha/SKILL.md")), /Version two/);
  assert.equal(await Deno.readTextFile(local("dev/alpha/scripts/run.sh")), "echo alpha\n");
  assert.match(await Deno.readTextFile(local("dev/beta/SKILL.md")), /My own changes/);
  assert.ok(!(await exists(local("ops/gamma"))));
  const manifest = await readManifest(home.path);
  assert.equal(manifest.get("alpha"), await hashSkillDir(join(source.path, "dev", "alpha")));
  assert.notEqual(manifest.get("beta"), await hashSkillDir(local("dev/beta")));
  assert.ok(manifest.has("gamma"));
  const leftovers = [...Deno.readDirSync(local("dev"))].map((e) => e.name).sort();
  assert.deepEqual(leftovers, ["alpha", "beta"]);
});

Deno.test("a user's own skill of the same name is kept, with a note", async () => {
  await using source = await tempDir();
  await using home = await tempDir();
  await bundledSet(source.path);
  await writeTree(join(home.path, "skills"), { "mine/beta/SKILL.md": skillMd("beta", "Mine.") });
  const report = await seedSkillsFrom(home.path, source.path);
  assert.deepEqual(report.keptUserOwned, ["beta"]);
  assert.match(report.notes.join("\n"), /"beta".*yours was kept/);
  assert.ok(!(await exists(join(home.path, "skills", "dev", "beta"))));
  assert.ok(!(await readManifest(home.path)).has("beta"));
});

Deno.test("nothing is seeded while the opt-out marker exists", async () => {
  await using source = await tempDir();
  await using home = await tempDir();
  await bundledSet(source.path);
  await Deno.writeTextFile(join(home.path, OPT_OUT_MARKER), "");
  const report = await seedSkillsFrom(home.path, source.path);
  assert.equal(report.optedOut, true);
  assert.deepEqual(report.skippedOptedOut, ["alpha", "beta", "gamma"]);
  assert.deepEqual(report.added, []);
  assert.ok(!(await exists(join(home.path, "skills"))));
});

Deno.test("removing bundled skills deletes only unmodified tracked copies and forgets them", async () => {
  await using source = await tempDir();
  await using home = await tempDir();
  await bundledSet(source.path);
  await seedSkillsFrom(home.path, source.path);
  await writeTree(join(home.path, "skills"), {
    "dev/beta/SKILL.md": skillMd("beta", "Changed."),
    "own/mine/SKILL.md": skillMd("mine"),
  });
  const states = await trackedSkills(home.path, source.path);
  assert.deepEqual(states.map((s) => [s.name, s.state]), [
    ["alpha", "unmodified"],
    ["beta", "modified"],
    ["gamma", "unmodified"],
  ]);
  const removed = await removeUnmodifiedBundledSkills(
    home.path,
    ["alpha", "beta", "gamma"],
    source.path,
  );
  assert.deepEqual(removed, ["alpha", "gamma"]);
  assert.ok(!(await exists(join(home.path, "skills", "dev", "alpha"))));
  assert.ok(!(await exists(join(home.path, "skills", "ops"))));
  assert.ok(await exists(join(home.path, "skills", "dev", "beta", "SKILL.md")));
  assert.ok(await exists(join(home.path, "skills", "own", "mine", "SKILL.md")));
  assert.deepEqual([...(await readManifest(home.path)).keys()], ["beta"]);
  const reseeded = await seedSkillsFrom(home.path, source.path);
  assert.deepEqual(reseeded.added, ["alpha", "gamma"]);
  assert.deepEqual(reseeded.keptModified, ["beta"]);
});

Deno.test("the skill hash covers paths and bytes and ignores OS litter", async () => {
  await using a = await tempDir();
  await writeTree(a.path, { "SKILL.md": "x", "b/c.txt": "y" });
  const first = await hashSkillDir(a.path);
  assert.match(first, /^[0-9a-f]{64}$/);
  await Deno.writeTextFile(join(a.path, ".DS_Store"), "junk");
  assert.equal(await hashSkillDir(a.path), first);
  await Deno.rename(join(a.path, "b", "c.txt"), join(a.path, "b", "d.txt"));
  assert.notEqual(await hashSkillDir(a.path), first);
});

Deno.test("Herald ships the kanban worker and orchestrator skills among valid bundled skills", async () => {
  const bundled = await listBundledSkills();
  const names = bundled.map((s) => s.name);
  for (const name of ["kanban-worker", "kanban-orchestrator"]) assert.ok(names.includes(name));
  assert.ok(bundled.length >= 4 && bundled.length <= 6, names.join(", "));
  for (const skill of bundled) {
    const text = await Deno.readTextFile(join(skill.dir, "SKILL.md"));
    const parsed = parseSkill(text, {
      dir: skill.dir,
      file: join(skill.dir, "SKILL.md"),
      relDir: skill.relDir,
    });
    assert.ok(parsed.ok, skill.name);
    assert.equal(parsed.skill.slug, skill.name);
    assert.ok(parsed.skill.description.length > 20 && parsed.body.length > 1500, skill.name);
    assert.match(parsed.body, /## When to use/);
  }
  assert.match(bundledSkillsDir(), /adapters[\\/]skills[\\/]bundled[\\/]?$/);
});

Deno.test("seeding the real bundled set makes every bundled skill a slash command", async () => {
  await using home = await tempDir();
  const report = await seedBundledSkills(home.path);
  const snapshot = await createSkillCatalog(home.path).snapshot();
  assert.deepEqual(snapshot.skills.map((s) => s.slug).sort(), [...report.added].sort());
  assert.deepEqual(snapshot.warnings, []);
});

Deno.test("a skill that cannot be copied is reported and the others are still seeded", async () => {
  await using source = await tempDir();
  await using home = await tempDir();
  await bundledSet(source.path);
  await writeTree(home.path, { "skills/ops": "a file where the category folder should be" });
  const report = await seedSkillsFrom(home.path, source.path);
  assert.deepEqual(report.added, ["alpha", "beta"]);
  assert.deepEqual(report.failed, ["gamma"]);
  assert.match(report.notes.join("\n"), /Could not copy the bundled skill "gamma"/);
  assert.ok(!(await readManifest(home.path)).has("gamma"));
});

Deno.test("syncing seeds a set the profile has not seen, once, and again when the set changes", async () => {
  await using source = await tempDir();
  await using home = await tempDir();
  await bundledSet(source.path);
  const first = await syncBundledSkills(home.path, source.path);
  assert.deepEqual(first?.added, ["alpha", "beta", "gamma"]);
  assert.equal(await readSeededSet(home.path), await bundledSetHash(source.path));
  assert.equal(await syncBundledSkills(home.path, source.path), undefined, "up to date");

  await writeTree(source.path, { "dev/alpha/SKILL.md": skillMd("alpha", "Version two.") });
  const next = await syncBundledSkills(home.path, source.path);
  assert.deepEqual(next?.updated, ["alpha"]);
  assert.deepEqual(next?.unchanged, ["beta", "gamma"]);

  await Deno.writeTextFile(join(home.path, OPT_OUT_MARKER), "");
  await writeTree(source.path, { "dev/beta/SKILL.md": skillMd("beta", "Version two.") });
  assert.equal(await syncBundledSkills(home.path, source.path), undefined, "opted out");
});

import assert from "node:assert/strict";
import { join } from "node:path";
import {
  createSkillCatalog,
  createSkillTools,
  deleteBundle,
  loadBundles,
  saveBundle,
} from "../../../adapters/skills/mod.ts";
import type { CatalogWarning } from "../../../core/skills/mod.ts";
import { ToolRegistry } from "../../../core/tools/registry.ts";
import { tempDir } from "../../_helpers.ts";
import { toolContext } from "../tools/_context.ts";
import { exists, skillMd, writeTree } from "./_write.ts";

Deno.test("the catalog finds skills with and without a category and hides other platforms' skills", async () => {
  await using home = await tempDir();
  await writeTree(join(home.path, "skills"), {
    "solo/SKILL.md": skillMd("solo"),
    "dev/review/SKILL.md": skillMd("Review Helper"),
    "dev/review/references/list.md": "- item\n",
    "dev/notes.txt": "not a skill",
    "ops/mac-tool/SKILL.md": skillMd("mac-tool", "x", "platforms: [macos]\n"),
    ".archive/old/SKILL.md": skillMd("old"),
    ".hidden-skill/SKILL.md": skillMd("hidden"),
  });
  const snapshot = await createSkillCatalog(home.path, { platform: "linux" }).snapshot();
  assert.deepEqual(snapshot.skills.map((s) => [s.slug, s.category ?? null, s.relDir]), [
    ["review-helper", "dev", "dev/review"],
    ["solo", null, "solo"],
  ]);
  assert.deepEqual(snapshot.hidden.map((s) => s.slug), ["mac-tool"]);
  assert.deepEqual(snapshot.warnings, []);
  const onMac = await createSkillCatalog(home.path, { platform: "macos" }).snapshot();
  assert.ok(onMac.skills.some((s) => s.slug === "mac-tool"));

  const doc = await createSkillCatalog(home.path).read(snapshot.skills[0]);
  assert.equal(doc.body, "# Review Helper\n\nInstructions of Review Helper.\n");
  assert.deepEqual(doc.files, ["references/list.md"]);
});

Deno.test("a broken skill and a second skill of the same name are warnings, told once", async () => {
  await using home = await tempDir();
  await writeTree(join(home.path, "skills"), {
    "a/dup/SKILL.md": skillMd("dup"),
    "b/dup/SKILL.md": skillMd("dup"),
    "bad/SKILL.md": "---\nname: [oops\n---\n",
  });
  const told: CatalogWarning[] = [];
  const catalog = createSkillCatalog(home.path, { onWarning: (w) => told.push(w) });
  const first = await catalog.snapshot();
  await catalog.snapshot();
  assert.deepEqual(first.skills.map((s) => s.relDir), ["a/dup"]);
  assert.equal(told.length, 2);
  assert.ok(
    told.some((w) => w.file.endsWith(join("bad", "SKILL.md")) && /not valid YAML/.test(w.message)),
  );
  assert.ok(
    told.some((w) =>
      w.file.endsWith(join("b", "dup", "SKILL.md")) && /also called \/dup/.test(w.message)
    ),
  );
});

Deno.test("a broken bundle file is skipped with a warning naming it, and the good one loads", async () => {
  await using home = await tempDir();
  const dir = join(home.path, "skill-bundles");
  await writeTree(dir, {
    "good.yaml": "name: good\nskills: [a]\n",
    "broken.yaml": "name: broken\nskills: [a\n",
    "twin.yml": "name: Good\nskills: [b]\n",
    "notes.txt": "ignored",
  });
  const { bundles, warnings } = await loadBundles(dir);
  assert.deepEqual(bundles.map((b) => [b.slug, b.file]), [["good", join(dir, "good.yaml")]]);
  assert.deepEqual(warnings.map((w) => w.file), [join(dir, "broken.yaml"), join(dir, "twin.yml")]);
  assert.match(warnings[0].message, /bundle skipped: not valid YAML/);
  assert.match(warnings[1].message, /already defined by/);
  assert.deepEqual(await loadBundles(join(home.path, "nowhere")), { bundles: [], warnings: [] });
});

Deno.test("saving a bundle writes it atomically, refuses to overwrite without force, and deletes by name", async () => {
  await using home = await tempDir();
  const saved = await saveBundle(home.path, {
    name: "My Bundle",
    skills: ["a", " b ", "a", ""],
    instruction: "Line 1\nLine 2",
  });
  assert.equal(saved.slug, "my-bundle");
  assert.equal(saved.file, join(home.path, "skill-bundles", "my-bundle.yaml"));
  const { bundles } = await loadBundles(join(home.path, "skill-bundles"));
  assert.deepEqual(bundles[0].skills, ["a", "b"]);
  assert.equal(bundles[0].instruction, "Line 1\nLine 2");
  await assert.rejects(
    saveBundle(home.path, { name: "my_bundle", skills: ["c"] }),
    (error: Error & { code?: string }) =>
      error.code === "bundle_exists" && error.message.includes(saved.file),
  );
  const forced = await saveBundle(home.path, { name: "my_bundle", skills: ["c"] }, { force: true });
  assert.ok(forced.replaced);
  await assert.rejects(saveBundle(home.path, { name: "x", skills: [] }), /at least one skill/);
  await assert.rejects(saveBundle(home.path, { name: "%%", skills: ["a"] }), /letters or digits/);

  assert.equal(await deleteBundle(home.path, "MY_BUNDLE"), saved.file);
  assert.ok(!(await exists(saved.file)));
  await assert.rejects(
    deleteBundle(home.path, "backend", "~/.herald/skill-bundles"),
    (error: Error & { code?: string }) =>
      error.code === "bundle_not_found" &&
      error.message.startsWith('Bundle "backend" not found in ~/.herald/skill-bundles'),
  );
});

Deno.test("a broken bundle file can still be deleted by its name", async () => {
  await using home = await tempDir();
  await writeTree(join(home.path, "skill-bundles"), { "oops.yaml": "name: [\n" });
  await deleteBundle(home.path, "oops");
  assert.ok(!(await exists(join(home.path, "skill-bundles", "oops.yaml"))));
});

Deno.test("skills_list and skill_view show skills and their files to the model", async () => {
  await using home = await tempDir();
  await writeTree(join(home.path, "skills"), {
    "dev/review/SKILL.md": skillMd("review"),
    "dev/review/references/list.md": "- check tests\n",
    "solo/SKILL.md": skillMd("solo"),
    "ops/win/SKILL.md": skillMd("win", "x", "platforms: windows\n"),
  });
  const tools = new ToolRegistry(createSkillTools({ platform: "linux" }));
  const context = toolContext({ cwd: home.path, home: home.path });
  const call = async (name: string, args: unknown) =>
    await tools.execute({ id: "c", name, arguments: JSON.stringify(args) }, context);

  const listed = await call("skills_list", {});
  assert.ok(listed.ok);
  const list = listed.result as { skills: { slug: string; category?: string }[]; count: number };
  assert.deepEqual(list.skills.map((s) => s.slug), ["review", "solo"]);
  const dev = await call("skills_list", { category: "dev" });
  assert.ok(dev.ok && (dev.result as { count: number }).count === 1);

  const viewed = await call("skill_view", { name: "review" });
  assert.ok(viewed.ok);
  const view = viewed.result as { content: string; files: string[]; dir: string };
  assert.ok(view.content.startsWith("---\nname: review"));
  assert.deepEqual(view.files, ["references/list.md"]);
  assert.equal(view.dir, join(home.path, "skills", "dev", "review"));

  const file = await call("skill_view", { name: "review", file_path: "references/list.md" });
  assert.ok(file.ok);
  assert.equal((file.result as { content: string }).content, "- check tests\n");

  const missing = await call("skill_view", { name: "win" });
  assert.ok(!missing.ok && missing.code === "skill_not_found");
});

Deno.test("skill_view refuses paths that leave the skill folder, by dots, absolute path or link", async () => {
  await using home = await tempDir();
  await writeTree(home.path, {
    "skills/review/SKILL.md": skillMd("review"),
    "skills/other/SKILL.md": skillMd("other"),
    "secret.txt": "top secret",
  });
  await Deno.symlink(
    join(home.path, "secret.txt"),
    join(home.path, "skills", "review", "link.txt"),
  );
  const tools = new ToolRegistry(createSkillTools());
  const context = toolContext({ cwd: home.path, home: home.path });
  for (
    const filePath of [
      "../other/SKILL.md",
      "../../secret.txt",
      join(home.path, "secret.txt"),
      "link.txt",
      "a/../../x",
    ]
  ) {
    const outcome = await tools.execute(
      {
        id: "c",
        name: "skill_view",
        arguments: JSON.stringify({ name: "review", file_path: filePath }),
      },
      context,
    );
    assert.ok(!outcome.ok, filePath);
    assert.equal(outcome.code, "path_outside_skill", filePath);
    assert.ok(!outcome.content.includes("top secret"));
  }
  const absent = await tools.execute(
    {
      id: "c",
      name: "skill_view",
      arguments: JSON.stringify({ name: "review", file_path: "nope.md" }),
    },
    context,
  );
  assert.ok(!absent.ok && absent.code === "not_found");
});

/**
 * The skill use cases over a real profile home: listing (slash commands,
 * other platforms' skills, bundled origins, broken files), showing one, and
 * opting out of and back into the bundled skills Herald ships.
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { SkillNotFoundError } from "../../../core/skills/mod.ts";
import {
  listSkills,
  optInToBundledSkills,
  optOutOfBundledSkills,
  type OptOutPlan,
  showSkill,
} from "../../../core/usecases/skills.ts";
import { openSkillLibrary } from "../../../adapters/skills/mod.ts";
import { tempDir } from "../../_helpers.ts";
import { exists, skillMd, writeTree as write } from "../../adapters/skills/_write.ts";

const OTHER_OS = Deno.build.os === "windows" ? "linux" : "windows";

Deno.test("skills are listed by slug with their command, or a note saying why they have none", async () => {
  await using home = await tempDir();
  await write(home.path, {
    "skills/dev/review/SKILL.md": skillMd("review"),
    "skills/help/SKILL.md": skillMd("help"),
    "skills/backend/SKILL.md": skillMd("backend"),
    "skills/elsewhere/SKILL.md": skillMd("elsewhere", undefined, `platforms: [${OTHER_OS}]\n`),
    "skills/broken/SKILL.md": "---\nname: [\n---\n",
    "skill-bundles/backend.yaml": "skills: [review]\nname: backend\n",
  });
  const library = openSkillLibrary({ name: "default", home: home.path });
  const { skills, warnings } = await listSkills(library, { all: false });
  assert.deepEqual(skills.map((s) => [s.slug, s.command]), [
    ["backend", null],
    ["help", null],
    ["review", "/review"],
  ]);
  assert.match(skills[0].note!, /opens the bundle of the same name/);
  assert.match(skills[1].note!, /taken by a built-in command/);
  const review = skills[2];
  assert.deepEqual(review, {
    name: "review",
    slug: "review",
    description: "About review",
    category: "dev",
    version: null,
    platforms: null,
    path: "dev/review",
    dir: join(home.path, "skills", "dev", "review"),
    command: "/review",
    available: true,
    origin: "user",
    note: null,
  });
  assert.deepEqual(warnings.map((w) => w.file), [join(home.path, "skills", "broken", "SKILL.md")]);

  const all = await listSkills(library, { all: true });
  const elsewhere = all.skills.find((s) => s.slug === "elsewhere")!;
  assert.equal(elsewhere.available, false);
  assert.equal(elsewhere.command, null);
  assert.match(elsewhere.note!, /hidden here/);
});

Deno.test("a skill is shown with its instructions and files; an unknown one names the folder as shown", async () => {
  await using home = await tempDir();
  await write(home.path, {
    "skills/review/SKILL.md": skillMd("review", undefined, "version: 1.2.0\n"),
    "skills/review/checklist.md": "- tests\n",
    "skills/elsewhere/SKILL.md": skillMd("elsewhere", undefined, `platforms: [${OTHER_OS}]\n`),
  });
  const library = openSkillLibrary({ name: "default", home: home.path });
  const { skill } = await showSkill(library, "Review");
  assert.equal(skill.version, "1.2.0");
  assert.equal(skill.file, join(home.path, "skills", "review", "SKILL.md"));
  assert.deepEqual(skill.files, ["checklist.md"]);
  assert.match(skill.body, /Instructions of review\./);
  assert.equal(skill.metadata.version, "1.2.0");
  const hidden = (await showSkill(library, "elsewhere")).skill;
  assert.equal(hidden.available, false);
  assert.match(hidden.note!, /hidden here/);
  await assert.rejects(
    showSkill(library, "nothing", { showPath: (path) => path.replace(home.path, "~") }),
    (error: unknown) =>
      error instanceof SkillNotFoundError && error.kind === "not_found" &&
      error.message.startsWith('Skill "nothing" not found in ~/skills'),
  );
});

Deno.test("opting out asks before deleting unchanged bundled skills, keeps changed ones, and opting in re-seeds", async () => {
  await using home = await tempDir();
  const library = openSkillLibrary({ name: "default", home: home.path });
  const seeded = await optInToBundledSkills(library, { sync: true });
  assert.equal(seeded.was_opted_out, false);
  const bundled = seeded.seeded!.added;
  assert.ok(bundled.includes("code-review"), bundled.join(", "));

  const listed = await listSkills(library, { all: false });
  const review = listed.skills.find((s) => s.slug === "code-review")!;
  assert.equal(review.origin, "bundled");
  await Deno.writeTextFile(join(review.dir, "SKILL.md"), skillMd("code-review"));
  const changed = (await listSkills(library, { all: false })).skills
    .find((s) => s.slug === "code-review")!;
  assert.equal(changed.origin, "bundled-modified");

  const plans: OptOutPlan[] = [];
  const declined = await optOutOfBundledSkills(library, {
    remove: true,
    confirm: (plan) => {
      plans.push(plan);
      return Promise.resolve(false);
    },
  });
  assert.equal(declined, undefined);
  assert.deepEqual(plans[0].kept_modified, ["code-review"]);
  assert.deepEqual(
    plans[0].doomed.map((s) => s.name).sort(),
    bundled.filter((name) => name !== "code-review").sort(),
  );
  assert.equal(await exists(library.optOutMarker), false);
  assert.ok(await exists(plans[0].doomed[0].dir));

  const out = await optOutOfBundledSkills(library, {
    remove: true,
    confirm: () => Promise.resolve(true),
  });
  assert.deepEqual(out, {
    opted_out: true,
    was_opted_out: false,
    marker: join(home.path, ".no-bundled-skills"),
    removed: plans[0].doomed.map((s) => s.name),
    kept_modified: ["code-review"],
  });
  assert.equal(await exists(plans[0].doomed[0].dir), false);
  assert.ok(await exists(review.dir));
  assert.equal((await optOutOfBundledSkills(library))?.was_opted_out, true);

  const back = await optInToBundledSkills(library, { sync: true });
  assert.equal(back.was_opted_out, true);
  assert.deepEqual([...back.seeded!.added].sort(), [...out!.removed].sort());
  assert.deepEqual(back.seeded!.kept_modified, ["code-review"]);
  assert.equal(await exists(library.optOutMarker), false);
});

/**
 * The skill-bundle use cases over a real profile home: create (missing
 * skills, a name taken by a built-in command, replacing), list, show,
 * reload with a broken file, and delete.
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import {
  BundleExistsError,
  BundleInvalidError,
  BundleNotFoundError,
} from "../../../core/skills/mod.ts";
import {
  createBundle,
  deleteBundle,
  listBundles,
  NewBundle,
  reloadBundles,
  showBundle,
} from "../../../core/usecases/bundles.ts";
import { parseInput } from "../../../core/validation.ts";
import { openSkillLibrary } from "../../../adapters/skills/mod.ts";
import { tempDir } from "../../_helpers.ts";
import { skillMd, writeTree as write } from "../../adapters/skills/_write.ts";

Deno.test("a new bundle lists the skills it cannot load yet, and is refused twice unless forced", async () => {
  await using home = await tempDir();
  await write(home.path, { "skills/review/SKILL.md": skillMd("review") });
  const library = openSkillLibrary({ name: "work", home: home.path });
  const created = await createBundle(library, {
    name: " Back End ",
    skills: ["review", "later", "review"],
    description: "Server work",
    instruction: "Go slow.",
  });
  assert.equal(created.replaced, false);
  assert.equal(created.shadowed, false);
  assert.deepEqual(created.bundle, {
    name: "Back End",
    slug: "back-end",
    command: "/back-end",
    description: "Server work",
    label: "Server work (2 skills)",
    skills: ["review", "later"],
    loaded: ["review"],
    missing: ["later"],
    unavailable: [],
    instruction: "Go slow.",
    file: join(home.path, "skill-bundles", "back-end.yaml"),
    note: null,
  });

  await assert.rejects(
    createBundle(library, { name: "back_end", skills: ["review"] }),
    BundleExistsError,
  );
  const forced = await createBundle(library, { name: "back_end", skills: ["review"], force: true });
  assert.equal(forced.replaced, true);
  assert.deepEqual(forced.bundle.skills, ["review"]);
  await assert.rejects(createBundle(library, { name: "x", skills: [] }), BundleInvalidError);
  await assert.rejects(createBundle(library, { name: "%%", skills: ["a"] }), BundleInvalidError);

  const help = await createBundle(library, { name: "help", skills: ["review"] });
  assert.equal(help.shadowed, true);
  assert.match(help.bundle.note!, /built-in command/);
});

Deno.test("the new-bundle schema reads a request body: blanks refused, nulls as absent", () => {
  const parsed = parseInput(
    NewBundle,
    { name: "b", skills: null, description: null, force: null },
    "The request body",
  );
  assert.deepEqual(parsed, {
    name: "b",
    skills: [],
    description: undefined,
    force: false,
  });
  assert.throws(
    () => parseInput(NewBundle, { name: "  ", skills: ["a"] }, "The request body"),
    /The request body is not valid: name: must not be empty/,
  );
  assert.throws(() => parseInput(NewBundle, { name: "b", skills: "a" }, "The request body"));
});

Deno.test("bundles are listed, shown, reloaded with broken files reported, and deleted", async () => {
  await using home = await tempDir();
  await write(home.path, {
    "skills/review/SKILL.md": skillMd("review"),
    "skill-bundles/backend.yaml": "name: Backend\nskills: [review, ghost]\n",
    "skill-bundles/broken.yaml": "name: [\n",
    "skills/broken/SKILL.md": "---\nname: [\n---\n",
  });
  const library = openSkillLibrary({ name: "default", home: home.path });
  const listed = await listBundles(library);
  assert.deepEqual(listed.bundles.map((b) => [b.slug, b.loaded, b.missing]), [
    ["backend", ["review"], ["ghost"]],
  ]);
  const broken = join(home.path, "skill-bundles", "broken.yaml");
  assert.deepEqual(listed.warnings.map((w) => w.file), [broken], "only bundle files");

  const shown = await showBundle(library, "BACKEND");
  assert.deepEqual(shown.bundle, listed.bundles[0]);
  const shownPath = (path: string) => path.replace(home.path, "~");
  await assert.rejects(
    showBundle(library, "nope", { showPath: shownPath }),
    (error: unknown) =>
      error instanceof BundleNotFoundError &&
      error.message.includes("not found in ~/skill-bundles"),
  );

  const reload = await reloadBundles(library);
  assert.deepEqual(reload, {
    total: 1,
    bundles: [{
      name: "Backend",
      slug: "backend",
      label: "Skill bundle (2 skills)",
      file: join(home.path, "skill-bundles", "backend.yaml"),
    }],
    skipped: [{ file: broken, message: listed.warnings[0].message }],
  });

  assert.deepEqual(await deleteBundle(library, "broken"), { name: "broken", file: broken });
  const gone = await deleteBundle(library, "backend");
  assert.equal(gone.file, join(home.path, "skill-bundles", "backend.yaml"));
  assert.deepEqual((await listBundles(library)).bundles, []);
  await assert.rejects(
    deleteBundle(library, "backend", { showPath: shownPath }),
    (error: unknown) =>
      error instanceof BundleNotFoundError && error.code === "bundle_not_found" &&
      error.message.includes("~/skill-bundles"),
  );
});

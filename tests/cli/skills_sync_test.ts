/**
 * Bundled skills over the real CLI in-process: a home that exists but was
 * never seeded is seeded on first use, a new release's changed skills
 * update on start (changed and deleted copies kept as they are), and
 * `herald skills reset` brings one back.
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { captureOutput, run } from "../../cli/app.ts";
import type { Terminal } from "../../cli/context.ts";
import {
  bundledSetHash,
  bundledSkillsDir,
  hashSkillDir,
  OPT_OUT_MARKER,
  readManifest,
  readSeededSet,
  SEEDED_SET_FILE,
  writeManifest,
} from "../../adapters/skills/mod.ts";
import { skillMd } from "../adapters/skills/_write.ts";
import { exists } from "../adapters/skills/_write.ts";
import { tempDir } from "../_helpers.ts";

async function herald(home: string, argv: string[], terminal?: Terminal) {
  const io = captureOutput();
  const code = await run(argv, { io, env: { HERALD_HOME: home, HOME: "/nonexistent" }, terminal });
  return { code, stdout: io.stdout, stderr: io.stderr };
}

/** A terminal a person types `text` into. */
function typing(text: string): Terminal {
  return { interactive: true, input: () => ReadableStream.from([new TextEncoder().encode(text)]) };
}

const REVIEW = "software-development/code-review";
const PLAN = "software-development/plan-before-coding";
const DEBUG = "software-development/systematic-debugging";

function local(home: string, rel: string): string {
  return join(home, "skills", ...rel.split("/"));
}

function shipped(rel: string): Promise<string> {
  return Deno.readTextFile(join(bundledSkillsDir(), ...rel.split("/"), "SKILL.md"));
}

async function slugs(home: string, argv: string[] = []): Promise<string[]> {
  const listed = await herald(home, [...argv, "skills", "list", "--json"]);
  assert.equal(listed.code, 0, listed.stderr);
  return JSON.parse(listed.stdout).map((row: { slug: string }) => row.slug);
}

Deno.test("a home that exists but was never seeded is seeded on first use; an opted-out one is not", async () => {
  await using root = await tempDir();
  await Deno.writeTextFile(join(root.path, "config.yaml"), "agent:\n  max_turns: 5\n");
  const hand = join(root.path, "profiles", "hand");
  await Deno.mkdir(hand, { recursive: true });
  await Deno.writeTextFile(join(hand, "config.yaml"), "agent:\n  max_turns: 3\n");
  const quiet = join(root.path, "profiles", "quiet");
  await Deno.mkdir(quiet, { recursive: true });
  await Deno.writeTextFile(join(quiet, OPT_OUT_MARKER), "");

  assert.ok((await slugs(root.path, ["-p", "hand"])).includes("code-review"));
  assert.equal(
    await Deno.readTextFile(join(local(hand, REVIEW), "SKILL.md")),
    await shipped(REVIEW),
  );
  assert.equal(await readSeededSet(hand), await bundledSetHash());
  assert.ok((await slugs(root.path)).includes("kanban-worker"), "the default home too");
  assert.deepEqual(await slugs(root.path, ["-p", "quiet"]), []);
  assert.ok(!(await exists(join(quiet, "skills", SEEDED_SET_FILE))));
});

Deno.test("a new release's bundled skills update on start; changed and deleted ones stay as they are", async () => {
  await using home = await tempDir();
  assert.ok((await slugs(home.path)).includes("code-review"));
  const review = join(local(home.path, REVIEW), "SKILL.md");
  const plan = join(local(home.path, PLAN), "SKILL.md");

  // As an older release left it: code-review as it shipped then, plan-before-coding
  // changed by the user since, systematic-debugging deleted by the user.
  const manifest = await readManifest(home.path);
  await Deno.writeTextFile(review, skillMd("code-review", "Last release's review."));
  manifest.set("code-review", await hashSkillDir(local(home.path, REVIEW)));
  await Deno.writeTextFile(plan, skillMd("plan-before-coding", "Last release's plan."));
  manifest.set("plan-before-coding", await hashSkillDir(local(home.path, PLAN)));
  await Deno.writeTextFile(plan, skillMd("plan-before-coding", "My own way of planning."));
  await Deno.remove(local(home.path, DEBUG), { recursive: true });
  await writeManifest(home.path, manifest);
  await Deno.writeTextFile(join(home.path, "skills", SEEDED_SET_FILE), "last-release\n");

  const after = await slugs(home.path);
  assert.equal(await Deno.readTextFile(review), await shipped(REVIEW), "updated");
  assert.match(await Deno.readTextFile(plan), /My own way of planning/, "kept");
  assert.ok(!after.includes("systematic-debugging"), "not re-added");
  assert.equal(await readSeededSet(home.path), await bundledSetHash());

  // Once this release's set is recorded, starting again changes nothing.
  await Deno.writeTextFile(review, skillMd("code-review", "Edited after the update."));
  await slugs(home.path);
  assert.match(await Deno.readTextFile(review), /Edited after the update/);
});

Deno.test("skills reset brings back a deleted bundled skill and replaces a changed one only when asked", async () => {
  await using home = await tempDir();
  await slugs(home.path);
  await Deno.remove(local(home.path, REVIEW), { recursive: true });
  assert.ok(!(await slugs(home.path)).includes("code-review"), "seeding never re-adds it");

  const restored = await herald(home.path, ["skills", "reset", "code_review", "--json"]);
  assert.equal(restored.code, 0, restored.stderr);
  assert.deepEqual(JSON.parse(restored.stdout), {
    name: "code-review",
    dir: local(home.path, REVIEW),
    previous_state: "deleted",
    action: "restored",
  });
  assert.equal(
    await Deno.readTextFile(join(local(home.path, REVIEW), "SKILL.md")),
    await shipped(REVIEW),
  );
  const again = await herald(home.path, ["skills", "reset", "code-review"]);
  assert.equal(again.code, 0);
  assert.match(again.stdout, /"code-review" is already the bundled version/);

  const plan = join(local(home.path, PLAN), "SKILL.md");
  await Deno.writeTextFile(plan, skillMd("plan-before-coding", "Mine."));
  const refused = await herald(home.path, ["skills", "reset", "plan-before-coding"]);
  assert.equal(refused.code, 2);
  assert.match(refused.stderr, /was changed since Herald seeded it; it was kept\. Add --restore/);
  const unconfirmed = await herald(home.path, [
    "skills",
    "reset",
    "plan-before-coding",
    "--restore",
  ]);
  assert.equal(unconfirmed.code, 2);
  assert.match(unconfirmed.stderr, /needs confirmation; run it in a terminal, or add --yes/);
  const declined = await herald(
    home.path,
    ["skills", "reset", "plan-before-coding", "--restore"],
    typing("n\n"),
  );
  assert.equal(declined.code, 0);
  assert.match(
    declined.stderr,
    /Your changes to "plan-before-coding" .* will be lost[\s\S]*Nothing changed/,
  );
  assert.match(await Deno.readTextFile(plan), /Mine\./);
  const confirmed = await herald(
    home.path,
    ["skills", "reset", "plan-before-coding", "--restore"],
    typing("y\n"),
  );
  assert.equal(confirmed.code, 0, confirmed.stderr);
  assert.equal(await Deno.readTextFile(plan), await shipped(PLAN));

  await Deno.writeTextFile(plan, skillMd("plan-before-coding", "Mine again."));
  const forced = await herald(home.path, [
    "skills",
    "reset",
    "plan-before-coding",
    "--restore",
    "--yes",
    "--json",
  ]);
  assert.equal(forced.code, 0, forced.stderr);
  assert.equal(JSON.parse(forced.stdout).previous_state, "modified");
  assert.equal(await Deno.readTextFile(plan), await shipped(PLAN));

  const unknown = await herald(home.path, ["skills", "reset", "no-such-skill"]);
  assert.equal(unknown.code, 2);
  assert.match(
    unknown.stderr,
    /No bundled skill is named "no-such-skill"; the bundled skills are: .*code-review/,
  );
});

Deno.test("skills reset works in an opted-out profile and replaces a user's own skill of the same name", async () => {
  await using home = await tempDir();
  await Deno.writeTextFile(join(home.path, OPT_OUT_MARKER), "");
  assert.deepEqual(await slugs(home.path), []);
  const reset = await herald(home.path, ["skills", "reset", "kanban-worker", "--json"]);
  assert.equal(reset.code, 0, reset.stderr);
  assert.equal(JSON.parse(reset.stdout).previous_state, "missing");
  assert.deepEqual(await slugs(home.path), ["kanban-worker"]);

  const mine = join(home.path, "skills", "mine", "code-review");
  await Deno.mkdir(mine, { recursive: true });
  await Deno.writeTextFile(join(mine, "SKILL.md"), skillMd("code-review", "My review."));
  const refused = await herald(home.path, ["skills", "reset", "code-review"]);
  assert.equal(refused.code, 2);
  assert.match(
    refused.stderr,
    /Your own skill "code-review" at .* has the name of a bundled skill/,
  );
  const replaced = await herald(home.path, [
    "skills",
    "reset",
    "code-review",
    "--restore",
    "--yes",
  ]);
  assert.equal(replaced.code, 0, replaced.stderr);
  assert.ok(!(await exists(mine)));
  assert.equal(
    await Deno.readTextFile(join(local(home.path, REVIEW), "SKILL.md")),
    await shipped(REVIEW),
  );
});

/**
 * `/api/skills` and `/api/bundles` print the same views as `herald skills
 * ... --json` and `herald bundles ... --json` (core/skills/views.ts), and
 * request bodies are checked by the bundle schema.
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { captureOutput, run } from "../../cli/app.ts";
import { tempDir } from "../_helpers.ts";
import { skillMd, writeTree as write } from "../adapters/skills/_write.ts";
import { routesApp } from "./_routes.ts";

type Json = Record<string, unknown>;

const OTHER_OS = Deno.build.os === "windows" ? "linux" : "windows";

async function heraldJson(root: string, ...argv: string[]): Promise<unknown> {
  const io = captureOutput();
  const code = await run([...argv, "--json"], { io, env: { HERALD_HOME: root } });
  assert.equal(code, 0, io.stderr);
  return JSON.parse(io.stdout);
}

Deno.test("skills and bundles --json print the same objects as the API", async () => {
  await using home = await tempDir();
  const { json, work } = await routesApp(home.path);
  await write(work.home, {
    "skills/dev/review/SKILL.md": skillMd("review"),
    "skills/help/SKILL.md": skillMd("help"),
    "skills/elsewhere/SKILL.md": skillMd("elsewhere", undefined, `platforms: [${OTHER_OS}]\n`),
    "skill-bundles/backend.yaml": "name: Backend\nskills: [review, ghost, elsewhere]\n",
  });

  const api = (await json("GET", "/api/skills?profile=work")).body;
  const cli = await heraldJson(home.path, "-p", "work", "skills", "list", "--all");
  assert.deepEqual(cli, api.skills);
  assert.deepEqual((cli as { slug: string }[]).map((s) => s.slug), ["elsewhere", "help", "review"]);

  const bundles = (await json("GET", "/api/bundles?profile=work")).body.bundles as unknown[];
  assert.deepEqual(await heraldJson(home.path, "-p", "work", "bundles", "list"), bundles);
  const shown = (await json("GET", "/api/bundles/backend?profile=work")).body.bundle;
  assert.deepEqual(await heraldJson(home.path, "-p", "work", "bundles", "show", "backend"), shown);
  assert.deepEqual(shown, bundles[0]);

  const created = await json("POST", "/api/bundles", {
    profile: "work",
    name: "Front",
    skills: ["review"],
  });
  assert.equal(created.status, 201);
  const { replaced, ...bundle } = await heraldJson(
    home.path,
    "-p",
    "work",
    "bundles",
    "create",
    "Front",
    "--skill",
    "review",
    "--force",
  ) as Record<string, unknown>;
  assert.equal(replaced, true);
  assert.deepEqual(bundle, created.body.bundle);
});

Deno.test("a bundle body that does not fit the schema is a 400 naming the field, and nothing is written", async () => {
  await using home = await tempDir();
  const { json, work } = await routesApp(home.path);
  for (
    const [body, field] of [
      [{ skills: ["a"] }, "name"],
      [{ name: "  ", skills: ["a"] }, "name"],
      [{ name: "b", skills: "a" }, "skills"],
      [{ name: "b", skills: ["a"], force: "yes" }, "force"],
      [{ name: "b", skills: ["a"], description: 3 }, "description"],
    ] as const
  ) {
    const answer = await json("POST", "/api/bundles?profile=work", body);
    assert.equal(answer.status, 400, JSON.stringify(body));
    assert.equal(answer.body.error?.code, "bad_request");
    assert.match(answer.body.error!.message, new RegExp(`${field}: `), JSON.stringify(body));
  }
  const notJson = await json("POST", "/api/bundles?profile=work", "[1, 2]");
  assert.equal(notJson.status, 400);
  assert.deepEqual([...Deno.readDirSync(work.skillBundles)], []);
});

Deno.test("one skill is shown with its SKILL.md, as `herald skills show --json` prints it", async () => {
  await using home = await tempDir();
  const { json, work } = await routesApp(home.path);
  await write(work.home, {
    "skills/dev/review/SKILL.md": skillMd("review", "## Steps\n\n```sh\ngit diff\n```"),
  });
  const { status, body } = await json("GET", "/api/skills/review?profile=work");
  assert.equal(status, 200);
  const skill = body.skill as Record<string, unknown>;
  assert.match(String(skill.body), /## Steps\n\n```sh\ngit diff\n```/);
  assert.deepEqual(skill, await heraldJson(home.path, "-p", "work", "skills", "show", "review"));
  const missing = await json("GET", "/api/skills/ghost?profile=work");
  assert.equal(missing.status, 404);
  assert.equal(missing.body.error?.code, "skill_not_found");
});

Deno.test("a bundle is updated in place, or moved when its new name is another, checked as a new one is", async () => {
  await using home = await tempDir();
  const { json, work } = await routesApp(home.path);
  const create = (name: string, skills: string[]) =>
    json("POST", "/api/bundles?profile=work", { name, skills });
  assert.equal((await create("Backend", ["review"])).status, 201);
  assert.equal((await create("Front", ["css"])).status, 201);

  const put = (name: string, body: unknown) =>
    json("PUT", `/api/bundles/${name}?profile=work`, body);
  const edited = await put("backend", {
    name: "Backend",
    skills: ["review", "debugging"],
    description: "Server work",
  });
  assert.equal(edited.status, 200, JSON.stringify(edited.body));
  assert.equal(edited.body.renamed_from, null);
  assert.deepEqual((edited.body.bundle as Json).skills, ["review", "debugging"]);
  assert.deepEqual(
    await heraldJson(home.path, "-p", "work", "bundles", "show", "backend"),
    edited.body.bundle,
  );

  const moved = await put("backend", { name: "Server", skills: ["review"] });
  assert.equal(moved.status, 200);
  assert.equal(moved.body.renamed_from, "backend");
  assert.equal((moved.body.bundle as Json).file, join(work.skillBundles, "server.yaml"));
  const slugs = ((await json("GET", "/api/bundles?profile=work")).body.bundles as Json[])
    .map((b) => b.slug);
  assert.deepEqual(slugs, ["front", "server"]);

  const taken = await put("server", { name: "front", skills: ["review"] });
  assert.equal(taken.status, 409);
  assert.equal(taken.body.error?.code, "bundle_exists");
  const noSkills = await put("server", { name: "Server", skills: [" "] });
  assert.equal(noSkills.status, 400);
  assert.equal(noSkills.body.error?.code, "bundle_invalid");
  assert.equal((noSkills.body.error as { details?: Json }).details?.field, "skills");
  const badName = await put("server", { name: "!!!", skills: ["review"] });
  assert.equal((badName.body.error as { details?: Json }).details?.field, "name");
  const schema = await put("server", { name: "Server", skills: "review" });
  assert.equal(schema.status, 400);
  assert.match(schema.body.error!.message, /skills: /);
  const ghost = await put("ghost", { name: "ghost", skills: ["review"] });
  assert.equal(ghost.status, 404);
  assert.equal(ghost.body.error?.code, "bundle_not_found");
  const kept = ((await json("GET", "/api/bundles?profile=work")).body.bundles as Json[])
    .map((b) => [b.slug, b.skills]);
  assert.deepEqual(
    kept,
    [["front", ["css"]], ["server", ["review"]]],
    "failed edits wrote nothing",
  );
});

/** The bundles of profile `work` as `[slug, skills]`, sorted by slug. */
async function bundleRows(json: Awaited<ReturnType<typeof routesApp>>["json"]) {
  const { body } = await json("GET", "/api/bundles?profile=work");
  return (body.bundles as Json[]).map((b) => [b.slug, b.skills]);
}

/** The file names in the `work` profile's skill-bundles folder (no temporary or lock files left). */
function bundleFiles(dir: string): string[] {
  return [...Deno.readDirSync(dir)].map((entry) => entry.name).sort();
}

Deno.test("a rename and an edit of one bundle at once end as if one ran after the other", async () => {
  await using home = await tempDir();
  const { json, work } = await routesApp(home.path);
  for (let round = 0; round < 6; round++) {
    await Deno.remove(work.skillBundles, { recursive: true }).catch(() => {});
    await json("POST", "/api/bundles?profile=work", { name: "backend", skills: ["review"] });
    const rename = json("PUT", "/api/bundles/backend?profile=work", {
      name: "server",
      skills: ["review"],
    });
    const edit = json("PUT", "/api/bundles/backend?profile=work", {
      name: "backend",
      skills: ["review", "debugging"],
    });
    const [renamed, edited] = round % 2 === 0
      ? await Promise.all([rename, edit])
      : (await Promise.all([edit, rename])).reverse();
    assert.equal(renamed.status, 200, JSON.stringify(renamed.body));
    assert.equal(renamed.body.renamed_from, "backend");
    if (edited.status === 200) {
      // The edit ran first; the rename then moved the bundle with its own definition.
      assert.deepEqual((edited.body.bundle as Json).skills, ["review", "debugging"]);
    } else {
      assert.equal(edited.status, 404, JSON.stringify(edited.body));
      assert.equal(edited.body.error?.code, "bundle_not_found");
    }
    assert.deepEqual(await bundleRows(json), [["server", ["review"]]], "the edit never re-creates");
    assert.deepEqual(bundleFiles(work.skillBundles), ["server.yaml"]);
  }
});

Deno.test("two renames of one bundle at once move it once; the other is a 404 that writes nothing", async () => {
  await using home = await tempDir();
  const { json, work } = await routesApp(home.path);
  for (let round = 0; round < 6; round++) {
    await Deno.remove(work.skillBundles, { recursive: true }).catch(() => {});
    await json("POST", "/api/bundles?profile=work", { name: "old", skills: ["review"] });
    const answers = await Promise.all(
      ["new1", "new2"].map((name) =>
        json("PUT", "/api/bundles/old?profile=work", { name, skills: [name] })
      ),
    );
    const moved = answers.filter((answer) => answer.status === 200);
    assert.equal(moved.length, 1, JSON.stringify(answers.map((a) => a.body)));
    const refused = answers.find((answer) => answer.status !== 200)!;
    assert.equal(refused.status, 404);
    assert.equal(refused.body.error?.code, "bundle_not_found");
    const winner = (moved[0].body.bundle as Json).slug as string;
    assert.deepEqual(await bundleRows(json), [[winner, [winner]]]);
    assert.deepEqual(bundleFiles(work.skillBundles), [`${winner}.yaml`]);
  }
});

Deno.test("a rename onto a name that is being created at once: one wins, the other is a 409", async () => {
  await using home = await tempDir();
  const { json, work } = await routesApp(home.path);
  for (let round = 0; round < 6; round++) {
    await Deno.remove(work.skillBundles, { recursive: true }).catch(() => {});
    await json("POST", "/api/bundles?profile=work", { name: "old", skills: ["review"] });
    const [renamed, created] = await Promise.all([
      json("PUT", "/api/bundles/old?profile=work", { name: "target", skills: ["moved"] }),
      json("POST", "/api/bundles?profile=work", { name: "target", skills: ["fresh"] }),
    ]);
    if (renamed.status === 200) {
      assert.equal(created.status, 409, JSON.stringify(created.body));
      assert.equal(created.body.error?.code, "bundle_exists");
      assert.deepEqual(await bundleRows(json), [["target", ["moved"]]]);
    } else {
      assert.equal(renamed.status, 409, JSON.stringify(renamed.body));
      assert.equal(renamed.body.error?.code, "bundle_exists");
      assert.equal(created.status, 201);
      assert.deepEqual(await bundleRows(json), [["old", ["review"]], ["target", ["fresh"]]]);
    }
    assert.ok(bundleFiles(work.skillBundles).every((name) => /^[a-z]+\.yaml$/.test(name)));
  }
});

Deno.test("a delete and an edit of one bundle at once never bring it back", async () => {
  await using home = await tempDir();
  const { json, work } = await routesApp(home.path);
  for (let round = 0; round < 6; round++) {
    await Deno.remove(work.skillBundles, { recursive: true }).catch(() => {});
    await json("POST", "/api/bundles?profile=work", { name: "backend", skills: ["review"] });
    const [deleted, edited] = await Promise.all([
      json("DELETE", "/api/bundles/backend?profile=work"),
      json("PUT", "/api/bundles/backend?profile=work", { name: "backend", skills: ["other"] }),
    ]);
    assert.equal(deleted.status, 200, JSON.stringify(deleted.body));
    assert.ok([200, 404].includes(edited.status), JSON.stringify(edited.body));
    assert.deepEqual(await bundleRows(json), []);
    assert.deepEqual(bundleFiles(work.skillBundles), []);
  }
});

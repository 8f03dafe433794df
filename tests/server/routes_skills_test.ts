/**
 * `/api/skills` and `/api/bundles` print the same views as `herald skills
 * ... --json` and `herald bundles ... --json` (core/skills/views.ts), and
 * request bodies are checked by the bundle schema.
 */

import assert from "node:assert/strict";
import { captureOutput, run } from "../../cli/app.ts";
import { tempDir } from "../_helpers.ts";
import { skillMd, writeTree as write } from "../adapters/skills/_write.ts";
import { routesApp } from "./_routes.ts";

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

/**
 * `/api/profiles` answers what `herald profile list|create|describe --json`
 * print (core/usecases/profiles.ts does the work for both), checks its
 * bodies, keeps a pinned dashboard to its profile, and generates a
 * description with the profile_describer auxiliary model served by the
 * scripted model server over HTTP.
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { captureOutput, run } from "../../cli/app.ts";
import { tempDir } from "../_helpers.ts";
import { configureModel } from "../e2e/_herald.ts";
import { startModelServer } from "../fakes/model_server.ts";
import { readOr, routesApp } from "./_routes.ts";
import { MAX_DESCRIPTION_LENGTH } from "../../core/profiles/mod.ts";

async function herald(root: string, ...argv: string[]): Promise<unknown> {
  const io = captureOutput();
  const code = await run([...argv, "--json"], { io, env: { HERALD_HOME: root } });
  assert.equal(code, 0, io.stderr);
  return JSON.parse(io.stdout);
}

type Row = { name: string; active: boolean; description: string; description_auto: boolean };

/** Waits until the model server has received `count` requests, or `request` has settled. */
async function askedOrSettled(
  model: { requests: readonly unknown[] },
  count: number,
  request: Promise<unknown>,
): Promise<void> {
  let settled = false;
  request.then(() => settled = true, () => settled = true);
  while (model.requests.length < count && !settled) {
    await new Promise((done) => setTimeout(done, 10));
  }
}

/** The `details` of an error body. */
function detailsOf(body: { error?: unknown }): Record<string, unknown> {
  return (body.error as { details?: Record<string, unknown> } | undefined)?.details ?? {};
}

Deno.test("the profile list is profile list --json, with the requested profile marked active", async () => {
  await using home = await tempDir();
  const { json } = await routesApp(home.path);
  await herald(home.path, "profile", "describe", "work", "--text", "Work email and calendars.");

  const listed = await json("GET", "/api/profiles?profile=work");
  assert.equal(listed.status, 200);
  assert.equal(listed.body.profile, "work");
  assert.equal(listed.body.pinned_profile, null);
  assert.deepEqual(listed.body.profiles, await herald(home.path, "-p", "work", "profile", "list"));
  const rows = listed.body.profiles as Row[];
  assert.deepEqual(rows.map((row) => [row.name, row.active]), [["default", false], [
    "work",
    true,
  ]]);
  assert.equal(rows[1].description, "Work email and calendars.");
  assert.equal(rows[1].description_auto, false);

  const unscoped = (await json("GET", "/api/profiles")).body;
  assert.equal(unscoped.profile, "default");
  assert.deepEqual((unscoped.profiles as Row[]).filter((row) => row.active).map((r) => r.name), [
    "default",
  ]);
});

Deno.test("creating a profile answers profile create --json and the list then holds it", async () => {
  await using home = await tempDir();
  const { json } = await routesApp(home.path);
  const created = await json("POST", "/api/profiles", {
    name: "  research ",
    description: "Reads papers.",
    bundled_skills: false,
  });
  assert.equal(created.status, 201, JSON.stringify(created.body));
  const cli = await herald(
    home.path,
    "profile",
    "create",
    "writing",
    "--description",
    "Reads papers.",
    "--no-skills",
  ) as Record<string, unknown>;
  const strip = (view: Record<string, unknown>) => ({ ...view, name: "", home: "" });
  assert.deepEqual(strip(created.body), strip(cli));
  assert.equal(created.body.name, "research");
  assert.equal(created.body.home, join(home.path, "profiles", "research"));
  assert.equal(created.body.clone, null);
  assert.match(await readOr(join(home.path, "profiles", "research", "profile.yaml")), /Reads/);

  const names = ((await json("GET", "/api/profiles")).body.profiles as Row[]).map((r) => r.name);
  assert.deepEqual(names, ["default", "research", "work", "writing"]);

  const again = await json("POST", "/api/profiles", { name: "research" });
  assert.equal(again.status, 409);
  assert.equal(again.body.error?.code, "profile_exists");
});

Deno.test("cloning copies the source's settings and secrets but not its bot tokens, as --clone does", async () => {
  await using home = await tempDir();
  const { json, work } = await routesApp(home.path);
  await Deno.writeTextFile(join(work.home, "config.yaml"), "model:\n  default: work-model\n");
  await Deno.writeTextFile(join(work.home, ".env"), "OPENAI_API_KEY=sk-1\nTELEGRAM_BOT_TOKEN=t\n");

  const cloned = await json("POST", "/api/profiles", { name: "copy", clone_from: "work" });
  assert.equal(cloned.status, 201, JSON.stringify(cloned.body));
  assert.equal(cloned.body.clone, "config");
  assert.equal(cloned.body.cloned_from, "work");
  assert.equal(cloned.body.model, "work-model");
  assert.deepEqual(cloned.body.stripped_secrets, ["TELEGRAM_BOT_TOKEN"]);
  const env = await readOr(join(home.path, "profiles", "copy", ".env"));
  assert.match(env, /OPENAI_API_KEY=sk-1/);
  assert.doesNotMatch(env, /TELEGRAM_BOT_TOKEN/);

  const everything = await json("POST", "/api/profiles", {
    name: "copy-all",
    clone_from: "work",
    clone_mode: "all",
    clone_channels: true,
  });
  assert.equal(everything.status, 201, JSON.stringify(everything.body));
  assert.equal(everything.body.clone, "all");
  assert.deepEqual(everything.body.stripped_secrets, []);
  assert.match(await readOr(join(home.path, "profiles", "copy-all", ".env")), /TELEGRAM_BOT/);

  const missing = await json("POST", "/api/profiles", { name: "x", clone_from: "ghost" });
  assert.equal(missing.status, 404);
  assert.equal(missing.body.error?.code, "profile_not_found");
});

Deno.test("a create body that does not fit is a 400 that says what to send, and nothing is made", async () => {
  await using home = await tempDir();
  const { json } = await routesApp(home.path);
  for (
    const [body, pattern] of [
      [{}, /name/],
      [{ name: "  " }, /name/],
      [{ name: 3 }, /name/],
      [{ name: "a", clone_from: "work", clone_mode: "some" }, /clone_mode/],
      [{ name: "a", clone_from: " " }, /clone_from/],
      [{ name: "a", description: 5 }, /description/],
      [{ name: "a", bundled_skills: "no" }, /bundled_skills/],
      ["[1]", /JSON object/],
    ] as const
  ) {
    const answer = await json("POST", "/api/profiles", body);
    assert.equal(answer.status, 400, JSON.stringify(body));
    assert.equal(answer.body.error?.code, "bad_request");
    assert.match(answer.body.error!.message, pattern, JSON.stringify(body));
  }
  for (
    const [body, field, pattern] of [
      [
        { name: "a", clone_mode: "all" },
        "clone_mode",
        /"clone_mode" only applies with "clone_from"/,
      ],
      [{ name: "a", clone_channels: false }, "clone_channels", /"clone_channels" only applies/],
    ] as const
  ) {
    const answer = await json("POST", "/api/profiles", body);
    assert.equal(answer.status, 400, JSON.stringify(body));
    assert.equal(answer.body.error?.code, "clone_options_invalid");
    assert.equal(detailsOf(answer.body).field, field);
    assert.match(answer.body.error!.message, pattern);
  }
  for (const name of ["Bad Name", "../up", "default"]) {
    const answer = await json("POST", "/api/profiles", { name });
    assert.equal(answer.status, 400, name);
    assert.match(answer.body.error!.code, /^profile_name_/, name);
    assert.equal(detailsOf(answer.body).field, "name", name);
  }
  const badSource = await json("POST", "/api/profiles", { name: "a", clone_from: "Bad Name" });
  assert.equal(badSource.status, 400);
  assert.equal(badSource.body.error?.code, "profile_name_invalid");
  assert.equal(detailsOf(badSource.body).field, "clone_from");
  assert.match(badSource.body.error!.message, /^The profile to copy \("clone_from"\): /);
  const names = ((await json("GET", "/api/profiles")).body.profiles as Row[]).map((r) => r.name);
  assert.deepEqual(names, ["default", "work"]);
});

Deno.test("a person's description replaces a generated one and clears the generated mark", async () => {
  await using home = await tempDir();
  const { json, work } = await routesApp(home.path);
  await Deno.writeTextFile(
    join(work.home, "profile.yaml"),
    "# kept\ndescription: Made by a model.\ndescription_auto: true\n",
  );
  const edited = await json("PATCH", "/api/profiles/work", { description: " Mine now. " });
  assert.equal(edited.status, 200, JSON.stringify(edited.body));
  assert.deepEqual(edited.body, {
    profile: "work",
    status: "set",
    description: "Mine now.",
    description_auto: false,
  });
  assert.deepEqual(await herald(home.path, "profile", "describe", "work"), {
    ...edited.body,
    status: "shown",
  });
  assert.match(await readOr(join(work.home, "profile.yaml")), /^# kept$/m);

  const bad = await json("PATCH", "/api/profiles/work", { text: "x" });
  assert.equal(bad.status, 400);
  assert.match(bad.body.error!.message, /"description"/);
  const ghost = await json("PATCH", "/api/profiles/ghost", { description: "x" });
  assert.equal(ghost.status, 404);
  assert.equal(ghost.body.error?.code, "profile_not_found");
  const invalid = await json("PATCH", "/api/profiles/Not%20A%20Name", { description: "x" });
  assert.equal(invalid.status, 404);
});

Deno.test("describe asks the profile_describer model and marks the answer generated; a person's words are kept unless overwrite", async () => {
  await using home = await tempDir();
  await using model = await startModelServer({
    replies: [{ text: "Answers work email. Keeps the calendar. Extra." }],
  });
  const { json, work } = await routesApp(home.path, { env: { CUSTOM_API_KEY: "k" } });
  await configureModel(work.home, model.openaiBaseUrl);

  const generated = await json("POST", "/api/profiles/work/describe");
  assert.equal(generated.status, 200, JSON.stringify(generated.body));
  assert.deepEqual(generated.body, {
    profile: "work",
    status: "generated",
    description: "Answers work email. Keeps the calendar.",
    description_auto: true,
  });
  assert.equal(model.requests.length, 1);
  const rows = (await json("GET", "/api/profiles")).body.profiles as Row[];
  assert.equal(rows.find((row) => row.name === "work")?.description_auto, true);

  await json("PATCH", "/api/profiles/work", { description: "My own words." });
  const kept = await json("POST", "/api/profiles/work/describe", {});
  assert.equal(kept.body.status, "kept");
  assert.equal(kept.body.description, "My own words.");
  assert.equal(model.requests.length, 1, "a person's description is kept without asking");

  model.enqueue({ text: "Handles work mail." });
  const replaced = await json("POST", "/api/profiles/work/describe", { overwrite: true });
  assert.equal(replaced.body.status, "generated");
  assert.equal(replaced.body.description, "Handles work mail.");

  model.enqueue({ status: 500, message: "boom" });
  const failed = await json("POST", "/api/profiles/work/describe", { overwrite: true });
  assert.equal(failed.status, 503, JSON.stringify(failed.body));
  assert.equal(failed.body.error?.code, "model_unavailable");
  assert.match(await readOr(join(work.home, "profile.yaml")), /Handles work mail\./);

  const badBody = await json("POST", "/api/profiles/work/describe", { overwrite: "yes" });
  assert.equal(badBody.status, 400);
  assert.match(badBody.body.error!.message, /overwrite/);
});

Deno.test("a person's description is one trimmed line, refused over the limit or with a control character, on every surface", async () => {
  await using home = await tempDir();
  const { json, work } = await routesApp(home.path);
  const created = await json("POST", "/api/profiles", {
    name: "mail",
    description: "  Reads mail.\n\n\tFiles it.  ",
    bundled_skills: false,
  });
  assert.equal(created.status, 201, JSON.stringify(created.body));
  assert.equal(created.body.description, "Reads mail. Files it.");
  const patched = await json("PATCH", "/api/profiles/work", { description: " Reads\r\nmail. " });
  assert.equal(patched.body.description, "Reads mail.");
  const cli = await herald(home.path, "profile", "describe", "work", "--text", " Reads\nmail. ");
  assert.deepEqual(cli, patched.body);

  const longest = "x".repeat(MAX_DESCRIPTION_LENGTH);
  assert.equal(
    (await json("POST", "/api/profiles", {
      name: "full",
      description: ` ${longest}\n`,
      bundled_skills: false,
    })).body.description,
    longest,
  );
  const before = await readOr(join(work.home, "profile.yaml"));
  for (
    const [description, pattern, extra] of [
      [`${longest}y`, /is 401 characters; the limit is 400/, { length: 401 }],
      ["Red \u001b[31malert", /control character \(U\+001B at character 5\)/, {
        character: "U+001B",
      }],
    ] as const
  ) {
    const expected = { field: "description", limit: MAX_DESCRIPTION_LENGTH, ...extra };
    const post = await json("POST", "/api/profiles", { name: "refused", description });
    const patch = await json("PATCH", "/api/profiles/work", { description });
    for (const answer of [post, patch]) {
      assert.equal(answer.status, 400, JSON.stringify(answer.body));
      assert.equal(answer.body.error?.code, "description_invalid");
      assert.match(answer.body.error!.message, pattern);
      assert.deepEqual(detailsOf(answer.body), expected);
    }
    for (const argv of [["create", "refused", "--description"], ["describe", "work", "--text"]]) {
      const io = captureOutput();
      const code = await run(["profile", ...argv, description], {
        io,
        env: { HERALD_HOME: home.path },
      });
      assert.equal(code, 2, io.stderr);
      assert.match(io.stderr, pattern);
    }
  }
  assert.equal(await readOr(join(work.home, "profile.yaml")), before, "nothing was written");
  const names = ((await json("GET", "/api/profiles")).body.profiles as Row[]).map((r) => r.name);
  assert.deepEqual(names, ["default", "full", "mail", "work"]);
});

Deno.test("a description a person saves while the model is writing one is kept", async () => {
  await using home = await tempDir();
  // The model answers late, so the person's edit lands while the describer waits for it.
  await using model = await startModelServer({
    replies: [{ text: "Answers work email.", delayMs: 2_000 }],
  });
  const { json, work } = await routesApp(home.path, { env: { CUSTOM_API_KEY: "k" } });
  await configureModel(work.home, model.openaiBaseUrl);

  const describing = json("POST", "/api/profiles/work/describe");
  await askedOrSettled(model, 1, describing);
  const edited = await json("PATCH", "/api/profiles/work", { description: "My own words." });
  assert.equal(edited.status, 200, JSON.stringify(edited.body));
  const described = await describing;
  assert.equal(described.status, 200, JSON.stringify(described.body));
  assert.deepEqual(described.body, {
    profile: "work",
    status: "kept",
    description: "My own words.",
    description_auto: false,
  });
  assert.match(await readOr(join(work.home, "profile.yaml")), /^description: My own words\.$/m);

  model.enqueue({ text: "Answers work email.", delayMs: 500 });
  const overwriting = json("POST", "/api/profiles/work/describe", { overwrite: true });
  await askedOrSettled(model, 2, overwriting);
  await json("PATCH", "/api/profiles/work", { description: "Newer words." });
  assert.equal((await overwriting).body.status, "generated", "overwrite replaces it, as asked");
});

Deno.test("a pinned dashboard lists only its profile, hides the others and refuses to create", async () => {
  await using home = await tempDir();
  const { json } = await routesApp(home.path, { pinnedProfile: "work" });
  const listed = await json("GET", "/api/profiles");
  assert.equal(listed.body.profile, "work");
  assert.equal(listed.body.pinned_profile, "work");
  assert.deepEqual((listed.body.profiles as Row[]).map((row) => row.name), ["work"]);
  assert.equal((await json("GET", "/api/profiles?profile=default")).status, 404);

  const other = await json("PATCH", "/api/profiles/default", { description: "x" });
  assert.equal(other.status, 404);
  assert.equal(other.body.error?.code, "profile_not_found");
  assert.equal((await json("POST", "/api/profiles/default/describe")).status, 404);
  assert.equal((await json("PATCH", "/api/profiles/work", { description: "Ok." })).status, 200);

  const create = await json("POST", "/api/profiles", { name: "new" });
  assert.equal(create.status, 403);
  assert.equal(create.body.error?.code, "profile_pinned");
  assert.match(create.body.error!.message, /herald profile create/);
  const names = await herald(home.path, "profile", "list") as Row[];
  assert.deepEqual(names.map((row) => row.name), ["default", "work"]);
});

Deno.test("the profile routes need the token", async () => {
  await using home = await tempDir();
  const { request } = await routesApp(home.path);
  for (
    const [method, path] of [
      ["GET", "/api/profiles"],
      ["POST", "/api/profiles"],
      ["PATCH", "/api/profiles/work"],
      ["POST", "/api/profiles/work/describe"],
    ]
  ) {
    const response = await request(path, {
      method,
      auth: false,
      body: method === "GET" ? undefined : '{"name":"x","description":"y"}',
      headers: { "content-type": "application/json" },
    });
    assert.equal(response.status, 401, `${method} ${path}`);
    assert.equal((await response.json()).error.code, "unauthorized");
  }
  assert.equal(await readOr(join(home.path, "profiles", "x", "profile.yaml")), "");
});

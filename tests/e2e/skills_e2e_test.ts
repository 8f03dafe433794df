/**
 * Skills and skill bundles end to end: the real `herald` program as a
 * subprocess, the scripted model server over HTTP, and real files in a
 * temporary home.
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { OPT_OUT_MARKER, seedBundledSkills } from "../../adapters/skills/mod.ts";
import { captureOutput, run } from "../../cli/app.ts";
import { startModelServer } from "../fakes/model_server.ts";
import { tempDir } from "../_helpers.ts";
import { exists, skillMd, writeTree } from "../adapters/skills/_write.ts";
import { configureModel, runHerald } from "./_herald.ts";

type Message = { role: string; content: unknown };

function messages(request: { body: unknown }): Message[] {
  return (request.body as { messages: Message[] }).messages;
}

function systemPrompt(request: { body: unknown }): string {
  const system = messages(request).find((m) => m.role === "system");
  return String(system?.content);
}

function lastUser(request: { body: unknown }): string {
  const users = messages(request).filter((m) => m.role === "user");
  return String(users.at(-1)?.content);
}

function count(text: string, part: string): number {
  return text.split(part).length - 1;
}

Deno.test("a bundle sends one user message with each skill once, a note for the missing one, and the system prompt unchanged", async () => {
  await using home = await tempDir();
  await using server = await startModelServer({
    replies: [{ text: "plain" }, { text: "bundled" }],
  });
  await configureModel(home.path, server.openaiBaseUrl);
  await writeTree(home.path, {
    "skills/dev/a/SKILL.md": skillMd("a", "ALPHA-STEPS"),
    "skills/b/SKILL.md": skillMd("b", "BETA-STEPS"),
    "skill-bundles/bundle.yaml":
      "name: bundle\ndescription: A and B\nskills: [a, missing, a, b]\ninstruction: |\n  BUNDLE-INSTRUCTION first line\n  second line\n",
  });

  const plain = await runHerald({ args: ["chat"], home: home.path, stdin: "hello\n" });
  assert.equal(plain.code, 0, plain.stderr);
  const bundled = await runHerald({ args: ["chat"], home: home.path, stdin: "/bundle do X\n" });
  assert.equal(bundled.code, 0, bundled.stderr);
  assert.match(bundled.stdout, /bundled/);

  assert.equal(server.requests.length, 2);
  const [first, second] = server.requests;
  assert.equal(systemPrompt(second), systemPrompt(first));
  assert.ok(systemPrompt(first).includes("skills_list, skill_view"));
  assert.equal(lastUser(first), "hello");

  const users = messages(second).filter((m) => m.role === "user");
  assert.equal(users.length, 1);
  const message = lastUser(second);
  assert.equal(count(message, "ALPHA-STEPS"), 1);
  assert.equal(count(message, "BETA-STEPS"), 1);
  assert.match(message, /Skills missing \(skipped\): missing/);
  assert.ok(message.indexOf("BUNDLE-INSTRUCTION") < message.indexOf("ALPHA-STEPS"));
  assert.ok(message.indexOf("BUNDLE-INSTRUCTION") < message.indexOf("BETA-STEPS"));
  assert.match(message, /User request: do X/);
  assert.ok(message.includes(join(home.path, "skills", "dev", "a")));
});

Deno.test("a broken bundle file is a warning naming it, the good bundle still works, and the exit code is 0", async () => {
  await using home = await tempDir();
  await using server = await startModelServer({ replies: [{ text: "done" }] });
  await configureModel(home.path, server.openaiBaseUrl);
  await writeTree(home.path, {
    "skills/a/SKILL.md": skillMd("a", "ALPHA-STEPS"),
    "skill-bundles/good.yaml": "name: good\nskills: [a]\n",
    "skill-bundles/broken.yaml": "name: broken\nskills: [a\n  nope: {\n",
  });
  const broken = join(home.path, "skill-bundles", "broken.yaml");

  const chat = await runHerald({ args: ["chat"], home: home.path, stdin: "/good go\n" });
  assert.equal(chat.code, 0, chat.stderr);
  assert.ok(chat.stderr.includes(`warning: ${broken}`), chat.stderr);
  assert.equal(count(chat.stderr, broken), 1);
  assert.equal(server.requests.length, 1);
  const message = lastUser(server.requests[0]);
  assert.match(message, /skill bundle "good"/);
  assert.match(message, /ALPHA-STEPS/);
  assert.match(message, /User request: go/);

  const list = await runHerald({ args: ["bundles", "list", "--json"], home: home.path });
  assert.equal(list.code, 0, list.stderr);
  assert.ok(list.stderr.includes(broken));
  assert.deepEqual(JSON.parse(list.stdout).map((b: { slug: string }) => b.slug), ["good"]);
});

Deno.test("/my_bundle resolves my-bundle, and a bundle named like a skill wins", async () => {
  await using home = await tempDir();
  await using server = await startModelServer({ replies: [{ text: "one" }, { text: "two" }] });
  await configureModel(home.path, server.openaiBaseUrl);
  await writeTree(home.path, {
    "skills/review/SKILL.md": skillMd("review", "SKILL-REVIEW-BODY"),
    "skills/lint/SKILL.md": skillMd("lint", "LINT-BODY"),
    "skill-bundles/my-bundle.yaml": "name: my-bundle\nskills: [lint]\n",
    "skill-bundles/review.yaml": "name: review\nskills: [lint]\n",
  });
  const run = await runHerald({
    args: ["chat"],
    home: home.path,
    stdin: "/my_bundle first\n/review second\n",
  });
  assert.equal(run.code, 0, run.stderr);
  assert.equal(server.requests.length, 2);
  const mine = lastUser(server.requests[0]);
  assert.match(mine, /skill bundle "my-bundle"/);
  assert.match(mine, /LINT-BODY/);
  const review = lastUser(server.requests[1]);
  assert.match(review, /skill bundle "review"/);
  assert.ok(!review.includes("SKILL-REVIEW-BODY"));
});

Deno.test("/<skill> text sends the skill and the text as a fresh user message, also with -q", async () => {
  await using home = await tempDir();
  await using server = await startModelServer({ replies: [{ text: "a" }, { text: "b" }] });
  await configureModel(home.path, server.openaiBaseUrl);
  await writeTree(home.path, { "skills/dev/lint/SKILL.md": skillMd("lint", "LINT-BODY") });
  const piped = await runHerald({ args: ["chat"], home: home.path, stdin: "/lint src/\n" });
  assert.equal(piped.code, 0, piped.stderr);
  const oneShot = await runHerald({ args: ["chat", "-q", "/lint src/"], home: home.path });
  assert.equal(oneShot.code, 0, oneShot.stderr);
  for (const request of server.requests) {
    const message = lastUser(request);
    assert.match(message, /^\[The user invoked the skill "lint" \(\/lint\)/);
    assert.match(message, /LINT-BODY/);
    assert.ok(message.includes(`[Skill directory: ${join(home.path, "skills", "dev", "lint")}`));
    assert.match(message, /User request: src\/$/m);
  }
});

Deno.test("bundles create, show and delete report missing bundles and existing files with exit code 2", async () => {
  await using home = await tempDir();
  await writeTree(home.path, { "skills/a/SKILL.md": skillMd("a") });
  const created = await runHerald({
    args: [
      "bundles",
      "create",
      "Back End",
      "--skill",
      "a",
      "--skill",
      "later",
      "-d",
      "Server work",
      "--instruction",
      "Go slow.",
      "--json",
    ],
    home: home.path,
  });
  assert.equal(created.code, 0, created.stderr);
  const info = JSON.parse(created.stdout);
  assert.equal(info.slug, "back-end");
  assert.equal(info.file, join(home.path, "skill-bundles", "back-end.yaml"));
  assert.deepEqual(info.missing, ["later"]);
  assert.match(created.stderr, /skill "later" is not installed yet/);

  const again = await runHerald({
    args: ["bundles", "create", "back_end", "--skill", "a"],
    home: home.path,
  });
  assert.equal(again.code, 2);
  assert.ok(again.stderr.includes(`already exists at ${info.file}`), again.stderr);

  const noSkill = await runHerald({ args: ["bundles", "create", "x"], home: home.path });
  assert.equal(noSkill.code, 2);
  assert.match(noSkill.stderr, /at least one skill/);

  const shown = await runHerald({
    args: ["bundles", "show", "back_end", "--json"],
    home: home.path,
  });
  assert.equal(shown.code, 0, shown.stderr);
  const bundle = JSON.parse(shown.stdout);
  assert.deepEqual([bundle.name, bundle.label, bundle.instruction], [
    "Back End",
    "Server work (2 skills)",
    "Go slow.",
  ]);
  assert.deepEqual(bundle.missing, ["later"]);

  const missing = await runHerald({
    args: ["bundles", "show", "backend"],
    home: home.path,
    env: { HOME: home.path },
  });
  assert.equal(missing.code, 2);
  assert.match(missing.stderr, /Bundle "backend" not found in ~\/skill-bundles/);

  const deleted = await runHerald({ args: ["bundles", "delete", "back-end"], home: home.path });
  assert.equal(deleted.code, 0, deleted.stderr);
  assert.ok(!(await exists(info.file)));
  const gone = await runHerald({ args: ["bundles", "delete", "back-end"], home: home.path });
  assert.equal(gone.code, 2);
  assert.match(gone.stderr, /Bundle "back-end" not found/);
});

Deno.test("skills list notes a skill hidden by a built-in command and skips other platforms' skills", async () => {
  await using home = await tempDir();
  const other = Deno.build.os === "windows" ? "linux" : "windows";
  await writeTree(home.path, {
    "skills/help/SKILL.md": skillMd("help"),
    "skills/fine/SKILL.md": skillMd("fine"),
    "skills/elsewhere/SKILL.md": skillMd("elsewhere", "x", `platforms: [${other}]\n`),
  });
  const run = await runHerald({ args: ["skills", "list", "--json"], home: home.path });
  assert.equal(run.code, 0, run.stderr);
  const rows = (JSON.parse(run.stdout) as {
    slug: string;
    command: string | null;
    note: string;
    origin: string;
  }[]).filter((row) => row.origin === "user"); // the home was seeded on first use too
  assert.deepEqual(rows.map((r) => [r.slug, r.command]), [["fine", "/fine"], ["help", null]]);
  assert.match(rows[1].note, /taken by a built-in command/);
  const shown = await runHerald({ args: ["skills", "show", "fine"], home: home.path });
  assert.equal(shown.code, 0, shown.stderr);
  assert.match(shown.stdout, /Instructions of fine\./);
  const missing = await runHerald({ args: ["skills", "show", "elsewhere"], home: home.path });
  assert.equal(missing.code, 0);
  assert.match(missing.stdout, /hidden here/);
  const none = await runHerald({ args: ["skills", "show", "nothing"], home: home.path });
  assert.equal(none.code, 2);
  assert.match(none.stderr, /Skill "nothing" not found/);
});

Deno.test("skills opt-out --remove --yes deletes exactly the unmodified bundled skills, and opt-in --sync re-seeds", async () => {
  await using home = await tempDir();
  const seeded = await runHerald({
    args: ["skills", "opt-in", "--sync", "--json"],
    home: home.path,
  });
  assert.equal(seeded.code, 0, seeded.stderr);
  // The home was seeded on first use (just before opt-in ran), so --sync finds it up to date.
  const { added, unchanged } = JSON.parse(seeded.stdout).seeded;
  const bundled = [...added, ...unchanged] as string[];
  assert.ok(bundled.includes("kanban-worker") && bundled.includes("code-review"), seeded.stdout);
  const review = join(home.path, "skills", "software-development", "code-review", "SKILL.md");
  await Deno.writeTextFile(review, skillMd("code-review", "My house rules."));
  await writeTree(home.path, { "skills/mine/SKILL.md": skillMd("mine") });

  const refused = await runHerald({ args: ["skills", "opt-out", "--remove"], home: home.path });
  assert.equal(refused.code, 2);
  assert.match(refused.stderr, /needs confirmation.*--yes/);
  assert.ok(!(await exists(join(home.path, OPT_OUT_MARKER))));

  const out = await runHerald({
    args: ["skills", "opt-out", "--remove", "--yes", "--json"],
    home: home.path,
  });
  assert.equal(out.code, 0, out.stderr);
  const result = JSON.parse(out.stdout);
  assert.deepEqual(
    [...result.removed].sort(),
    bundled.filter((name) => name !== "code-review").sort(),
  );
  assert.deepEqual(result.kept_modified, ["code-review"]);
  assert.ok(await exists(join(home.path, OPT_OUT_MARKER)));
  assert.match(await Deno.readTextFile(review), /My house rules/);
  assert.ok(await exists(join(home.path, "skills", "mine", "SKILL.md")));
  assert.ok(!(await exists(join(home.path, "skills", "kanban"))));

  const whileOut = await seedBundledSkills(home.path);
  assert.ok(whileOut.optedOut);
  assert.deepEqual(whileOut.added, []);
  assert.ok(!(await exists(join(home.path, "skills", "kanban"))));

  const back = await runHerald({ args: ["skills", "opt-in", "--sync", "--json"], home: home.path });
  assert.equal(back.code, 0, back.stderr);
  const report = JSON.parse(back.stdout).seeded;
  assert.deepEqual([...report.added].sort(), [...result.removed].sort());
  assert.deepEqual(report.kept_modified, ["code-review"]);
  assert.ok(!(await exists(join(home.path, OPT_OUT_MARKER))));
  assert.ok(await exists(join(home.path, "skills", "kanban", "kanban-worker", "SKILL.md")));
});

Deno.test("skills opt-out --remove asks on a terminal and changes nothing when the answer is no", async () => {
  await using home = await tempDir();
  const herald = async (argv: string[], answer?: string) => {
    const io = captureOutput();
    const code = await run(argv, {
      io,
      env: { HERALD_HOME: home.path, HOME: "/nonexistent" },
      terminal: {
        interactive: answer !== undefined,
        input: () => ReadableStream.from([new TextEncoder().encode(answer ?? "")]),
      },
    });
    return { code, stdout: io.stdout, stderr: io.stderr };
  };
  const seeded = await herald(["skills", "opt-in", "--sync", "--json"]);
  assert.equal(seeded.code, 0, seeded.stderr);
  const worker = join(home.path, "skills", "kanban", "kanban-worker", "SKILL.md");
  assert.ok(await exists(worker));

  const no = await herald(["skills", "opt-out", "--remove"], "n\n");
  assert.equal(no.code, 0, no.stderr);
  assert.match(no.stderr, /will be deleted:\n[\s\S]*kanban-worker[\s\S]*\[y\/N\] Nothing changed/);
  assert.ok(await exists(worker));
  assert.ok(!(await exists(join(home.path, OPT_OUT_MARKER))));

  const yes = await herald(["skills", "opt-out", "--remove"], "yes\n");
  assert.equal(yes.code, 0, yes.stderr);
  assert.match(yes.stdout, /Deleted: .*kanban-worker/);
  assert.ok(!(await exists(worker)));
  assert.ok(await exists(join(home.path, OPT_OUT_MARKER)));
});

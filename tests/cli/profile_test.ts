/**
 * `herald profile ...` in-process: creating (fresh, cloned, clone-all),
 * listing, switching the sticky default, deleting and describing profiles.
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { captureOutput, run } from "../../cli/app.ts";
import type { Terminal } from "../../cli/context.ts";
import { listBundledSkills } from "../../adapters/skills/mod.ts";
import { startModelServer } from "../fakes/model_server.ts";
import { tempDir } from "../_helpers.ts";

async function herald(home: string, argv: string[], terminal?: Terminal) {
  const io = captureOutput();
  const code = await run(argv, { io, env: { HERALD_HOME: home, HOME: "/nonexistent" }, terminal });
  return { code, stdout: io.stdout, stderr: io.stderr };
}

async function heraldJson(home: string, ...argv: string[]) {
  const result = await herald(home, [...argv, "--json"]);
  assert.equal(result.code, 0, result.stderr);
  return JSON.parse(result.stdout);
}

/** A terminal a person types `text` into. */
function typing(text: string): Terminal {
  return {
    interactive: true,
    input: () =>
      new ReadableStream({
        start(controller) {
          controller.enqueue(new TextEncoder().encode(text));
          controller.close();
        },
      }),
  };
}

function mode(path: string): number {
  return Deno.statSync(path).mode! & 0o777;
}

function exists(path: string): boolean {
  try {
    Deno.lstatSync(path);
    return true;
  } catch {
    return false;
  }
}

async function writeSkill(home: string, dir: string, name: string, description: string) {
  await Deno.mkdir(join(home, "skills", dir), { recursive: true });
  await Deno.writeTextFile(
    join(home, "skills", dir, "SKILL.md"),
    `---\nname: ${name}\ndescription: ${description}\n---\n# ${name}\n`,
  );
}

/** A default profile with settings, secrets, persona, skills, memories and history. */
async function populatedRoot(root: string): Promise<void> {
  assert.equal((await herald(root, ["config", "set", "agent.max_turns", "7"])).code, 0);
  assert.equal((await herald(root, ["config", "set", "OPENAI_API_KEY", "sk-1"])).code, 0);
  await Deno.writeTextFile(join(root, "SOUL.md"), "You are terse.\n");
  await writeSkill(root, "dev/git", "git", "Work with git repositories.");
  await Deno.writeTextFile(join(root, "skill-bundles", "backend.yaml"), "skills: [git]\n");
  await Deno.writeTextFile(join(root, "memories", "MEMORY.md"), "remember this\n");
  await Deno.writeTextFile(join(root, "memories", "USER.md"), "the user\n");
  await Deno.writeTextFile(join(root, "memories", "scratch.md"), "not for --clone\n");
  await Deno.writeTextFile(join(root, "notes.txt"), "extra file\n");
  for (const file of ["state.db", "state.db-wal", "state.db-shm", "kanban.db", "kanban.db-wal"]) {
    await Deno.writeTextFile(join(root, file), "data");
  }
  for (const dir of ["backups", "state-snapshots", "checkpoints"]) {
    await Deno.mkdir(join(root, dir));
    await Deno.writeTextFile(join(root, dir, "x"), "history");
  }
  await Deno.writeTextFile(join(root, "sessions", "s1.jsonl"), "{}\n");
  await Deno.writeTextFile(join(root, "request-dumps", "s1-1-1.json"), "{}");
  await Deno.writeTextFile(join(root, "logs", "agent.log"), "log\n");
  await Deno.writeTextFile(join(root, "cron", "jobs.json"), "[]");
}

Deno.test("a fresh profile gets its own empty home, a description and a sane layout", async () => {
  await using home = await tempDir();
  await populatedRoot(home.path);
  const created = await heraldJson(
    home.path,
    "profile",
    "create",
    " Coder ",
    "--description",
    "  Writes and reviews code. ",
  );
  const coder = join(home.path, "profiles", "coder");
  assert.equal(created.name, "coder");
  assert.equal(created.home, coder);
  assert.equal(created.clone, null);
  assert.equal(mode(coder), 0o700);
  assert.equal(mode(join(coder, ".env")), 0o600);
  assert.doesNotMatch(await Deno.readTextFile(join(coder, ".env")), /sk-1/);
  for (const absent of ["config.yaml", "SOUL.md", "memories/MEMORY.md", "skills/dev"]) {
    assert.equal(exists(join(coder, absent)), false, absent);
  }
  assert.equal(exists(join(coder, ".no-bundled-skills")), false);
  const shown = await heraldJson(home.path, "profile", "describe", "coder");
  assert.deepEqual(shown, {
    profile: "coder",
    status: "shown",
    description: "Writes and reviews code.",
    description_auto: false,
  });
  const leftovers = [...Deno.readDirSync(join(home.path, "profiles"))].map((e) => e.name);
  assert.deepEqual(leftovers, ["coder"]);
});

Deno.test("--clone copies config, secrets, persona, skills and the two memory files only", async () => {
  await using home = await tempDir();
  await populatedRoot(home.path);
  await heraldJson(home.path, "profile", "create", "work", "--clone");
  const work = join(home.path, "profiles", "work");
  assert.equal(
    (await herald(home.path, ["-p", "work", "config", "get", "agent.max_turns"])).stdout,
    "7\n",
  );
  assert.match(await Deno.readTextFile(join(work, ".env")), /OPENAI_API_KEY=sk-1/);
  assert.equal(mode(join(work, ".env")), 0o600);
  assert.equal(await Deno.readTextFile(join(work, "SOUL.md")), "You are terse.\n");
  assert.equal(await Deno.readTextFile(join(work, "memories", "MEMORY.md")), "remember this\n");
  assert.equal(await Deno.readTextFile(join(work, "memories", "USER.md")), "the user\n");
  assert.ok(exists(join(work, "skills", "dev", "git", "SKILL.md")));
  assert.ok(exists(join(work, "skill-bundles", "backend.yaml")));
  for (const absent of ["memories/scratch.md", "notes.txt", "state.db", "cron/jobs.json"]) {
    assert.equal(exists(join(work, absent)), false, absent);
  }
  assert.deepEqual([...Deno.readDirSync(join(work, "sessions"))], []);
  // The copy is independent of its source.
  assert.equal((await herald(home.path, ["config", "set", "agent.max_turns", "9"])).code, 0);
  assert.equal(
    (await herald(home.path, ["-p", "work", "config", "get", "agent.max_turns"])).stdout,
    "7\n",
  );
});

Deno.test("--clone copies from the profile selected with -p", async () => {
  await using home = await tempDir();
  await heraldJson(home.path, "profile", "create", "base");
  const base = join(home.path, "profiles", "base");
  await Deno.writeTextFile(join(base, "SOUL.md"), "base soul\n");
  const created = await heraldJson(
    home.path,
    "-p",
    "base",
    "profile",
    "create",
    "child",
    "--clone",
  );
  assert.equal(created.cloned_from, "base");
  assert.equal(
    await Deno.readTextFile(join(home.path, "profiles", "child", "SOUL.md")),
    "base soul\n",
  );
});

Deno.test("--clone-all copies everything but history, the other profiles and the shared board", async () => {
  await using home = await tempDir();
  await populatedRoot(home.path);
  await heraldJson(home.path, "profile", "create", "other");
  await Deno.writeTextFile(join(home.path, "profiles", "other", "marker"), "x");
  await Deno.mkdir(join(home.path, "herald-agent", "cli"), { recursive: true });
  await Deno.writeTextFile(join(home.path, "herald-agent", "cli", "main.ts"), "// the install\n");
  const created = await heraldJson(home.path, "profile", "create", "twin", "--clone-all");
  assert.equal(created.clone, "all");
  const twin = join(home.path, "profiles", "twin");
  assert.equal(await Deno.readTextFile(join(twin, "notes.txt")), "extra file\n");
  assert.equal(await Deno.readTextFile(join(twin, "memories", "scratch.md")), "not for --clone\n");
  assert.match(await Deno.readTextFile(join(twin, ".env")), /OPENAI_API_KEY=sk-1/);
  assert.equal(mode(join(twin, ".env")), 0o600);
  assert.ok(exists(join(twin, "skills", "dev", "git", "SKILL.md")));
  assert.ok(exists(join(twin, "config.yaml")));
  for (
    const absent of [
      "state.db",
      "state.db-wal",
      "state.db-shm",
      "kanban.db",
      "kanban.db-wal",
      "backups",
      "state-snapshots",
      "checkpoints",
      "profiles",
      "sessions/s1.jsonl",
      "request-dumps/s1-1-1.json",
      "logs/agent.log",
      "cron/jobs.json",
      "herald-agent",
    ]
  ) {
    assert.equal(exists(join(twin, absent)), false, absent);
  }
  // The usual folders are there, empty.
  for (const dir of ["sessions", "request-dumps", "logs", "cron"]) {
    assert.deepEqual([...Deno.readDirSync(join(twin, dir))], [], dir);
  }
  // The source is untouched.
  assert.ok(exists(join(home.path, "state.db")));
  assert.ok(exists(join(home.path, "sessions", "s1.jsonl")));
});

Deno.test("bundled skills are seeded into a new profile and into the default home on first use", async () => {
  await using dir = await tempDir();
  const root = join(dir.path, "fresh");
  assert.equal((await herald(root, ["config", "set", "agent.max_turns", "4"])).code, 0);
  const [first] = await heraldJson(root, "profile", "list");
  assert.ok(first.skill_count > 0, "the default home is seeded when it is created");
  const seeded = await heraldJson(root, "profile", "create", "seeded");
  const bare = await heraldJson(root, "profile", "create", "bare", "--no-skills");
  assert.equal(seeded.skill_count, first.skill_count);
  assert.equal(bare.skill_count, 0);
});

Deno.test("--no-skills writes the opt-out marker; --clone with --clone-all is refused", async () => {
  await using home = await tempDir();
  const created = await heraldJson(home.path, "profile", "create", "bare", "--no-skills");
  assert.equal(created.bundled_skills, false);
  assert.ok(exists(join(home.path, "profiles", "bare", ".no-bundled-skills")));
  const both = await herald(home.path, ["profile", "create", "x", "--clone", "--clone-all"]);
  assert.equal(both.code, 2);
  assert.match(both.stderr, /Choose one of --clone and --clone-all/);
  assert.equal(exists(join(home.path, "profiles", "x")), false);
  const reserved = await herald(home.path, ["profile", "create", "Default"]);
  assert.equal(reserved.code, 2);
  assert.match(reserved.stderr, /is reserved/);
});

Deno.test("a corrupt profile.yaml is read as no description with a warning and left alone", async () => {
  await using home = await tempDir();
  await heraldJson(home.path, "profile", "create", "work");
  const file = join(home.path, "profiles", "work", "profile.yaml");
  for (const corrupt of ["description: [\n", "- just\n- a list\n", "description_auto: maybe\n"]) {
    await Deno.writeTextFile(file, corrupt);
    for (const argv of [["profile", "describe", "work"], ["profile", "list"]]) {
      const result = await herald(home.path, [...argv, "--json"]);
      assert.equal(result.code, 0, result.stderr);
      assert.match(result.stderr, new RegExp(`herald: warning: ${file}: `));
      assert.equal(result.stderr.trimEnd().split("\n").length, 1, "one line, no stack trace");
    }
    const shown = await heraldJson(home.path, "profile", "show", "work");
    assert.equal(shown.description, "");
    assert.equal(await Deno.readTextFile(file), corrupt);
  }
  // Setting a description replaces the corrupt file.
  await heraldJson(home.path, "profile", "describe", "work", "--text", "Fixed.");
  const fixed = await herald(home.path, ["profile", "describe", "work", "--json"]);
  assert.equal(fixed.stderr, "");
  assert.equal(JSON.parse(fixed.stdout).description, "Fixed.");
});

Deno.test("describe --text sets a user-authored description and keeps other keys", async () => {
  await using home = await tempDir();
  await heraldJson(home.path, "profile", "create", "work");
  const file = join(home.path, "profiles", "work", "profile.yaml");
  await Deno.writeTextFile(file, "display_name: Work\ndescription: Old.\ndescription_auto: true\n");
  const set = await heraldJson(home.path, "-p", "work", "profile", "describe", "--text", "New.");
  assert.deepEqual(set, {
    profile: "work",
    status: "set",
    description: "New.",
    description_auto: false,
  });
  assert.match(await Deno.readTextFile(file), /display_name: Work/);
  const all = await heraldJson(home.path, "profile", "describe", "--all");
  assert.deepEqual(all.map((r: { profile: string }) => r.profile), ["default", "work"]);
  const text = await herald(home.path, ["profile", "describe", "work"]);
  assert.equal(text.stdout, "New.\n(user-authored)\n");
  const misuse: string[][] = [
    ["profile", "describe", "--text", "x", "--auto"],
    ["profile", "describe", "--overwrite"],
    ["profile", "describe", "work", "--all"],
    ["profile", "describe", "--all", "--text", "x"],
  ];
  for (const argv of misuse) assert.equal((await herald(home.path, argv)).code, 2, argv.join(" "));
  const missing = await herald(home.path, ["profile", "describe", "ghost"]);
  assert.equal(missing.code, 2);
  assert.match(missing.stderr, /Profile "ghost" does not exist/);
});

Deno.test("list and show report descriptions, skill counts and which profile is active", async () => {
  await using home = await tempDir();
  await heraldJson(home.path, "profile", "create", "work", "--description", "Work.", "--no-skills");
  const work = join(home.path, "profiles", "work");
  await writeSkill(work, "a", "alpha", "First.");
  await writeSkill(work, "cat/b", "beta", "Second.");
  await writeSkill(work, ".archive/old", "old", "Archived.");
  await Deno.mkdir(join(home.path, "profiles", ".hidden.creating-x"));
  const list = await heraldJson(home.path, "-p", "work", "profile", "list");
  assert.deepEqual(
    list.map((p: Record<string, unknown>) => [p.name, p.active, p.sticky, p.skill_count]),
    // The root home existed but was never seeded: its first use seeded it.
    [["default", false, false, (await listBundledSkills()).length], ["work", true, false, 2]],
  );
  assert.equal(list[1].description, "Work.");
  const shown = await heraldJson(home.path, "profile", "show", "work");
  assert.deepEqual(shown.skills, [
    { name: "alpha", description: "First." },
    { name: "beta", description: "Second." },
  ]);
  assert.equal(shown.active, false);
});

Deno.test("profile use makes a sticky default that other commands honour until use default", async () => {
  await using home = await tempDir();
  await heraldJson(home.path, "profile", "create", "work");
  const work = join(home.path, "profiles", "work");
  const missing = await herald(home.path, ["profile", "use", "ghost"]);
  assert.equal(missing.code, 2);
  assert.equal(exists(join(home.path, "active_profile")), false);

  assert.deepEqual(await heraldJson(home.path, "profile", "use", "Work"), { sticky: "work" });
  assert.equal(await Deno.readTextFile(join(home.path, "active_profile")), "work\n");
  assert.equal((await heraldJson(home.path, "config", "path")).config, join(work, "config.yaml"));
  assert.equal((await heraldJson(home.path, "-p", "default", "config", "path")).profile, "default");
  const list = await heraldJson(home.path, "profile", "list");
  assert.deepEqual(
    list.map((p: Record<string, unknown>) => [p.name, p.active, p.sticky]),
    [["default", false, false], ["work", true, true]],
  );
  assert.equal((await herald(home.path, ["config", "set", "agent.max_turns", "3"])).code, 0);
  assert.equal(
    (await herald(home.path, ["-p", "work", "config", "get", "agent.max_turns"])).stdout,
    "3\n",
  );

  assert.deepEqual(await heraldJson(home.path, "profile", "use", "default"), { sticky: null });
  assert.equal(exists(join(home.path, "active_profile")), false);
  assert.equal((await heraldJson(home.path, "config", "path")).profile, "default");
});

Deno.test("a sticky default that names a missing or invalid profile says how to fix it", async () => {
  await using home = await tempDir();
  const file = join(home.path, "active_profile");
  await Deno.writeTextFile(file, "ghost\n");
  const missing = await herald(home.path, ["config", "path"]);
  assert.equal(missing.code, 1);
  assert.equal(
    missing.stderr,
    `herald: ${file} names profile "ghost", which does not exist; run \`herald profile use ` +
      "default` to go back to the default profile, or `herald profile use <name>` to pick another\n",
  );
  const list = await herald(home.path, ["profile", "list"]);
  assert.equal(list.code, 0);
  assert.match(list.stderr, /warning: .*names profile "ghost"/);
  assert.equal((await herald(home.path, ["-p", "default", "config", "path"])).code, 0);

  await Deno.writeTextFile(file, "../../etc\n");
  const invalid = await herald(home.path, ["config", "path"]);
  assert.equal(invalid.code, 1);
  assert.match(invalid.stderr, /names "\.\.\/\.\.\/etc", which is not a valid profile name/);
  assert.equal((await herald(home.path, ["profile", "use", "default"])).code, 0);
  assert.equal((await herald(home.path, ["config", "path"])).code, 0);
});

Deno.test("delete asks for the typed name, refuses without a terminal, and spares default", async () => {
  await using home = await tempDir();
  await heraldJson(home.path, "profile", "create", "work");
  const work = join(home.path, "profiles", "work");

  const noTerminal = await herald(home.path, ["profile", "delete", "work"]);
  assert.equal(noTerminal.code, 2);
  assert.match(noTerminal.stderr, /without confirmation.*--yes/);
  assert.ok(exists(work));

  const wrong = await herald(home.path, ["profile", "delete", "work"], typing("wrok\n"));
  assert.equal(wrong.code, 1);
  assert.match(wrong.stderr, /Type the profile name to confirm/);
  assert.match(wrong.stderr, /was not deleted/);
  assert.ok(exists(work));

  const silent = await herald(home.path, ["profile", "delete", "work"], typing(""));
  assert.equal(silent.code, 1);
  assert.ok(exists(work));

  for (const name of ["default", "Default"]) {
    const result = await herald(home.path, ["profile", "delete", name, "--yes"]);
    assert.equal(result.code, 2);
    assert.match(result.stderr, /The default profile cannot be deleted/);
  }
  const ghost = await herald(home.path, ["profile", "delete", "ghost", "--yes"]);
  assert.equal(ghost.code, 2);
  assert.match(ghost.stderr, /Profile "ghost" does not exist/);

  const typed = await herald(home.path, ["profile", "delete", "work"], typing("work\n"));
  assert.equal(typed.code, 0, typed.stderr);
  assert.equal(exists(work), false);
  assert.deepEqual([...Deno.readDirSync(join(home.path, "profiles"))], []);
});

Deno.test("deleting the sticky profile with --yes also clears active_profile", async () => {
  await using home = await tempDir();
  await heraldJson(home.path, "profile", "create", "work");
  await heraldJson(home.path, "profile", "use", "work");
  const deleted = await heraldJson(home.path, "profile", "delete", "work", "--yes");
  assert.equal(deleted.cleared_sticky, true);
  assert.equal(exists(join(home.path, "active_profile")), false);
  assert.equal((await heraldJson(home.path, "config", "path")).profile, "default");
});

Deno.test("describe --auto with no model configured fails with the auxiliary error and writes nothing", async () => {
  await using home = await tempDir();
  await heraldJson(home.path, "profile", "create", "work");
  const result = await herald(home.path, ["profile", "describe", "work", "--auto"]);
  assert.equal(result.code, 2);
  assert.match(result.stderr, /^herald: No auxiliary client is configured for profile_describer/);
  assert.equal(exists(join(home.path, "profiles", "work", "profile.yaml")), false);
  const all = await herald(home.path, ["profile", "describe", "--all", "--auto", "--json"]);
  assert.equal(all.code, 2);
  const results = JSON.parse(all.stdout);
  assert.deepEqual(
    results.map((r: { status: string; error?: { code: string } }) => [r.status, r.error?.code]),
    [["failed", "model_not_configured"], ["failed", "model_not_configured"]],
  );
});

Deno.test("describe --auto --all generates where it may and reports kept and failed profiles", async () => {
  await using home = await tempDir();
  await using server = await startModelServer({
    replies: [{ text: "Generates things for default." }, { status: 400, message: "bad" }],
  });
  await Deno.writeTextFile(
    join(home.path, "config.yaml"),
    `model:\n  provider: custom\n  base_url: ${server.openaiBaseUrl}\n  default: m\n`,
  );
  await heraldJson(home.path, "profile", "create", "mine", "--clone", "--description", "Mine.");
  await heraldJson(home.path, "profile", "create", "later", "--clone");
  const result = await herald(home.path, ["profile", "describe", "--all", "--auto", "--json"]);
  assert.equal(result.code, 1, result.stderr);
  const rows = JSON.parse(result.stdout);
  assert.deepEqual(rows.map((r: { profile: string; status: string }) => [r.profile, r.status]), [
    ["default", "generated"],
    ["later", "failed"],
    ["mine", "kept"],
  ]);
  assert.equal(rows[0].description, "Generates things for default.");
  assert.equal(server.requests.length, 2);
  assert.match(result.stderr, /Could not describe 1 of 3 profiles \(later\)/);
});

Deno.test("describe --auto with an empty answer is an error and writes nothing", async () => {
  await using home = await tempDir();
  await using server = await startModelServer({
    replies: [{ text: "  <think>nothing to say</think>\n" }],
  });
  await Deno.writeTextFile(
    join(home.path, "config.yaml"),
    `model:\n  provider: custom\n  base_url: ${server.openaiBaseUrl}\n  default: m\n`,
  );
  const result = await herald(home.path, ["profile", "describe", "--auto"]);
  assert.equal(result.code, 1);
  assert.match(result.stderr, /returned an empty description for profile "default"; nothing/);
  assert.equal(exists(join(home.path, "profile.yaml")), false);
});

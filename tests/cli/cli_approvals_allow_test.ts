/**
 * `herald approvals allow|remove <rule>`: rule keys checked against the
 * dangerous-command table and the write guard's rule, written to
 * `approvals.allow` under config.yaml's lock with the rest of the file kept.
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import YAML from "yaml";
import { captureOutput, run } from "../../cli/app.ts";
import { checkAllowRule } from "../../core/usecases/approvals.ts";
import { tempDir } from "../_helpers.ts";
import { runHerald } from "../e2e/_herald.ts";

async function herald(home: string, ...argv: string[]) {
  const io = captureOutput();
  const code = await run(argv, { io, env: { HERALD_HOME: home, HOME: "/nonexistent" } });
  return { code, stdout: io.stdout, stderr: io.stderr };
}

async function allowList(home: string): Promise<unknown> {
  return YAML.parse(await Deno.readTextFile(join(home, "config.yaml"))).approvals.allow;
}

Deno.test("approvals allow adds a rule key once, keeping comments; remove takes it out", async () => {
  await using home = await tempDir();
  await Deno.writeTextFile(
    join(home.path, "config.yaml"),
    "# my settings\napprovals:\n  timeout: 45 # seconds\n",
  );
  const added = await herald(home.path, "approvals", "allow", "rm_recursive:./build/");
  assert.equal(added.code, 0, added.stderr);
  assert.match(
    added.stdout,
    /^Allowed rm_recursive:build always \(approvals\.allow in .*config\.yaml\)/,
  );
  const json = await herald(
    home.path,
    "approvals",
    "allow",
    "write_outside_workdir:/tmp/",
    "--json",
  );
  assert.equal(json.code, 0, json.stderr);
  assert.deepEqual(JSON.parse(json.stdout), {
    profile: "default",
    file: join(home.path, "config.yaml"),
    rule: "write_outside_workdir:/tmp",
    changed: true,
  });
  assert.equal((await herald(home.path, "approvals", "allow", "git_reset_hard")).code, 0);
  const again = await herald(home.path, "approvals", "allow", "rm_recursive:build", "--json");
  assert.equal(JSON.parse(again.stdout).changed, false);
  assert.deepEqual(await allowList(home.path), [
    "rm_recursive:build",
    "write_outside_workdir:/tmp",
    "git_reset_hard",
  ]);
  const text = await Deno.readTextFile(join(home.path, "config.yaml"));
  assert.match(text, /^# my settings\n/);
  assert.match(text, /timeout: 45 # seconds/);

  const listed = await herald(home.path, "approvals", "list", "--json");
  assert.deepEqual(JSON.parse(listed.stdout).allow, await allowList(home.path));

  const removed = await herald(home.path, "approvals", "remove", "write_outside_workdir:/tmp");
  assert.equal(removed.code, 0, removed.stderr);
  assert.match(removed.stdout, /^Removed write_outside_workdir:\/tmp from approvals\.allow/);
  assert.deepEqual(await allowList(home.path), ["rm_recursive:build", "git_reset_hard"]);
  assert.match(await Deno.readTextFile(join(home.path, "config.yaml")), /timeout: 45 # seconds/);

  const absent = await herald(home.path, "approvals", "remove", "write_outside_workdir:/tmp");
  assert.equal(absent.code, 2);
  assert.match(absent.stderr, /"write_outside_workdir:\/tmp" is not in approvals\.allow/);
  assert.match(absent.stderr, /herald approvals list/);
});

Deno.test("an unknown or hardline rule is a usage error naming the valid rules; nothing is written", async () => {
  await using home = await tempDir();
  for (
    const [rule, pattern] of [
      [
        "rm_recursiv:build",
        /no rule named "rm_recursiv"\. Valid rules: rm_recursive:<targets>/,
      ],
      ["rm_root", /rm_root is refused outright \(hardline\)/],
      ["fork_bomb", /refused outright/],
      ["git_reset_hard:main", /git_reset_hard takes no targets/],
      ["rm_recursive:", /give the target it covers after "rm_recursive:"/],
      ["rm_recursive", /give the target it covers after "rm_recursive:", as rm_recursive:<dir>/],
      ["rm_recursive:./", /as rm_recursive:<dir> \(for example rm_recursive:build\)/],
      ["git_push_force", /as git_push_force:<remote> <branch>/],
      ["write_outside_workdir", /needs the absolute folder/],
      ["write_outside_workdir:tmp", /needs the absolute folder/],
      ["", /no rule named ""/],
    ] as const
  ) {
    const result = await herald(home.path, "approvals", "allow", rule);
    assert.equal(result.code, 2, `${rule}: ${result.stderr}`);
    assert.match(result.stderr, pattern, rule);
  }
  const listed = await herald(home.path, "approvals", "allow", "nope");
  assert.match(listed.stderr, /write_outside_workdir:<absolute folder>/);
  assert.match(listed.stderr, /git_reset_hard/);
  await assert.rejects(Deno.stat(join(home.path, "config.yaml")), Deno.errors.NotFound);
  const none = await herald(home.path, "approvals", "remove", "git_reset_hard");
  assert.equal(none.code, 2);
  assert.match(none.stderr, /not in approvals\.allow/);
});

Deno.test("mkfs is allowable with targets (its scoped rule asks) though a disk target is hardline", () => {
  assert.equal(checkAllowRule(" mkfs:disk.img "), "mkfs:disk.img");
  assert.throws(() => checkAllowRule("find_delete"), /"find_delete" alone would cover only/);
  assert.equal(checkAllowRule("git_push_force:origin  main main"), "git_push_force:origin main");
  assert.equal(checkAllowRule("write_outside_workdir:/"), "write_outside_workdir:/");
});

Deno.test("remove reads the rule as allow does, and still removes an old entry as written", async () => {
  await using home = await tempDir();
  await Deno.writeTextFile(
    join(home.path, "config.yaml"),
    "approvals:\n  allow:\n    - rm_recursive\n    - rm_recursive:build\n    - git_reset_hard\n",
  );
  const normal = await herald(home.path, "approvals", "remove", "rm_recursive:./build/", "--json");
  assert.equal(normal.code, 0, normal.stderr);
  assert.equal(JSON.parse(normal.stdout).rule, "rm_recursive:build");
  assert.deepEqual(await allowList(home.path), ["rm_recursive", "git_reset_hard"]);
  const old = await herald(home.path, "approvals", "remove", " rm_recursive ");
  assert.equal(old.code, 0, old.stderr);
  assert.match(old.stdout, /^Removed rm_recursive from approvals\.allow/);
  assert.deepEqual(await allowList(home.path), ["git_reset_hard"]);
});

Deno.test("allows from several processes at once all land in approvals.allow", async () => {
  await using home = await tempDir();
  const rules = ["git_reset_hard", "shutdown", "rm_recursive:a", "rm_recursive:b", "mkfs:x.img"];
  const runs = await Promise.all(
    rules.map((rule) => runHerald({ home: home.path, args: ["approvals", "allow", rule] })),
  );
  for (const result of runs) assert.equal(result.code, 0, result.stderr);
  assert.deepEqual(((await allowList(home.path)) as string[]).toSorted(), rules.toSorted());
});

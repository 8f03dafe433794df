/**
 * `herald profile create <name> --launcher` writes a `<name>` command
 * beside the installed herald launcher that runs `herald -p <name>`;
 * `profile delete` removes it. Refused, before the profile is created, when
 * no herald launcher is installed, when a file Herald did not write has
 * that name, or when the name is already a command on the PATH.
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { captureOutput, run } from "../../cli/app.ts";
import { installLauncher, readLauncher } from "../../adapters/install/launcher.ts";
import { REPO_ROOT, tempDir } from "../_helpers.ts";

interface Setup {
  root: string;
  bin: string;
  env: Record<string, string>;
}

async function setup(dir: string, install = true): Promise<Setup> {
  const bin = join(dir, "bin");
  await Deno.mkdir(bin);
  if (install) {
    await installLauncher(join(bin, "herald"), {
      kind: "herald",
      deno: Deno.execPath(),
      checkout: REPO_ROOT,
    });
  }
  const root = join(dir, "home");
  return {
    root,
    bin,
    env: { HERALD_HOME: root, HOME: dir, PATH: `${bin}:/usr/bin:/bin` },
  };
}

async function herald(s: Setup, ...argv: string[]) {
  const io = captureOutput();
  const code = await run(argv, { io, env: s.env });
  return { code, stdout: io.stdout, stderr: io.stderr };
}

Deno.test("profile create --launcher writes a command that runs herald -p <name>", async () => {
  await using dir = await tempDir();
  const s = await setup(dir.path);
  const created = await herald(s, "profile", "create", "Work", "--launcher");
  assert.equal(created.code, 0, created.stderr);
  const path = join(s.bin, "work");
  assert.match(
    created.stdout,
    new RegExp(`^Wrote ${path}: \`work \\.\\.\\.\` runs \`herald -p work`, "m"),
  );
  assert.deepEqual(await readLauncher(path), { state: "ours", kind: "profile", profile: "work" });
  assert.equal(Deno.statSync(path).mode! & 0o777, 0o755);

  const ran = await new Deno.Command(path, {
    args: ["config", "path", "--json"],
    env: { ...Deno.env.toObject(), HERALD_HOME: s.root },
    stdout: "piped",
    stderr: "piped",
  }).output();
  const stderr = new TextDecoder().decode(ran.stderr);
  assert.equal(ran.code, 0, stderr);
  const paths = JSON.parse(new TextDecoder().decode(ran.stdout));
  assert.equal(paths.config, join(s.root, "profiles", "work", "config.yaml"));

  const deleted = await herald(s, "profile", "delete", "work", "--yes");
  assert.equal(deleted.code, 0, deleted.stderr);
  assert.match(deleted.stdout, new RegExp(`^Removed its launcher ${path}$`, "m"));
  assert.deepEqual(await readLauncher(path), { state: "missing" });
});

Deno.test("profile create --launcher --json names the launcher; delete --json too", async () => {
  await using dir = await tempDir();
  const s = await setup(dir.path);
  const created = JSON.parse(
    (await herald(s, "profile", "create", "ops", "--launcher", "--json")).stdout,
  );
  assert.equal(created.name, "ops");
  assert.equal(created.launcher, join(s.bin, "ops"));
  const deleted = JSON.parse((await herald(s, "profile", "delete", "ops", "-y", "--json")).stdout);
  assert.equal(deleted.launcher_removed, join(s.bin, "ops"));
});

Deno.test("without an installed herald launcher, --launcher says to run deno task install first", async () => {
  await using dir = await tempDir();
  const s = await setup(dir.path, false);
  const result = await herald(s, "profile", "create", "work", "--launcher");
  assert.equal(result.code, 1);
  assert.match(result.stderr, /^herald: No herald launcher is installed .*run `deno task install`/);
  assert.throws(() => Deno.statSync(join(s.root, "profiles", "work")), Deno.errors.NotFound);
});

Deno.test("--launcher refuses a file it did not write and a name that is already a command", async () => {
  await using dir = await tempDir();
  const s = await setup(dir.path);
  await Deno.writeTextFile(join(s.bin, "mine"), "#!/bin/sh\necho mine\n");
  const taken = await herald(s, "profile", "create", "mine", "--launcher");
  assert.equal(taken.code, 2);
  assert.match(
    taken.stderr,
    new RegExp(`^herald: Cannot write a launcher at ${join(s.bin, "mine")}: it is a file Herald`),
  );
  assert.equal(await Deno.readTextFile(join(s.bin, "mine")), "#!/bin/sh\necho mine\n");

  const tools = join(dir.path, "tools");
  await Deno.mkdir(tools);
  await Deno.writeTextFile(join(tools, "deploy"), "#!/bin/sh\n", { mode: 0o755 });
  s.env.PATH = `${s.env.PATH}:${tools}`;
  const shadow = await herald(s, "profile", "create", "deploy", "--launcher");
  assert.equal(shadow.code, 2);
  assert.equal(
    shadow.stderr,
    `herald: "deploy" is already a command (${join(tools, "deploy")}); a launcher of that ` +
      "name would hide it. Choose another profile name or create it without --launcher\n",
  );
  const builtin = await herald(s, "profile", "create", "cd", "--launcher");
  assert.equal(builtin.code, 2);
  assert.match(builtin.stderr, /"cd" is already a command \(a shell word\)/);
  for (const name of ["mine", "deploy", "cd"]) {
    assert.throws(() => Deno.statSync(join(s.root, "profiles", name)), Deno.errors.NotFound, name);
  }
  // Without --launcher the same names are fine.
  assert.equal((await herald(s, "profile", "create", "deploy")).code, 0);
});

Deno.test("profile delete leaves a file of the profile's name that Herald did not write", async () => {
  await using dir = await tempDir();
  const s = await setup(dir.path);
  assert.equal((await herald(s, "profile", "create", "lab")).code, 0);
  await Deno.writeTextFile(join(s.bin, "lab"), "#!/bin/sh\n");
  const deleted = await herald(s, "profile", "delete", "lab", "-y");
  assert.equal(deleted.code, 0, deleted.stderr);
  assert.doesNotMatch(deleted.stdout, /launcher/);
  assert.equal(await Deno.readTextFile(join(s.bin, "lab")), "#!/bin/sh\n");
});

Deno.test("after a release install the link to the binary counts as herald: the profile command runs it with -p", async () => {
  await using dir = await tempDir();
  const s = await setup(dir.path, false);
  // What installers/install.sh leaves for release binaries: the binary in <install>/bin,
  // install-stamp.json and .install_method "binary" in <install>, a link on the PATH.
  const install = join(dir.path, "install");
  await Deno.mkdir(join(install, "bin"), { recursive: true });
  const binary = join(install, "bin", "herald");
  await Deno.writeTextFile(binary, '#!/bin/sh\necho "release herald: $*"\n', { mode: 0o755 });
  await Deno.chmod(binary, 0o755);
  await Deno.writeTextFile(join(install, "install-stamp.json"), '{"commit":"1234567"}\n');
  await Deno.writeTextFile(join(install, ".install_method"), "binary\n");
  await Deno.symlink(binary, join(s.bin, "herald"));

  const created = await herald(s, "profile", "create", "work", "--launcher");
  assert.equal(created.code, 0, created.stderr);
  const ran = await new Deno.Command(join(s.bin, "work"), { args: ["status"], stdout: "piped" })
    .output();
  assert.equal(new TextDecoder().decode(ran.stdout), "release herald: -p work status\n");

  // A link to any other program is not Herald's.
  await Deno.remove(join(install, ".install_method"));
  const refused = await herald(s, "profile", "create", "ops", "--launcher");
  assert.equal(refused.code, 1);
  assert.match(refused.stderr, /No herald launcher is installed/);
});

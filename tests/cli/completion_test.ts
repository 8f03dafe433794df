/**
 * `herald completion bash|zsh|fish`: scripts generated from the command
 * tree. The bash script is sourced in a real bash and its function called
 * as bash would on Tab (COMP_WORDS/COMP_CWORD); profile names come from a
 * real `herald` launcher on the PATH.
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { buildProgram, captureOutput, run } from "../../cli/app.ts";
import { completionTree } from "../../cli/commands/completion.ts";
import type { CliContext } from "../../cli/context.ts";
import { installLauncher } from "../../adapters/install/launcher.ts";
import { REPO_ROOT, tempDir } from "../_helpers.ts";

async function herald(home: string, ...argv: string[]) {
  const io = captureOutput();
  const code = await run(argv, { io, env: { HERALD_HOME: home, HOME: "/nonexistent" } });
  return { code, stdout: io.stdout, stderr: io.stderr };
}

async function available(shell: string): Promise<boolean> {
  try {
    await new Deno.Command(shell, { args: ["-c", "true"], stdout: "null", stderr: "null" })
      .output();
    return true;
  } catch {
    return false;
  }
}

/** Sources `script` in bash, "presses Tab" after `words`, and returns the candidates. */
async function bashComplete(
  script: string,
  words: string[],
  env: Record<string, string> = {},
  cwd?: string,
): Promise<string[]> {
  const quoted = words.map((word) => `'${word.replaceAll("'", `'\\''`)}'`).join(" ");
  const driver = `source "$1"\nCOMP_WORDS=(${quoted})\nCOMP_CWORD=${words.length - 1}\n` +
    `_herald\nprintf '%s\\n' "\${COMPREPLY[@]}"\n`;
  const output = await new Deno.Command("bash", {
    args: ["--norc", "--noprofile", "-c", driver, "bash", script],
    env: { PATH: "/usr/bin:/bin", ...env },
    cwd,
    stdout: "piped",
    stderr: "piped",
  }).output();
  const stderr = new TextDecoder().decode(output.stderr);
  assert.equal(output.code, 0, stderr);
  assert.equal(stderr, "");
  return new TextDecoder().decode(output.stdout).split("\n").filter((line) => line !== "");
}

Deno.test("the tree lists every command, its subcommands and options, and which take a value", () => {
  const program = buildProgram(captureOutput(), () => ({}) as CliContext);
  const nodes = completionTree(program);
  const root = nodes.find((node) => node.path === "")!;
  for (const command of ["chat", "sessions", "config", "profile", "completion", "help"]) {
    assert.ok(root.subcommands.includes(command), command);
  }
  const list = nodes.find((node) => node.path === "sessions list")!;
  assert.ok(list.options.includes("--json"));
  assert.ok(list.options.includes("--profile"));
  const create = nodes.find((node) => node.path === "profile create")!;
  assert.ok(create.options.includes("--launcher"));
  assert.ok(create.valueOptions.includes("--description"));
  assert.ok(!create.valueOptions.includes("--launcher"));
  assert.ok(nodes.every((node) => node.valueOptions.includes("-C")));
  const completion = nodes.find((node) => node.path === "completion")!;
  assert.ok(!completion.options.includes("--list-profiles"), "the hidden option stays hidden");
});

Deno.test("bash: herald ses<TAB> completes to sessions, and subcommands and options follow", async () => {
  await using dir = await tempDir();
  const generated = await herald(dir.path, "completion", "bash");
  assert.equal(generated.code, 0, generated.stderr);
  const script = join(dir.path, "herald.bash");
  await Deno.writeTextFile(script, generated.stdout);

  assert.deepEqual(await bashComplete(script, ["herald", "ses"]), ["sessions"]);
  assert.deepEqual(await bashComplete(script, ["herald", "sessions", "de"]), ["delete"]);
  assert.deepEqual(await bashComplete(script, ["herald", "-C", "/tmp", "sessions", "li"]), [
    "list",
  ]);
  assert.deepEqual(
    await bashComplete(script, ["herald", "profile", "create", "x", "--la"]),
    ["--launcher"],
  );
  const options = await bashComplete(script, ["herald", "sessions", "list", "--"]);
  assert.ok(options.includes("--json") && options.includes("--profile"), options.join(" "));
  // The word after an option that takes a value is not read as a command.
  assert.deepEqual(await bashComplete(script, ["herald", "-p", "chat", "ses"]), ["sessions"]);
  assert.deepEqual(
    await bashComplete(script, ["herald", "profile", "create", "--description", ""]),
    [],
  );

  await Deno.mkdir(join(dir.path, "projects", "alpha"), { recursive: true });
  await Deno.writeTextFile(join(dir.path, "projects", "afile"), "");
  assert.deepEqual(
    await bashComplete(script, ["herald", "-C", "projects/a"], {}, dir.path),
    ["projects/alpha"],
  );
});

Deno.test("bash: herald -p <TAB> lists the profiles of the home through herald itself", async () => {
  await using dir = await tempDir();
  const home = join(dir.path, "home");
  assert.equal((await herald(home, "profile", "create", "work")).code, 0);
  assert.equal((await herald(home, "profile", "create", "writer")).code, 0);
  const bin = join(dir.path, "bin");
  await installLauncher(join(bin, "herald"), {
    kind: "herald",
    deno: Deno.execPath(),
    checkout: REPO_ROOT,
  });
  const script = join(dir.path, "herald.bash");
  await Deno.writeTextFile(script, (await herald(home, "completion", "bash")).stdout);
  const env = { ...Deno.env.toObject(), PATH: `${bin}:/usr/bin:/bin`, HERALD_HOME: home };
  assert.deepEqual(await bashComplete(script, ["herald", "-p", ""], env), [
    "default",
    "work",
    "writer",
  ]);
  assert.deepEqual(await bashComplete(script, ["herald", "sessions", "--profile", "wr"], env), [
    "writer",
  ]);
  const listed = await herald(home, "completion", "--list-profiles");
  assert.equal(listed.stdout, "default\nwork\nwriter\n");
});

Deno.test("zsh and fish scripts name every command and register the completion", async () => {
  await using dir = await tempDir();
  const zsh = await herald(dir.path, "completion", "zsh");
  assert.equal(zsh.code, 0);
  assert.match(zsh.stdout, /^#compdef herald\n/);
  assert.match(zsh.stdout, /compdef _herald herald/);
  assert.match(zsh.stdout, /"sessions"\) echo "list search show/);
  const fish = await herald(dir.path, "completion", "fish");
  assert.equal(fish.code, 0);
  assert.match(fish.stdout, /^complete -c herald -n '__herald_at ""' -a sessions -d '.+'$/m);
  assert.match(
    fish.stdout,
    /^complete -c herald -n '__herald_at "sessions list"' -l json -d 'print JSON'$/m,
  );
  assert.match(fish.stdout, /herald completion --list-profiles/);
});

const HAS_ZSH = await available("zsh");
const HAS_FISH = await available("fish");

Deno.test({
  name: "zsh: the completion function walks to the command and offers its words",
  ignore: !HAS_ZSH,
  fn: zshWalk,
});

async function zshWalk(): Promise<void> {
  await using dir = await tempDir();
  const script = join(dir.path, "_herald");
  await Deno.writeTextFile(script, (await herald(dir.path, "completion", "zsh")).stdout);
  // compadd and _files stand in for the completion system; zsh itself filters by prefix.
  const driver = join(dir.path, "drive.zsh");
  await Deno.writeTextFile(
    driver,
    [
      "compdef() { :; }",
      'compadd() { if [[ "$1" == -a ]]; then print -l -- ${(P)2}; else shift; print -l -- "$@"; fi; }',
      '_files() { print -- "_files $*"; }',
      `source ${script}`,
      'words=("${(@)argv}")',
      "CURRENT=${#words}",
      "_herald",
    ].join("\n"),
  );
  const complete = async (...words: string[]) => {
    const output = await new Deno.Command("zsh", {
      args: ["-f", driver, ...words],
      stdout: "piped",
      stderr: "piped",
    }).output();
    assert.equal(output.code, 0, new TextDecoder().decode(output.stderr));
    return new TextDecoder().decode(output.stdout).split("\n").filter((line) => line !== "");
  };
  assert.ok((await complete("herald", "ses")).includes("sessions"));
  const subs = await complete("herald", "-p", "x", "sessions", "li");
  assert.ok(subs.includes("list") && !subs.includes("sessions"), subs.join(" "));
  assert.ok((await complete("herald", "sessions", "list", "--l")).includes("--limit"));
  assert.deepEqual(await complete("herald", "-C", "/t"), ["_files -/"]);
}

Deno.test({
  name: "fish: complete -C offers the commands, subcommands and options after a path",
  ignore: !HAS_FISH,
  fn: fishComplete,
});

async function fishComplete(): Promise<void> {
  await using dir = await tempDir();
  const script = join(dir.path, "herald.fish");
  await Deno.writeTextFile(script, (await herald(dir.path, "completion", "fish")).stdout);
  const complete = async (line: string) => {
    const output = await new Deno.Command("fish", {
      args: ["--no-config", "-c", `source ${script}; complete -C '${line}'`],
      stdout: "piped",
      stderr: "piped",
    }).output();
    const stderr = new TextDecoder().decode(output.stderr);
    assert.equal(output.code, 0, stderr);
    assert.equal(stderr, "");
    return new TextDecoder().decode(output.stdout).split("\n").filter((l) => l !== "")
      .map((l) => l.split("\t")[0]);
  };
  assert.deepEqual(await complete("herald ses"), ["sessions"]);
  assert.deepEqual(await complete("herald -p x sessions li"), ["list"]);
  assert.ok((await complete("herald profile create x --")).includes("--launcher"));
}

Deno.test("completion without a known shell is a usage error naming the choices", async () => {
  await using dir = await tempDir();
  const none = await herald(dir.path, "completion");
  assert.equal(none.code, 2);
  assert.equal(none.stderr, "herald: Name a shell: herald completion bash|zsh|fish\n");
  const tcsh = await herald(dir.path, "completion", "tcsh");
  assert.equal(tcsh.code, 2);
  assert.equal(tcsh.stderr, 'herald: Unknown shell "tcsh"; choose one of bash, zsh, fish\n');
});

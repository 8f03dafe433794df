/**
 * `herald` on the PATH, end to end: from an empty HOME, `deno task install`
 * writes the launcher; from another folder, `herald "read notes.txt"` reads
 * that folder's file (the scripted model asks for read_file and the tool
 * result it gets back carries the file's text); `deno task herald` started
 * from elsewhere works in the caller's folder too; `deno task uninstall`
 * removes the launcher.
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { type RecordedRequest, startModelServer } from "../fakes/model_server.ts";
import { denoDir, REPO_ROOT, tempDir } from "../_helpers.ts";
import { configureModel } from "./_herald.ts";

interface Ran {
  code: number;
  stdout: string;
  stderr: string;
}

async function exec(
  command: string,
  args: string[],
  cwd: string,
  env: Record<string, string>,
): Promise<Ran> {
  const output = await new Deno.Command(command, {
    args,
    cwd,
    env,
    clearEnv: true,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).output();
  const decode = (bytes: Uint8Array) => new TextDecoder().decode(bytes);
  return { code: output.code, stdout: decode(output.stdout), stderr: decode(output.stderr) };
}

/** The text of the tool results in a request the model server received. */
function toolResults(request: RecordedRequest): string[] {
  const messages = (request.body as { messages: { role: string; content: unknown }[] }).messages;
  return messages.filter((m) => m.role === "tool").map((m) => String(m.content));
}

Deno.test("deno task install, then herald in another folder reads that folder's file; uninstall removes it", async () => {
  await using dir = await tempDir();
  const home = join(dir.path, "home");
  const work = join(dir.path, "work");
  const bin = join(dir.path, "bin");
  await Deno.mkdir(home);
  await Deno.mkdir(join(work, "sub"), { recursive: true });
  await Deno.writeTextFile(join(work, "notes.txt"), "the launch code is 4242\n");
  // The user's own project: its deno.json must not change how Herald resolves its imports.
  await Deno.writeTextFile(
    join(work, "deno.json"),
    JSON.stringify({ imports: { commander: "npm:commander@0.0.1", zod: "npm:zod@0.0.1" } }),
  );
  const env = {
    HOME: home,
    PATH: "/usr/bin:/bin",
    SHELL: "/bin/bash",
    DENO_DIR: await denoDir(),
    NO_COLOR: "1",
  };
  const deno = Deno.execPath();
  const config = join(REPO_ROOT, "deno.json");

  // Started from `dir`, so the relative --dir is the caller's `bin`, not the checkout's.
  const installed = await exec(
    deno,
    ["task", "--config", config, "install", "--dir", "bin"],
    dir.path,
    env,
  );
  assert.equal(installed.code, 0, installed.stderr);
  const launcher = join(bin, "herald");
  assert.match(installed.stdout, new RegExp(`^Wrote ${launcher}: runs Herald from ${REPO_ROOT} `));
  assert.match(installed.stdout, /Add this line to ~\/\.bashrc, then open a new terminal:\n/);
  assert.ok(installed.stdout.includes(`\n  export PATH="${bin}:$PATH"\n`), installed.stdout);
  assert.equal(Deno.statSync(launcher).mode! & 0o777, 0o755);

  await using server = await startModelServer({
    replies: [
      { toolCalls: [{ name: "read_file", arguments: { path: "notes.txt" } }] },
      { text: "The code is 4242." },
      { toolCalls: [{ name: "read_file", arguments: { path: "notes.txt" } }] },
      { text: "Still 4242." },
    ],
  });
  await configureModel(join(home, ".herald"), server.openaiBaseUrl);

  const asked = await exec(launcher, ["read notes.txt"], work, env);
  assert.equal(asked.code, 0, asked.stderr);
  assert.equal(asked.stdout, "The code is 4242.\n");
  assert.equal(server.requests.length, 2);
  const [result] = toolResults(server.requests[1]);
  assert.ok(result.includes("the launch code is 4242"), result);
  assert.deepEqual(
    (await Array.fromAsync(Deno.readDir(work))).map((e) => e.name).sort(),
    ["deno.json", "notes.txt", "sub"],
    "no node_modules or lock file appears in the user's folder",
  );

  // `deno task herald` started from the work folder runs there as well (INIT_CWD).
  const tasked = await exec(
    deno,
    ["task", "--config", config, "herald", "read", "notes.txt"],
    work,
    env,
  );
  assert.equal(tasked.code, 0, tasked.stderr);
  assert.equal(tasked.stdout, "Still 4242.\n");
  assert.ok(toolResults(server.requests[3])[0].includes("the launch code is 4242"));

  const version = await exec(deno, ["task", "--config", config, "herald", "--version"], work, env);
  assert.equal(version.code, 0, version.stderr);
  assert.match(version.stdout, /^herald \d+\.\d+\.\d+ /);
  // -C resolves against the caller's folder, not the checkout.
  const cd = await exec(deno, ["task", "--config", config, "herald", "-C", "sub", "-v"], work, env);
  assert.equal(cd.code, 0, cd.stderr);
  const missing = await exec(launcher, ["-C", "nowhere", "sessions", "list"], work, env);
  assert.equal(missing.code, 2);
  assert.equal(missing.stderr, 'herald: Cannot run in "nowhere" (-C): no such folder\n');

  const removed = await exec(
    deno,
    ["task", "--config", config, "uninstall", "--dir", bin],
    dir.path,
    env,
  );
  assert.equal(removed.code, 0, removed.stderr);
  assert.equal(removed.stdout, `Removed ${launcher}\n`);
  assert.throws(() => Deno.statSync(launcher), Deno.errors.NotFound);
});

Deno.test("deno task install refuses a herald it did not write and exits non-zero", async () => {
  await using dir = await tempDir();
  const bin = join(dir.path, "bin");
  await Deno.mkdir(bin);
  await Deno.writeTextFile(join(bin, "herald"), "#!/bin/sh\necho other herald\n");
  const env = { HOME: dir.path, PATH: "/usr/bin:/bin", DENO_DIR: await denoDir() };
  const config = join(REPO_ROOT, "deno.json");
  const refused = await exec(
    Deno.execPath(),
    ["task", "--config", config, "install", "--dir", bin],
    dir.path,
    env,
  );
  assert.notEqual(refused.code, 0);
  assert.equal(refused.stdout, "");
  assert.match(
    refused.stderr,
    new RegExp(`install: ${join(bin, "herald")} is a file Herald did not write, not a launcher`),
  );
  assert.equal(await Deno.readTextFile(join(bin, "herald")), "#!/bin/sh\necho other herald\n");
});

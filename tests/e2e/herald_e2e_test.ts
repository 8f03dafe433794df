/**
 * The real `herald` program as a subprocess, the way a user runs it.
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { openStateStore } from "../../adapters/sqlite/mod.ts";
import { REPO_ROOT, tempDir } from "../_helpers.ts";

async function herald(env: Record<string, string>, ...args: string[]) {
  const output = await new Deno.Command(Deno.execPath(), {
    args: ["task", "--quiet", "herald", ...args],
    cwd: REPO_ROOT,
    env: { ...env, NO_COLOR: "1" },
    stdin: "null",
  }).output();
  const decode = (bytes: Uint8Array) => new TextDecoder().decode(bytes);
  return { code: output.code, stdout: decode(output.stdout), stderr: decode(output.stderr) };
}

Deno.test("deno task herald --version prints the version and the checked-out commit", async () => {
  const result = await herald({}, "--version");
  assert.equal(result.code, 0, result.stderr);
  assert.match(result.stdout, /^herald \d+\.\d+\.\d+ \(([0-9a-f]{12}|unknown)\)\n$/);
  const git = await new Deno.Command("git", { args: ["rev-parse", "HEAD"], cwd: REPO_ROOT })
    .output().catch(() => undefined);
  if (git?.success) {
    const head = new TextDecoder().decode(git.stdout).trim().slice(0, 12);
    assert.ok(result.stdout.includes(`(${head})`), `${result.stdout} should name ${head}`);
  }
});

Deno.test("a user mistake exits 2 with one line and no stack trace", async () => {
  await using home = await tempDir();
  const result = await herald({ HERALD_HOME: home.path }, "confg", "show");
  assert.equal(result.code, 2);
  assert.equal(
    result.stderr,
    'herald: Unknown command "confg"; did you mean `herald config`? ' +
      'To send "confg show" to the agent as a prompt, run `herald -- confg show`\n',
  );
  const badProfile = await herald({ HERALD_HOME: home.path }, "config", "show", "-p", "../x");
  assert.equal(badProfile.code, 2);
  assert.equal(badProfile.stderr.trim().split("\n").length, 1);
  assert.doesNotMatch(badProfile.stderr, /\bat .*\.ts:\d+/);
});

Deno.test("HERALD_HOME selects the home and the default is ~/.herald", async () => {
  await using dir = await tempDir();
  const set = await herald(
    { HERALD_HOME: join(dir.path, "h") },
    "config",
    "set",
    "model.default",
    "m1",
  );
  assert.equal(set.code, 0, set.stderr);
  assert.match(await Deno.readTextFile(join(dir.path, "h", "config.yaml")), /default: m1/);
  const path = await herald({ HOME: dir.path }, "config", "path");
  assert.equal(path.stdout, `${join(dir.path, ".herald", "config.yaml")}\n`);
});

Deno.test("a reader that closes stdout early ends herald quietly with status 0", async () => {
  await using home = await tempDir();
  await Deno.mkdir(home.path, { recursive: true });
  const store = openStateStore(join(home.path, "state.db"));
  store.createSession({ id: "ses_long", source: "cli", title: "a long session" });
  // About 400 KB of text: far more than a pipe holds, so herald is still writing when it closes.
  store.appendMessages(
    "ses_long",
    Array.from({ length: 2000 }, (_, i) => ({
      role: "user" as const,
      content: `message ${i} ${"x".repeat(200)}`,
    })),
  );
  store.close();
  const child = new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "--allow-all",
      "--quiet",
      join(REPO_ROOT, "cli/main.ts"),
      "sessions",
      "show",
      "ses_long",
    ],
    env: { HERALD_HOME: home.path, NO_COLOR: "1" },
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  // Like `herald sessions show ses_long | head -1`: read the first chunk, then close the pipe.
  const reader = child.stdout.getReader();
  const first = await reader.read();
  assert.match(new TextDecoder().decode(first.value), /^ses_long {2}a long session\n/);
  await reader.cancel();
  const [status, stderr] = await Promise.all([
    child.status,
    new Response(child.stderr).text(),
  ]);
  assert.equal(stderr, "");
  assert.equal(status.code, 0);
});

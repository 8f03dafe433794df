/** `herald desktop`, run in-process: which rung answered, as text or JSON, and `--reset`. */
import assert from "node:assert/strict";
import { join } from "node:path";
import { captureOutput, run } from "../../../cli/app.ts";
import { FAILURE_FILE, newFailure } from "../../../core/desktop/bootstrap.ts";

async function fakeHerald(path: string, line: string): Promise<void> {
  await Deno.mkdir(join(path, ".."), { recursive: true });
  await Deno.writeTextFile(path, `#!/bin/sh\necho "${line}"\n`, { mode: 0o755 });
  await Deno.chmod(path, 0o755);
}

Deno.test("herald desktop prints the rung that answered, as text and as JSON lines", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const override = join(dir, "override");
    await fakeHerald(join(override, "herald"), "herald 1.0.0 (abcdef012345)");
    const env = {
      HOME: dir,
      HERALD_HOME: join(dir, "home"),
      HERALD_INSTALL_DIR: join(dir, "install"),
      HERALD_DESKTOP_ROOT: override,
      PATH: "/usr/bin:/bin",
    };
    let io = captureOutput();
    assert.equal(await run(["desktop"], { io, env }), 0, io.stderr);
    assert.match(io.stdout, /Rung 1 \(root-override\) answered/);
    assert.match(io.stdout, new RegExp(`command: ${join(override, "herald")}`));

    io = captureOutput();
    assert.equal(await run(["desktop", "--json"], { io, env }), 0, io.stderr);
    const lines = io.stdout.trim().split("\n").map((line) => JSON.parse(line));
    assert.equal(lines.length, 1);
    assert.equal(lines[0].type, "resolved");
    assert.equal(lines[0].backend.rung, "root-override");
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("herald desktop throws a latched failure until --reset clears it", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const install = join(dir, "install");
    await fakeHerald(join(install, "herald"), "herald 3.0.0 (abcdef012345)");
    await Deno.writeTextFile(
      join(install, ".herald-bootstrap-complete"),
      JSON.stringify({
        schemaVersion: 1,
        pinnedCommit: "abcdef0",
        pinnedBranch: "main",
        completedAt: "2026-01-02T03:04:05.000Z",
      }),
    );
    await Deno.writeTextFile(
      join(install, FAILURE_FILE),
      JSON.stringify(newFailure("node-deps", "exit code 1", ["npm broke"], new Date(0))),
    );
    const env = {
      HOME: dir,
      HERALD_HOME: join(dir, "home"),
      HERALD_INSTALL_DIR: install,
      HERALD_DEV: "0",
      PATH: "/usr/bin:/bin",
    };
    let io = captureOutput();
    assert.equal(await run(["desktop"], { io, env }), 1);
    assert.match(io.stderr, /failed at stage "node-deps".*herald desktop --reset/);

    io = captureOutput();
    assert.equal(await run(["desktop", "--reset", "--json"], { io, env }), 0, io.stderr);
    const lines = io.stdout.trim().split("\n").map((line) => JSON.parse(line));
    assert.deepEqual(lines[0], { type: "reset", cleared: true });
    assert.equal(lines[1].backend.rung, "active-install");
    assert.equal(lines[1].backend.version, "herald 3.0.0 (abcdef012345)");
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

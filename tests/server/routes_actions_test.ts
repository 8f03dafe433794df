/**
 * Background actions: `POST /api/herald/update` pinned to the checkout's
 * branch, `POST /api/gateway/restart`, the lock that makes a second request
 * reuse the live action, and `GET /api/actions/:id`.
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { tempDir } from "../_helpers.ts";
import { type JsonRequest, routesApp } from "./_routes.ts";

type Json = Record<string, unknown>;

/** An argv that prints its arguments as JSON (after `delayMs`), appending a line to `log`. */
function printArgs(log: string, delayMs = 0): string {
  const code = `await new Promise((r) => setTimeout(r, ${delayMs}));` +
    `await Deno.writeTextFile(${JSON.stringify(log)}, "ran\\n", { append: true });` +
    `console.log("args=" + JSON.stringify(Deno.args));`;
  return JSON.stringify([Deno.execPath(), "eval", code]);
}

async function finished(json: JsonRequest, id: string): Promise<Json> {
  const deadline = Date.now() + 20_000;
  for (;;) {
    const action = (await json("GET", `/api/actions/${id}`)).body.action as Json;
    if (action.status === "succeeded" || action.status === "failed") return action;
    if (Date.now() > deadline) throw new Error(`action ${id} still ${action.status}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

async function checkout(dir: string, head: string, asFile = false): Promise<string> {
  const repo = join(dir, "checkout");
  const gitDir = asFile ? join(dir, "elsewhere.git") : join(repo, ".git");
  await Deno.mkdir(gitDir, { recursive: true });
  await Deno.mkdir(repo, { recursive: true });
  await Deno.writeTextFile(join(gitDir, "HEAD"), head + "\n");
  if (asFile) await Deno.writeTextFile(join(repo, ".git"), "gitdir: ../elsewhere.git\n");
  return repo;
}

Deno.test("an update is pinned to the checkout's current branch", async () => {
  await using home = await tempDir();
  const log = join(home.path, "log");
  const repo = await checkout(home.path, "ref: refs/heads/release-2");
  const { json } = await routesApp(home.path, {
    env: { HOME: home.path, HERALD_CHECKOUT: repo, HERALD_UPDATE_COMMAND: printArgs(log) },
  });
  const { status, body } = await json("POST", "/api/herald/update", {});
  assert.equal(status, 202);
  assert.equal(body.reused, false);
  const action = await finished(json, String((body.action as Json).id));
  assert.equal(action.status, "succeeded");
  assert.equal(action.exit_code, 0);
  assert.deepEqual((action.command as string[]).slice(-2), ["--branch", "release-2"]);
  assert.deepEqual(action.output_tail, ['args=["--branch","release-2"]']);
  assert.equal((action.details as Json).branch, "release-2");
  const latest = (await json("GET", "/api/actions/herald-update")).body.action as Json;
  assert.equal(latest.id, action.id);
});

Deno.test("a detached checkout updates without --branch, and a .git file is followed", async () => {
  for (
    const [head, asFile, expected] of [
      ["3f2a9c1e0b7d4a5f6e8c9b0a1d2e3f4a5b6c7d8e", false, "args=[]"],
      ["ref: refs/heads/feature/x", true, 'args=["--branch","feature/x"]'],
    ] as const
  ) {
    await using home = await tempDir();
    const repo = await checkout(home.path, head, asFile);
    const { json } = await routesApp(home.path, {
      env: {
        HOME: home.path,
        HERALD_CHECKOUT: repo,
        HERALD_UPDATE_COMMAND: printArgs(join(home.path, "log")),
      },
    });
    const started = (await json("POST", "/api/herald/update")).body.action as Json;
    const action = await finished(json, String(started.id));
    assert.deepEqual(action.output_tail, [expected], head);
  }
});

Deno.test("a request while an update is live reuses it instead of spawning a second", async () => {
  await using home = await tempDir();
  const log = join(home.path, "log");
  const repo = await checkout(home.path, "ref: refs/heads/main");
  const { json } = await routesApp(home.path, {
    env: { HOME: home.path, HERALD_CHECKOUT: repo, HERALD_UPDATE_COMMAND: printArgs(log, 700) },
  });
  const burst = await Promise.all([1, 2, 3].map(() => json("POST", "/api/herald/update", {})));
  const ids = burst.map((r) => (r.body.action as Json).id);
  assert.equal(new Set(ids).size, 1, "one action for three requests");
  assert.deepEqual(burst.map((r) => r.body.reused), [false, true, true]);
  const during = await json("POST", "/api/herald/update", {});
  assert.equal(during.body.reused, true);
  assert.equal((during.body.action as Json).id, ids[0]);
  const action = await finished(json, String(ids[0]));
  assert.equal(action.status, "succeeded");
  assert.equal(await Deno.readTextFile(log), "ran\n", "the command ran once");

  const next = await json("POST", "/api/herald/update", {});
  assert.equal(next.body.reused, false, "a finished action is not reused");
  assert.notEqual((next.body.action as Json).id, ids[0]);
  await finished(json, String((next.body.action as Json).id));
  assert.equal(await Deno.readTextFile(log), "ran\nran\n");
});

Deno.test("a gateway restart runs herald gateway restart and reports its exit status", async () => {
  await using home = await tempDir();
  // No command override: the route must build `herald gateway restart` itself.
  const { json, deps } = await routesApp(home.path, {
    env: {
      HOME: home.path,
      PATH: Deno.env.get("PATH"),
      DENO_DIR: Deno.env.get("DENO_DIR") ?? `${Deno.env.get("HOME")}/.cache/deno`,
    },
  });
  const started = await json("POST", "/api/gateway/restart", {});
  assert.equal(started.status, 202);
  const action = await finished(json, String((started.body.action as Json).id));
  assert.deepEqual(action.command, [...deps.heraldCommand, "gateway", "restart"]);
  assert.equal(typeof action.exit_code, "number");
  assert.ok(["succeeded", "failed"].includes(String(action.status)));
  // The restart started a gateway in the background: stop it, or it outlives the test.
  const [program, ...prefix] = deps.heraldCommand;
  const stopped = await new Deno.Command(program, {
    args: [...prefix, "gateway", "stop"],
    env: { HERALD_HOME: home.path, HOME: home.path },
    stdout: "piped",
    stderr: "piped",
  }).output();
  assert.equal(stopped.code, 0, new TextDecoder().decode(stopped.stderr));
  assert.match(new TextDecoder().decode(stopped.stdout), /stopped \(pid \d+\)/);
});

Deno.test("an action whose program fails or cannot start is reported as failed with the reason", async () => {
  await using home = await tempDir();
  const { json } = await routesApp(home.path, {
    env: {
      HOME: home.path,
      HERALD_GATEWAY_RESTART_COMMAND: JSON.stringify([
        Deno.execPath(),
        "eval",
        "console.error('gateway: port in use'); Deno.exit(3)",
      ]),
      HERALD_UPDATE_COMMAND: JSON.stringify(["herald-no-such-program"]),
    },
  });
  const restart = (await json("POST", "/api/gateway/restart")).body.action as Json;
  const failed = await finished(json, String(restart.id));
  assert.equal(failed.status, "failed");
  assert.equal(failed.exit_code, 3);
  assert.deepEqual(failed.output_tail, ["gateway: port in use"]);
  const update = (await json("POST", "/api/herald/update")).body.action as Json;
  const missing = await finished(json, String(update.id));
  assert.equal(missing.status, "failed");
  assert.match(String(missing.error), /no such program/);
  assert.equal((await json("GET", "/api/actions/act_nope")).status, 404);
  const list = (await json("GET", "/api/actions")).body.actions as Json[];
  assert.equal(list.length, 2);
});

Deno.test("a malformed command override is a 500 that names the variable", async () => {
  await using home = await tempDir();
  const { json } = await routesApp(home.path, {
    env: { HOME: home.path, HERALD_UPDATE_COMMAND: "herald update" },
  });
  const response = await json("POST", "/api/herald/update");
  assert.equal(response.status, 500);
  assert.match(response.body.error!.message, /HERALD_UPDATE_COMMAND must be a JSON array/);
});

/**
 * `herald dashboard` as a real process: listening, the token, the public-bind
 * refusal, the profile alias attach and the isolated mode.
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { REPO_ROOT, tempDir } from "../_helpers.ts";
import { runHerald } from "./_herald.ts";
import { type RawRequest, rawRequest } from "../server/_raw_http.ts";

interface Dashboard extends AsyncDisposable {
  url: URL;
  line: string;
  child: Deno.ChildProcess;
  /** Everything the process writes to stdout after the first line, until it exits. */
  restOfStdout(): Promise<string>;
}

async function startDashboard(
  home: string,
  globalArgs: string[] = [],
  env: Record<string, string> = {},
  dashboardArgs: string[] = [],
): Promise<Dashboard> {
  const child = new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "--allow-all",
      "--quiet",
      join(REPO_ROOT, "cli/main.ts"),
      ...globalArgs,
      "dashboard",
      "--no-open",
      "--port",
      "0",
      ...dashboardArgs,
    ],
    env: { HERALD_HOME: home, NO_COLOR: "1", ...env },
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const reader = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  let text = "";
  while (!text.includes("\n")) {
    const { value, done } = await reader.read();
    if (done) break;
    text += value;
  }
  const line = text.split("\n")[0];
  const match = /listening on (\S+)/.exec(line);
  if (!match) {
    child.kill("SIGKILL");
    await child.status;
    throw new Error(`dashboard did not start: ${line}`);
  }
  return {
    url: new URL(match[1]),
    line,
    child,
    async restOfStdout() {
      let rest = text.slice(text.indexOf("\n") + 1);
      while (true) {
        const { value, done } = await reader.read();
        if (done) return rest;
        rest += value;
      }
    },
    async [Symbol.asyncDispose]() {
      child.kill("SIGTERM");
      await child.status;
      await reader.cancel().catch(() => {});
      await child.stderr.cancel().catch(() => {});
    },
  };
}

Deno.test("the dashboard listens on loopback, answers status and serves the page with the token", async () => {
  await using home = await tempDir();
  await using dashboard = await startDashboard(home.path, [], {
    HERALD_DASHBOARD_SESSION_TOKEN: "pinned-token-123",
  });
  assert.equal(dashboard.url.hostname, "127.0.0.1");
  const status = await fetch(new URL("/api/status", dashboard.url));
  assert.equal(status.status, 200);
  assert.equal((await status.json()).home, home.path);
  const page = await (await fetch(new URL("/sessions/abc", dashboard.url))).text();
  assert.ok(page.includes('"pinned-token-123"'));
  const denied = await fetch(new URL("/api/sessions", dashboard.url));
  assert.equal(denied.status, 401);
  await denied.body?.cancel();
  const allowed = await fetch(new URL("/api/nope", dashboard.url), {
    headers: { "X-Herald-Session-Token": "pinned-token-123" },
  });
  assert.equal(allowed.status, 404);
  await allowed.body?.cancel();
});

Deno.test("a non-loopback host is refused without --insecure", async () => {
  await using home = await tempDir();
  const run = await runHerald({
    args: ["dashboard", "--host", "0.0.0.0", "--no-open"],
    home: home.path,
  });
  assert.equal(run.code, 2);
  assert.match(run.stderr, /^herald: Refusing to listen on "0\.0\.0\.0".*--insecure/);
});

Deno.test("a profile alias launch attaches to the running machine dashboard", async () => {
  await using home = await tempDir();
  assert.equal(
    (await runHerald({ args: ["profile", "create", "work", "--no-skills"], home: home.path })).code,
    0,
  );
  await using machine = await startDashboard(home.path);
  const attach = await runHerald({
    args: ["-p", "work", "dashboard", "--no-open", "--port", machine.url.port],
    home: home.path,
  });
  assert.equal(attach.code, 0, attach.stderr);
  assert.equal(
    attach.stdout,
    `Herald dashboard 0.1.0 is already running: http://127.0.0.1:${machine.url.port}/?profile=work\n`,
  );
});

Deno.test("--isolated serves one profile on its own", async () => {
  await using home = await tempDir();
  assert.equal(
    (await runHerald({ args: ["profile", "create", "solo", "--no-skills"], home: home.path })).code,
    0,
  );
  await using isolated = await startDashboard(home.path, ["-p", "solo"], {}, ["--isolated"]);
  const status = await (await fetch(new URL("/api/status", isolated.url))).json();
  assert.equal(status.pinned_profile, "solo");
  assert.deepEqual(status.profiles, ["solo"]);
});

Deno.test("a profile alias launch with no dashboard running starts the machine dashboard", async () => {
  await using home = await tempDir();
  assert.equal(
    (await runHerald({ args: ["profile", "create", "solo", "--no-skills"], home: home.path })).code,
    0,
  );
  await using machine = await startDashboard(home.path, ["-p", "solo"]);
  const status = await (await fetch(new URL("/api/status", machine.url))).json();
  assert.equal(status.pinned_profile, null);
  assert.deepEqual(status.profiles, ["default", "solo"]);
  assert.match(machine.line, /listening on http:\/\/127\.0\.0\.1:\d+\/\?profile=solo$/);
});

Deno.test("an unknown profile fails before listening", async () => {
  await using home = await tempDir();
  const run = await runHerald({
    args: ["-p", "ghost", "dashboard", "--no-open", "--port", "0"],
    home: home.path,
  });
  assert.equal(run.code, 2);
  assert.match(run.stderr, /Profile "ghost" does not exist/);
});

Deno.test("attack requests against a public bind leave no token in any log line", async () => {
  await using home = await tempDir();
  const token = "pinned-secret-token-9876";
  const dashboard = await startDashboard(
    home.path,
    [],
    { HERALD_DASHBOARD_SESSION_TOKEN: token },
    ["--host", "0.0.0.0", "--insecure"],
  );
  const port = Number(dashboard.url.port);
  const upgrade = {
    Upgrade: "websocket",
    Connection: "Upgrade",
    "Sec-WebSocket-Key": "dGhlIHNhbXBsZSBub25jZQ==",
    "Sec-WebSocket-Version": "13",
    Origin: `http://127.0.0.1:${port}`,
  };
  const attacks: RawRequest[] = [
    { target: `/api/ws?token=${token}`, headers: { ...upgrade, Host: "a b" } },
    { target: `/api/ws?token=${token}`, headers: { ...upgrade, Host: "x:99999" } },
    { target: `/%61pi/ws?token=${token}x`, headers: upgrade },
    { target: `/api/pty?token=${token}`, headers: { ...upgrade, Origin: "https://evil.example" } },
    { target: `/x/../api/config?token=${token}` },
    { target: "/api/config", headers: { Authorization: `Bearer ${token}x` } },
    { method: "PUT", target: "/api/env", headers: { "X-Herald-Session-Token": token }, body: "{" },
  ];
  for (const attack of attacks) {
    const response = await rawRequest(port, attack);
    assert.ok(
      response.status >= 400 && response.status < 500,
      `${attack.target}: ${response.status}`,
    );
  }
  dashboard.child.kill("SIGTERM");
  const text = async (stream: ReadableStream<Uint8Array>) => {
    let all = "";
    for await (const chunk of stream.pipeThrough(new TextDecoderStream())) all += chunk;
    return all;
  };
  const [out, err] = await Promise.all([
    dashboard.restOfStdout(),
    text(dashboard.child.stderr),
  ]);
  await dashboard.child.status;
  // The first line (the URL printed for the user) carries the token by design; nothing else may.
  assert.ok(dashboard.line.includes(`#token=${token}`));
  const logged = `${out}\n${err}`.split("\n");
  assert.deepEqual(logged.filter((line) => line.includes(token)), []);
});

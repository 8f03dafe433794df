/**
 * `herald dashboard` as a real process: listening, the token, the public-bind
 * refusal, the profile alias attach, the isolated mode and stopping on a
 * signal with clients connected.
 */

import assert from "node:assert/strict";
import { processRunning, tempDir } from "../_helpers.ts";
import {
  configureModel,
  type DashboardProcess,
  runHerald,
  startDashboardProcess,
} from "./_herald.ts";
import { startModelServer } from "../fakes/model_server.ts";
import { type RawRequest, rawRequest } from "../server/_raw_http.ts";
import { openSocket, RpcClient, until } from "../server/_live.ts";

function startDashboard(
  home: string,
  globalArgs: string[] = [],
  env: Record<string, string> = {},
  dashboardArgs: string[] = [],
): Promise<DashboardProcess> {
  return startDashboardProcess({ home, globalArgs, env, dashboardArgs });
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
  assert.ok(page.includes('<meta name="herald-token" content="pinned-token-123">'));
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

/** Resolves to the child's status, or undefined when it still runs after `ms`. */
async function statusWithin(
  child: Deno.ChildProcess,
  ms: number,
): Promise<Deno.CommandStatus | undefined> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<undefined>((resolve) =>
    timer = setTimeout(() => resolve(undefined), ms)
  );
  try {
    return await Promise.race([child.status, late]);
  } finally {
    clearTimeout(timer);
  }
}

Deno.test({
  name:
    "SIGTERM stops the dashboard promptly with a keep-alive client, a running turn and a terminal open, and ends the terminal's processes",
  ignore: Deno.build.os !== "linux",
  async fn() {
    await using home = await tempDir();
    await using model = await startModelServer({
      replies: [{ text: "half an answer", chunkSize: 4, hang: "mid-stream" }],
    });
    await configureModel(home.path, model.openaiBaseUrl);
    const token = "pinned-shutdown-token";
    const dashboard = await startDashboard(
      home.path,
      [],
      { HERALD_DASHBOARD_SESSION_TOKEN: token, SHELL: "/bin/bash", HOME: home.path },
      ["--shell"],
    );
    const port = Number(dashboard.url.port);
    const terminalPids: number[] = [];
    let keepAlive: Deno.TcpConn | undefined;
    let gateway: RpcClient | undefined;
    let terminal: WebSocket | undefined;
    try {
      // A keep-alive HTTP client: one answered request, the connection left open.
      keepAlive = await Deno.connect({ hostname: "127.0.0.1", port });
      await keepAlive.write(
        new TextEncoder().encode(
          `GET /api/status HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nConnection: keep-alive\r\n\r\n`,
        ),
      );
      const buffer = new Uint8Array(16 * 1024);
      // The whole answer (it may arrive in several reads), so the one read left is the close.
      let answer = "";
      while (true) {
        const read = await keepAlive.read(buffer);
        if (read === null) break;
        answer += new TextDecoder().decode(buffer.subarray(0, read));
        const end = answer.indexOf("\r\n\r\n");
        const length = /\r\ncontent-length: *(\d+)/i.exec(answer);
        if (end >= 0 && length && answer.length >= end + 4 + Number(length[1])) break;
      }
      assert.match(answer, /^HTTP\/1\.1 200/);

      // A gateway client with a turn in progress (the model stalls mid-answer).
      gateway = await RpcClient.connect(`ws://127.0.0.1:${port}/api/ws?token=${token}`);
      const gatewayClosed = new Promise<number>((resolve) =>
        gateway!.socket.addEventListener("close", (event) => resolve(event.code))
      );
      const { session_key } = await gateway.call<{ session_key: string }>("session.start");
      gateway.request("session.send", { session_key, text: "start" });
      await gateway.waitFor("message.delta");

      // A terminal running the shell, with a job that ignores hang-up and SIGTERM.
      terminal = await openSocket(`ws://127.0.0.1:${port}/api/pty?token=${token}`);
      const terminalClosed = new Promise<number>((resolve) =>
        terminal!.addEventListener("close", (event) => resolve(event.code))
      );
      let screen = "";
      const decoder = new TextDecoder();
      terminal.onmessage = (event) => {
        if (typeof event.data !== "string") {
          screen += decoder.decode(new Uint8Array(event.data), { stream: true });
        }
      };
      const type = (text: string) => terminal!.send(new TextEncoder().encode(text));
      await until(() => /\S/.test(screen), "the shell's prompt", 10_000);
      type("echo shell=$$\r");
      type("(trap '' HUP TERM; exec sleep 301) &\r");
      type("echo job=$!\r");
      await until(() => /job=\d+\r?\n/.test(screen), "the job's pid", 10_000);
      terminalPids.push(
        Number(/shell=(\d+)\r?\n/.exec(screen)![1]),
        Number(/job=(\d+)\r?\n/.exec(screen)![1]),
      );
      for (const pid of terminalPids) assert.ok(await processRunning(pid), `${pid} runs`);

      dashboard.child.kill("SIGTERM");
      // A stop should take about a second; 5 s keeps the test clear of machine load.
      const status = await statusWithin(dashboard.child, 5000);
      assert.ok(status, "the dashboard still runs 5 s after SIGTERM");
      assert.equal(status.code, 0);
      assert.equal(await gatewayClosed, 1001);
      assert.equal(await terminalClosed, 1001);
      assert.equal(await keepAlive.read(buffer), null, "the keep-alive connection is closed");
      for (const pid of terminalPids) {
        await until(async () => !(await processRunning(pid)), `process ${pid} to end`, 2000);
      }
    } finally {
      keepAlive?.close();
      await gateway?.close();
      if (terminal && terminal.readyState !== WebSocket.CLOSED) terminal.close();
      if (await statusWithin(dashboard.child, 0) === undefined) dashboard.child.kill("SIGKILL");
      await dashboard[Symbol.asyncDispose]();
      for (const pid of terminalPids) {
        if (await processRunning(pid)) Deno.kill(pid, "SIGKILL");
      }
    }
  },
});

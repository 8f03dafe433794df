/**
 * `herald gateway` end to end: the real program as subprocesses, with its
 * pid and state files, real locks between processes, a fake Telegram Bot
 * API and the scripted model server on 127.0.0.1.
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { gatewayFiles } from "../../adapters/channels/gateway_files.ts";
import type { GatewayStateRecord, GatewayStatusView } from "../../core/usecases/gateway.ts";
import { startModelServer } from "../fakes/model_server.ts";
import { FAKE_TELEGRAM_TOKEN, startFakeTelegram } from "../fakes/telegram_api.ts";
import { processRunning, tempDir } from "../_helpers.ts";
import { testApp } from "../server/_app.ts";
import { runHerald } from "./_herald.ts";
import { runGateway, telegramHome, until, WAIT_MS } from "./_gateway.ts";

async function statusJson(root: string, global: string[] = []): Promise<GatewayStatusView> {
  const run = await runHerald({ args: [...global, "gateway", "status", "--json"], home: root });
  assert.equal(run.code, 0, run.stderr);
  return JSON.parse(run.stdout);
}

/** The pid of a process that has ended. */
async function deadPid(): Promise<number> {
  const child = new Deno.Command("true", { stdout: "null", stderr: "null" }).spawn();
  await child.status;
  return child.pid;
}

function platform(state: GatewayStateRecord | undefined, id: string) {
  return state?.platforms.find((p) => p.platform === id);
}

Deno.test("gateway run with no platform enabled runs, keeps its files, and stops cleanly on SIGTERM", async () => {
  await using home = await tempDir();
  const files = gatewayFiles(home.path);
  const gateway = await runGateway({ root: home.path, profileHome: home.path });
  const pid = gateway.child.pid;
  assert.equal(await Deno.readTextFile(files.pidPath), `${pid}\n`);
  const view = await statusJson(home.path);
  assert.equal(view.running, true);
  assert.equal(view.state, "running");
  assert.equal(view.pid, pid);
  assert.deepEqual(view.platforms, []);
  // The dashboard's status probe shows the same gateway.
  const probe = await (await testApp(home.path).request("/api/status", { auth: false })).json();
  assert.equal(probe.gateway.running, true);
  // The probe answers without a token: no pid, counts or error texts in it.
  assert.deepEqual(Object.keys(probe.gateway).sort(), ["platforms", "profile", "running", "state"]);

  // A second gateway for the same profile is refused, naming the first.
  const second = await runHerald({ args: ["gateway", "run"], home: home.path });
  assert.equal(second.code, 1);
  assert.match(second.stderr, new RegExp(`already running \\(pid ${pid}\\)`));

  const { code, stdout } = await gateway.stop();
  assert.equal(code, 0);
  assert.match(stdout, /running \(pid \d+\); platforms: none enabled/);
  assert.match(stdout, /stopped\n$/);
  assert.equal(await files.readPid(), undefined, "the pid file is removed");
  const state = await files.readState();
  assert.equal(state?.status, "stopped");
  assert.equal(typeof state?.stopped_at, "number");
  const after = await statusJson(home.path);
  assert.equal(after.running, false);
  assert.equal(after.state, "stopped");
  assert.equal(after.stale_pid_file, false);
});

Deno.test("start, status, restart and stop round trip through the pid and state files", async () => {
  await using home = await tempDir();
  const files = gatewayFiles(home.path);
  try {
    const started = await runHerald({ args: ["gateway", "start"], home: home.path });
    assert.equal(started.code, 0, started.stderr);
    const first = Number(/started \(pid (\d+)\)/.exec(started.stdout)?.[1]);
    assert.ok(first > 0, started.stdout);
    assert.equal(await files.readPid(), first);
    assert.equal((await statusJson(home.path)).pid, first);
    assert.match(await Deno.readTextFile(files.logPath), /platforms: none enabled/);
    // Started lean: a heap sized for memory (adapters/process/lean_memory.ts).
    const environ = await Deno.readTextFile(`/proc/${first}/environ`);
    assert.ok(environ.split("\0").includes("DENO_V8_FLAGS=--optimize-for-size"), environ);

    const again = await runHerald({ args: ["gateway", "start"], home: home.path });
    assert.equal(again.code, 0);
    assert.match(again.stdout, new RegExp(`already running \\(pid ${first}\\)`));

    const restarted = await runHerald({ args: ["gateway", "restart"], home: home.path });
    assert.equal(restarted.code, 0, restarted.stderr);
    assert.match(restarted.stdout, new RegExp(`stopped \\(pid ${first}\\)`));
    const second = Number(/started \(pid (\d+)\)/.exec(restarted.stdout)?.[1]);
    assert.ok(second > 0 && second !== first, restarted.stdout);
    assert.equal(await processRunning(first), false);
    const view = await statusJson(home.path);
    assert.equal(view.running, true);
    assert.equal(view.pid, second);

    const stopped = await runHerald({ args: ["gateway", "stop"], home: home.path });
    assert.equal(stopped.code, 0, stopped.stderr);
    assert.match(stopped.stdout, new RegExp(`stopped \\(pid ${second}\\)`));
    assert.equal(await processRunning(second), false);
    assert.equal(await files.readPid(), undefined);
    assert.equal((await files.readState())?.status, "stopped");
    const status = await runHerald({ args: ["gateway", "status"], home: home.path });
    assert.match(status.stdout, /^Gateway: not running\n/);
    const stopAgain = await runHerald({ args: ["gateway", "stop"], home: home.path });
    assert.match(stopAgain.stdout, /^Gateway: not running\n$/);
  } finally {
    await runHerald({ args: ["gateway", "stop"], home: home.path });
  }
});

Deno.test("a pid file left by a gateway that died is reported stale and removed", async () => {
  await using home = await tempDir();
  const files = gatewayFiles(home.path);
  const pid = await deadPid();
  await Deno.writeTextFile(files.pidPath, `${pid}\n`);
  await files.writeState({
    version: 1,
    profile: "default",
    pid,
    pgid: pid,
    launch_id: null,
    status: "running",
    started_at: Date.now() - 60_000,
    heartbeat_at: Date.now() - 1_000,
    stopped_at: null,
    platforms: [],
    counts: null,
  });
  const status = await runHerald({ args: ["gateway", "status"], home: home.path });
  assert.equal(status.code, 0);
  assert.match(status.stdout, /^Gateway: not running \(stale pid file removed\)\n/);
  assert.equal(await files.readPid(), undefined);
  assert.equal((await files.readState())?.status, "stopped");

  await Deno.writeTextFile(files.pidPath, `${pid}\n`);
  const stop = await runHerald({ args: ["gateway", "stop"], home: home.path });
  assert.equal(stop.code, 0);
  assert.match(stop.stdout, /not running \(stale pid file removed\)/);
  assert.equal(await files.readPid(), undefined);
});

Deno.test("install writes a systemd user unit and never overwrites it without --force", async () => {
  await using home = await tempDir();
  await using config = await tempDir();
  const env = { XDG_CONFIG_HOME: config.path, HOME: config.path };
  const created = await runHerald({ args: ["profile", "create", "work"], home: home.path, env });
  assert.equal(created.code, 0, created.stderr);
  const unit = join(config.path, "systemd", "user", "herald-gateway-work.service");

  const first = await runHerald({
    args: ["-p", "work", "gateway", "install"],
    home: home.path,
    env,
  });
  assert.equal(first.code, 0, first.stderr);
  assert.match(first.stdout, /^Wrote .*herald-gateway-work\.service\n/);
  assert.match(first.stdout, /systemctl --user enable --now herald-gateway-work\.service/);
  const text = await Deno.readTextFile(unit);
  assert.match(text, /^ExecStart=.*cli\/main\.ts -p work gateway run$/m);
  assert.match(text, new RegExp(`^Environment=HERALD_HOME=${home.path}$`, "m"));

  await Deno.writeTextFile(unit, "# edited by hand\n");
  const second = await runHerald({
    args: ["-p", "work", "gateway", "install"],
    home: home.path,
    env,
  });
  assert.equal(second.code, 2);
  assert.match(second.stderr, /already exists.*--force/);
  assert.equal(await Deno.readTextFile(unit), "# edited by hand\n");

  const forced = await runHerald({
    args: ["-p", "work", "gateway", "install", "--force"],
    home: home.path,
    env,
  });
  assert.equal(forced.code, 0, forced.stderr);
  assert.match(forced.stdout, /^Replaced /);
  assert.equal(await Deno.readTextFile(unit), text);
});

Deno.test("two profiles with one bot: the second gateway refuses Telegram naming the first, and runs the rest", async () => {
  await using home = await tempDir();
  await using telegram = await startFakeTelegram();
  const env = { TELEGRAM_API_BASE: telegram.baseUrl };
  const created = await runHerald({ args: ["profile", "create", "work"], home: home.path });
  assert.equal(created.code, 0, created.stderr);
  const workHome = join(home.path, "profiles", "work");
  for (const dir of [home.path, workHome]) {
    await Deno.writeTextFile(
      join(dir, "config.yaml"),
      "platforms:\n  telegram:\n    enabled: true\n",
    );
    await Deno.writeTextFile(
      join(dir, ".env"),
      `TELEGRAM_BOT_TOKEN=${FAKE_TELEGRAM_TOKEN}\nTELEGRAM_ALLOWED_USERS=42\n`,
    );
  }
  await Deno.writeTextFile(
    join(workHome, ".env"),
    "API_SERVER_ENABLED=true\nAPI_SERVER_KEY=test-key\nAPI_SERVER_PORT=0\n",
    { append: true },
  );

  await using first = await runGateway({ root: home.path, profileHome: home.path, env });
  await until("Telegram to connect", async () => {
    const state = await gatewayFiles(home.path).readState();
    return platform(state, "telegram")?.state === "connected" ? true : undefined;
  });

  const workFiles = gatewayFiles(workHome);
  let work = await runGateway({
    root: home.path,
    profileHome: workHome,
    global: ["-p", "work"],
    env,
  });
  const state = await until("the work gateway's platforms", async () => {
    const state = await workFiles.readState();
    return platform(state, "api_server")?.state === "connected" ? state : undefined;
  });
  const refused = platform(state, "telegram");
  assert.equal(refused?.state, "refused");
  assert.match(refused?.last_error ?? "", /already in use by profile "default"/);
  assert.ok(!(refused?.last_error ?? "").includes(FAKE_TELEGRAM_TOKEN));
  assert.match(work.stderr(), /herald: warning: telegram: not started: .*profile "default"/);
  const view = await statusJson(home.path, ["-p", "work"]);
  assert.deepEqual(
    view.platforms.map((p) => [p.platform, p.state]).sort(),
    [["api_server", "connected"], ["telegram", "refused"]],
  );
  assert.equal((await work.stop()).code, 0);

  // Once the first gateway stops, its bot credential is free for the other profile.
  assert.equal((await first.stop()).code, 0);
  work = await runGateway({ root: home.path, profileHome: workHome, global: ["-p", "work"], env });
  try {
    await until("Telegram to connect for work", async () => {
      const state = await workFiles.readState();
      return platform(state, "telegram")?.state === "connected" ? true : undefined;
    });
  } finally {
    assert.equal((await work.stop()).code, 0);
  }
});

Deno.test("a Telegram message reaches the profile's agent through the gateway and is answered", async () => {
  await using home = await tempDir();
  await using telegram = await startFakeTelegram();
  await using model = await startModelServer({ replies: [{ text: "Hello from Herald" }] });
  await telegramHome(home.path, model.openaiBaseUrl, [42]);
  await using _gateway = await runGateway({
    root: home.path,
    profileHome: home.path,
    env: { TELEGRAM_API_BASE: telegram.baseUrl },
  });
  const bot = telegram.bot();
  bot.userSays(42, 42, "hello");
  const [answer] = await bot.waitForSent(
    (message) => message.chatId === 42 && message.method === "sendMessage",
    { timeoutMs: WAIT_MS },
  );
  assert.equal(answer.text, "Hello from Herald");
  // The chat's session is remembered (written as the turn stores its messages).
  const sessionId = await until("the chat's session to be stored", async () => {
    const text = await Deno.readTextFile(join(home.path, "gateway_chats.json")).catch(() => "");
    return text === "" ? undefined : JSON.parse(text).chats["telegram:42"]?.session_id;
  });
  assert.match(sessionId, /\S/);
});

import assert from "node:assert/strict";
import {
  assertNoPlantedSecret,
  parseEnvDump,
  PLANTED_PARENT_SECRETS,
} from "../../_planted_secrets.ts";
import { join } from "node:path";
import type { SignalSender } from "../../../adapters/process/mod.ts";
import { createTerminalTool, HeadTail } from "../../../adapters/tools/terminal.ts";
import { ToolError } from "../../../core/tools/types.ts";
import { tempDir } from "../../_helpers.ts";
import { eventually, processAlive, toolContext, waitForPid } from "./_context.ts";

const terminal = createTerminalTool({ killGraceMs: 300, drainMs: 200 });

Deno.test("terminal runs the command in the session's working directory", async () => {
  await using dir = await tempDir();
  const ctx = toolContext({ cwd: dir.path });
  const result = await terminal.run({ command: "pwd; echo hello > made.txt" }, ctx);
  assert.equal(result.exit_code, 0);
  assert.equal(result.stdout.trim(), await Deno.realPath(dir.path));
  assert.equal(result.stderr, "");
  assert.equal(result.timed_out, false);
  assert.equal(typeof result.duration_ms, "number");
  assert.equal(await Deno.readTextFile(join(dir.path, "made.txt")), "hello\n");
});

Deno.test("terminal resolves workdir against the working directory", async () => {
  await using dir = await tempDir();
  await Deno.mkdir(join(dir.path, "sub"));
  const result = await terminal.run(
    { command: "pwd", workdir: "sub" },
    toolContext({ cwd: dir.path }),
  );
  assert.equal(result.stdout.trim(), await Deno.realPath(join(dir.path, "sub")));
  await assert.rejects(
    terminal.run({ command: "pwd", workdir: "missing" }, toolContext({ cwd: dir.path })),
    (error: unknown) => error instanceof ToolError && error.code === "not_found",
  );
});

Deno.test("terminal reports a non-zero exit code and stderr as a normal result", async () => {
  await using dir = await tempDir();
  const result = await terminal.run(
    { command: "echo out; echo oops >&2; exit 3" },
    toolContext({ cwd: dir.path }),
  );
  assert.equal(result.exit_code, 3);
  assert.equal(result.stdout, "out\n");
  assert.equal(result.stderr, "oops\n");
  assert.equal(result.timed_out, false);
});

Deno.test("terminal gives the command no stdin", async () => {
  await using dir = await tempDir();
  const result = await terminal.run({ command: "cat; echo done" }, toolContext({ cwd: dir.path }));
  assert.equal(result.stdout, "done\n");
});

Deno.test("terminal times out and kills the whole process tree", async () => {
  await using dir = await tempDir();
  const command =
    "sleep 30 & echo $! > bg.pid; (trap '' TERM; exec sleep 30) & echo $! > stubborn.pid; " +
    "echo started; sleep 30; wait";
  const result = await terminal.run({ command, timeout: 1 }, toolContext({ cwd: dir.path }));
  assert.equal(result.timed_out, true);
  assert.notEqual(result.exit_code, 0);
  assert.equal(result.stdout, "started\n");
  for (const file of ["bg.pid", "stubborn.pid"]) {
    const pid = await waitForPid(join(dir.path, file));
    assert.ok(await eventually(() => !processAlive(pid)), `process ${pid} from ${file} survived`);
  }
});

Deno.test("terminal asks approval for a dangerous command and does not run it when denied", async () => {
  await using dir = await tempDir();
  await Deno.mkdir(join(dir.path, "x"));
  const ctx = toolContext({ cwd: dir.path, approve: false });
  await assert.rejects(
    terminal.run({ command: "rm -rf x" }, ctx),
    (error: unknown) =>
      error instanceof ToolError && error.code === "denied" &&
      error.message.includes("not approved: recursive delete") &&
      error.message.includes("Ask the user or use a safer command"),
  );
  assert.deepEqual(ctx.approvals, [{
    tool: "terminal",
    command: "rm -rf x",
    reason: "recursive delete (rm -r)",
    ruleKey: "rm_recursive:x",
  }]);
  assert.ok((await Deno.stat(join(dir.path, "x"))).isDirectory);
});

Deno.test("terminal runs a dangerous command once it is approved", async () => {
  await using dir = await tempDir();
  await Deno.mkdir(join(dir.path, "x"));
  const ctx = toolContext({ cwd: dir.path, approve: true });
  const result = await terminal.run({ command: "rm -rf x" }, ctx);
  assert.equal(result.exit_code, 0);
  assert.equal(ctx.approvals.length, 1);
  await assert.rejects(Deno.stat(join(dir.path, "x")), Deno.errors.NotFound);
});

Deno.test("terminal refuses a hardline command without asking, even when approval would be given", async () => {
  await using dir = await tempDir();
  const home = join(dir.path, "home");
  await Deno.mkdir(home);
  await Deno.writeTextFile(join(home, "keep.txt"), "precious");
  const ctx = toolContext({ cwd: dir.path, approve: true });
  for (const command of [`rm -rf ~`, `rm -rf $HOME`, `cd x; (rm -rf ~)`, ":(){ :|:& };:"]) {
    await assert.rejects(
      terminal.run({ command }, ctx),
      (error: unknown) =>
        error instanceof ToolError && error.code === "blocked" &&
        error.message.includes("never runs this command") && error.message.includes("do not retry"),
      command,
    );
  }
  assert.deepEqual(ctx.approvals, []);
  assert.equal(await Deno.readTextFile(join(home, "keep.txt")), "precious");
});

Deno.test("terminal does not ask approval for an ordinary command", async () => {
  await using dir = await tempDir();
  const ctx = toolContext({ cwd: dir.path });
  await terminal.run({ command: "echo 'rm -rf /' > note.txt" }, ctx);
  assert.deepEqual(ctx.approvals, []);
});

Deno.test("terminal stops the process tree when the signal aborts", async () => {
  await using dir = await tempDir();
  const controller = new AbortController();
  const ctx = toolContext({ cwd: dir.path, signal: controller.signal });
  const running = terminal.run(
    { command: "sleep 30 & echo $! > bg.pid; sleep 30; wait" },
    ctx,
  );
  const pid = await waitForPid(join(dir.path, "bg.pid"));
  controller.abort();
  await assert.rejects(
    running,
    (error: unknown) => error instanceof ToolError && error.code === "interrupted",
  );
  assert.ok(await eventually(() => !processAlive(pid)), `background process ${pid} survived`);
});

Deno.test("terminal returns when the shell exits even if a background process keeps its pipes", async () => {
  await using dir = await tempDir();
  const result = await terminal.run(
    { command: "sleep 30 & echo $! > bg.pid; echo started" },
    toolContext({ cwd: dir.path }),
  );
  assert.equal(result.exit_code, 0);
  assert.equal(result.stdout, "started\n");
  const pid = await waitForPid(join(dir.path, "bg.pid"));
  Deno.kill(pid, "SIGKILL");
});

Deno.test("terminal keeps the head and tail of long output with a marker", async () => {
  await using dir = await tempDir();
  const small = createTerminalTool({ maxOutputChars: 1000 });
  const result = await small.run(
    { command: "echo BEGIN; head -c 200000 /dev/zero | tr '\\0' a; echo; echo END" },
    toolContext({ cwd: dir.path }),
  );
  assert.ok(result.stdout.startsWith("BEGIN\n"));
  assert.ok(result.stdout.endsWith("END\n"));
  assert.match(result.stdout, /\[\.\.\. output truncated: 199,\d{3} characters omitted \.\.\.\]/);
  assert.ok(result.stdout.length < 1200);
});

Deno.test("head-tail buffer keeps short text whole and cuts long text in the middle", () => {
  const short = new HeadTail(10);
  short.push("abc");
  short.push("defghij");
  assert.equal(short.text(), "abcdefghij");

  const long = new HeadTail(10);
  for (const chunk of ["0123", "456789", "abcdefghij", "XYZ"]) long.push(chunk);
  assert.equal(long.text(), "0123\n\n[... output truncated: 13 characters omitted ...]\n\nhijXYZ");
});

Deno.test("terminal validates its arguments", () => {
  assert.equal(terminal.schema.safeParse({ command: "ls", timeout: 601 }).success, false);
  assert.equal(terminal.schema.safeParse({ command: "" }).success, false);
  assert.equal(terminal.schema.safeParse({ command: "ls", timeout: 600 }).success, true);
});

/** Herald's environment in the tests below: harmless variables and credentials side by side. */
const PARENT_ENV: Record<string, string> = {
  PATH: Deno.env.get("PATH") ?? "/usr/bin:/bin",
  HOME: "/home/tester",
  LANG: "C.UTF-8",
  LC_ALL: "C.UTF-8",
  https_proxy: "http://proxyuser:proxypass@proxy.example:3128",
  OPENAI_API_KEY: "sk-1",
  TELEGRAM_BOT_TOKEN: "t",
  CLIENT_SECRET: "s",
  DB_PASSWORD: "p",
  HERALD_DASHBOARD_SESSION_TOKEN: "d",
  TOKENIZERS_PARALLELISM: "false",
  ...PLANTED_PARENT_SECRETS,
  SSH_AUTH_SOCK: "/tmp/ssh-agent.sock",
  PASSED_ON: "from-the-environment",
};

Deno.test("commands never see credential variables from the environment", async () => {
  await using dir = await tempDir();
  const tool = createTerminalTool({ baseEnv: PARENT_ENV, env: { EXTRA: "1" } });
  const result = await tool.run({ command: "env" }, toolContext({ cwd: dir.path }));
  assert.equal(result.exit_code, 0, result.stderr);
  const env = parseEnvDump(result.stdout);
  for (
    const name of [
      "OPENAI_API_KEY",
      "TELEGRAM_BOT_TOKEN",
      "CLIENT_SECRET",
      "DB_PASSWORD",
      "HERALD_DASHBOARD_SESSION_TOKEN",
      "AWS_SECRET_ACCESS_KEY",
      "MY_SERVICE_KEY",
      "GITHUB_PAT",
      "DATABASE_URL",
      "SSH_AUTH_SOCK",
      "PASSED_ON",
      // Not a secret, but not on the allowlist either.
      "TOKENIZERS_PARALLELISM",
    ]
  ) {
    assert.equal(env[name], undefined, `${name} reached the command`);
  }
  assertNoPlantedSecret(result.stdout, "the command", ["u:pw@h"]);
  assert.equal(env.PATH, PARENT_ENV.PATH);
  assert.equal(env.HOME, "/home/tester");
  assert.equal(env.LANG, "C.UTF-8");
  assert.equal(env.LC_ALL, "C.UTF-8");
  assert.equal(env.https_proxy, "http://proxy.example:3128", "proxy credentials are removed");
  assert.equal(env.EXTRA, "1");
});

Deno.test("names the profile passes on reach commands from its .env or the environment", async () => {
  await using dir = await tempDir();
  const dotenv = new Map([["FROM_DOTENV", "dotenv-value"], ["NOT_LISTED", "dotenv-secret"]]);
  const tool = createTerminalTool({
    baseEnv: PARENT_ENV,
    envPassthrough: ["PASSED_ON", "FROM_DOTENV", "SSH_AUTH_SOCK", "HERALD_DASHBOARD_SESSION_TOKEN"],
    envLookup: (name) => dotenv.get(name) ?? PARENT_ENV[name],
  });
  const result = await tool.run({ command: "env" }, toolContext({ cwd: dir.path }));
  const env = parseEnvDump(result.stdout);
  assert.equal(env.PASSED_ON, "from-the-environment");
  assert.equal(env.FROM_DOTENV, "dotenv-value");
  assert.equal(env.SSH_AUTH_SOCK, "/tmp/ssh-agent.sock");
  assert.equal(env.NOT_LISTED, undefined);
  assert.ok(!result.stdout.includes("dotenv-secret"));
  assert.equal(env.HERALD_DASHBOARD_SESSION_TOKEN, undefined, "the dashboard token never passes");
  assert.equal(env.GITHUB_PAT, undefined);
});

Deno.test({
  name: "a timeout signals only the command's own process group, never after it exited",
  ignore: Deno.build.os !== "linux",
  async fn() {
    await using dir = await tempDir();
    const sent: { target: number; signal: Deno.Signal }[] = [];
    const kill: SignalSender = (target, signal) => {
      sent.push({ target, signal });
      Deno.kill(target, signal);
    };
    const tool = createTerminalTool({ killGraceMs: 300, drainMs: 200, kill });
    const command = "(trap '' TERM; echo $BASHPID > stubborn.pid; exec sleep 30) & " +
      "sleep 30 & echo $! > bg.pid; sleep 30; wait";
    const result = await tool.run({ command, timeout: 1 }, toolContext({ cwd: dir.path }));
    assert.equal(result.timed_out, true);
    for (const file of ["bg.pid", "stubborn.pid"]) {
      const pid = await waitForPid(join(dir.path, file));
      assert.ok(await eventually(() => !processAlive(pid)), `process ${pid} from ${file} survived`);
    }
    const leader = sent[0].target;
    assert.deepEqual(sent, [
      { target: leader, signal: "SIGUSR1" },
      { target: -leader, signal: "SIGTERM" },
      { target: -leader, signal: "SIGKILL" },
    ]);
  },
});

Deno.test("an interrupt after the shell exited signals nothing", async () => {
  await using dir = await tempDir();
  const sent: number[] = [];
  const kill: SignalSender = (target, signal) => {
    sent.push(target);
    Deno.kill(target, signal);
  };
  // A long drain: the background process holds the pipes after the shell exits.
  const tool = createTerminalTool({ killGraceMs: 300, drainMs: 1500, kill });
  const controller = new AbortController();
  const running = tool.run(
    { command: "sleep 30 & echo $! > bg.pid; echo started" },
    toolContext({ cwd: dir.path, signal: controller.signal }),
  );
  const bg = await waitForPid(join(dir.path, "bg.pid"));
  try {
    // The shell is gone well before the drain ends.
    await new Promise((resolve) => setTimeout(resolve, 300));
    controller.abort();
    await assert.rejects(
      running,
      (error: unknown) => error instanceof ToolError && error.code === "interrupted",
    );
    assert.deepEqual(sent, [], "nothing is signalled through a leader that has exited");
  } finally {
    if (processAlive(bg)) Deno.kill(bg, "SIGKILL");
  }
});

Deno.test("a command run by the tool cannot read an exported API key", async () => {
  await using dir = await tempDir();
  const tool = createTerminalTool();
  Deno.env.set("HERALD_TEST_FAKE_API_KEY", "sk-should-not-leak");
  try {
    const result = await tool.run(
      { command: 'echo "[${HERALD_TEST_FAKE_API_KEY:-unset}]"' },
      toolContext({ cwd: dir.path }),
    );
    assert.equal(result.stdout.trim(), "[unset]");
  } finally {
    Deno.env.delete("HERALD_TEST_FAKE_API_KEY");
  }
});

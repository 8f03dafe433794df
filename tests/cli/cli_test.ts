/**
 * The `herald` command tree, run in-process with captured output and an
 * injected environment (no test touches Deno.env or the real home).
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { captureOutput, run } from "../../cli/app.ts";
import { extractGlobalArgs } from "../../cli/argv.ts";
import { VERSION } from "../../core/version.ts";
import { tempDir } from "../_helpers.ts";

async function herald(home: string, ...argv: string[]) {
  const io = captureOutput();
  const code = await run(argv, { io, env: { HERALD_HOME: home, HOME: "/nonexistent" } });
  return { code, stdout: io.stdout, stderr: io.stderr };
}

function mode(path: string): number {
  return Deno.statSync(path).mode! & 0o777;
}

Deno.test("-p and --profile are found in any position and taken out of argv", () => {
  assert.deepEqual(extractGlobalArgs(["-p", "work", "config", "show"]), {
    profile: "work",
    rest: ["config", "show"],
  });
  assert.deepEqual(extractGlobalArgs(["config", "show", "--profile", "w2", "--json"]), {
    profile: "w2",
    rest: ["config", "show", "--json"],
  });
  assert.deepEqual(extractGlobalArgs(["config", "--profile=w3", "show"]).profile, "w3");
  assert.deepEqual(extractGlobalArgs(["-pw4", "doctor"]).profile, "w4");
  assert.deepEqual(extractGlobalArgs(["config", "set", "x", "--", "-p", "v"]), {
    profile: undefined,
    rest: ["config", "set", "x", "--", "-p", "v"],
  });
  assert.throws(() => extractGlobalArgs(["doctor", "-p"]), /needs a profile name/);
});

Deno.test("--version prints the version and a commit", async () => {
  await using home = await tempDir();
  const result = await herald(home.path, "--version");
  assert.equal(result.code, 0);
  assert.match(
    result.stdout,
    new RegExp(`^herald ${VERSION.replaceAll(".", "\\.")} \\(([0-9a-f]{12}|unknown)\\)\\n$`),
  );
});

Deno.test("the version constant matches deno.json", async () => {
  const denoJson = JSON.parse(await Deno.readTextFile(new URL("../../deno.json", import.meta.url)));
  assert.equal(VERSION, denoJson.version);
});

Deno.test("--help lists the commands and touches no disk", async () => {
  await using dir = await tempDir();
  const home = join(dir.path, "home");
  const result = await herald(home, "--help");
  assert.equal(result.code, 0);
  for (const command of ["config", "doctor", "profile"]) {
    assert.match(result.stdout, new RegExp(command));
  }
  assert.throws(() => Deno.statSync(home), Deno.errors.NotFound);
});

Deno.test("an unknown command or flag is one line with a suggestion and exit code 2", async () => {
  await using home = await tempDir();
  const cases: [string[], RegExp][] = [
    // A lone word near a command is refused; any other word is a prompt (tests/cli/entry_test.ts).
    [
      ["confg"],
      /^herald: Unknown command "confg"; did you mean `herald config`\? .*`herald -- confg`\n$/,
    ],
    [["config", "frobnicate"], /^herald: unknown command 'frobnicate'; run `herald --help`.*\n$/],
    [["config", "shw"], /^herald: unknown command 'shw' \(Did you mean show\?\)\n$/],
    [["doctor", "--jsn"], /^herald: unknown option '--jsn' \(Did you mean --json\?\)\n$/],
    [["--bogus"], /^herald: unknown option '--bogus'; run `herald --help`.*\n$/],
    [["config", "get"], /^herald: missing required argument 'key'\n$/],
  ];
  for (const [argv, expected] of cases) {
    const result = await herald(home.path, ...argv);
    assert.equal(result.code, 2, argv.join(" "));
    assert.match(result.stderr, expected, argv.join(" "));
    assert.equal(result.stdout, "");
  }
});

Deno.test("first use creates the home with 0700 directories and a 0600 .env", async () => {
  await using dir = await tempDir();
  const home = join(dir.path, "fresh", "herald");
  const result = await herald(home, "config", "set", "agent.max_turns", "12");
  assert.equal(result.code, 0, result.stderr);
  assert.equal(mode(home), 0o700);
  for (
    const sub of [
      "skills",
      "skill-bundles",
      "memories",
      "cron",
      "logs",
      "sessions",
      "request-dumps",
    ]
  ) {
    assert.equal(mode(join(home, sub)), 0o700, sub);
  }
  assert.equal(mode(join(home, ".env")), 0o600);
  assert.equal(mode(join(home, "config.yaml")), 0o600);
});

Deno.test("config set, get and show round-trip through config.yaml with comments kept", async () => {
  await using home = await tempDir();
  const file = join(home.path, "config.yaml");
  await Deno.writeTextFile(file, "# mine\nagent:\n  max_turns: 10 # keep short\n");
  assert.equal((await herald(home.path, "config", "set", "agent.max_turns", "15")).code, 0);
  assert.equal(await Deno.readTextFile(file), "# mine\nagent:\n  max_turns: 15 # keep short\n");
  assert.equal((await herald(home.path, "config", "get", "agent.max_turns")).stdout, "15\n");
  const json = JSON.parse(
    (await herald(home.path, "config", "get", "agent.max_turns", "--json")).stdout,
  );
  assert.deepEqual(json, { key: "agent.max_turns", value: 15 });
  const shown = JSON.parse((await herald(home.path, "config", "show", "--json")).stdout);
  assert.equal(shown.config.agent.max_turns, 15);
  assert.equal(shown.config.agent.api_max_retries, 3);
  assert.equal(shown.file, file);
  const yaml = await herald(home.path, "config", "show");
  assert.match(yaml.stdout, /max_turns: 15/);
});

Deno.test("config set never writes a secret into config.yaml", async () => {
  await using home = await tempDir();
  await herald(home.path, "config", "set", "model.provider", "openrouter");
  const set = await herald(home.path, "config", "set", "model.api_key", "sk-or-secret-123456");
  assert.equal(set.code, 0, set.stderr);
  assert.ok(!set.stdout.includes("sk-or-secret"));
  const config = await Deno.readTextFile(join(home.path, "config.yaml"));
  assert.ok(!config.includes("sk-or-secret"));
  assert.match(config, /api_key: \$\{OPENROUTER_API_KEY\}/);
  const env = await Deno.readTextFile(join(home.path, ".env"));
  assert.match(env, /^OPENROUTER_API_KEY=sk-or-secret-123456$/m);
  assert.equal(mode(join(home.path, ".env")), 0o600);
  const shown = await herald(home.path, "config", "show");
  assert.ok(!shown.stdout.includes("sk-or-secret"));
  const bare = await herald(home.path, "config", "set", "TELEGRAM_BOT_TOKEN", "123:abc");
  assert.equal(bare.code, 0);
  assert.match(await Deno.readTextFile(join(home.path, ".env")), /^TELEGRAM_BOT_TOKEN=123:abc$/m);
  assert.ok(!(await Deno.readTextFile(join(home.path, "config.yaml"))).includes("123:abc"));
});

Deno.test("a bad key or value is a one-line usage error and changes nothing", async () => {
  await using home = await tempDir();
  const file = join(home.path, "config.yaml");
  const original = "agent:\n  max_turns: 10\n";
  await Deno.writeTextFile(file, original);
  const typo = await herald(home.path, "config", "set", "agent.max_turn", "5");
  assert.equal(typo.code, 2);
  assert.equal(
    typo.stderr,
    'herald: Unknown config key "agent.max_turn"; did you mean "agent.max_turns"?\n',
  );
  const wrong = await herald(home.path, "config", "set", "agent.max_turns", "-3");
  assert.equal(wrong.code, 2);
  assert.match(wrong.stderr, /^herald: Invalid value "-3" for "agent.max_turns": .+\n$/);
  assert.equal(await Deno.readTextFile(file), original);
});

Deno.test("a corrupt config.yaml gives one line with file, line and column and is never rewritten", async () => {
  await using home = await tempDir();
  const file = join(home.path, "config.yaml");
  const broken = "model:\n  provider: openai\n\tdefault: x\n";
  await Deno.writeTextFile(file, broken);
  for (const argv of [["config", "show"], ["config", "set", "agent.max_turns", "3"]]) {
    const result = await herald(home.path, ...argv);
    assert.equal(result.code, 1, argv.join(" "));
    assert.equal(result.stderr.split("\n").length, 2, result.stderr);
    assert.match(result.stderr, new RegExp(`^herald: ${file.replaceAll("/", "\\/")}:3:1: Tabs`));
  }
  assert.equal(await Deno.readTextFile(file), broken);
});

Deno.test("unknown config keys are warned about by dotted path but the command still works", async () => {
  await using home = await tempDir();
  await Deno.writeTextFile(
    join(home.path, "config.yaml"),
    "agent:\n  max_turns: 4\n  colour: red\n",
  );
  const result = await herald(home.path, "config", "get", "agent.max_turns");
  assert.equal(result.code, 0);
  assert.equal(result.stdout, "4\n");
  assert.match(result.stderr, /warning: .*config\.yaml: unknown key "agent\.colour"/);
});

Deno.test("an unreadable .env is a clear one-line error and stays as it was", async () => {
  await using home = await tempDir();
  const env = join(home.path, ".env");
  await Deno.mkdir(env);
  const asDir = await herald(home.path, "config", "set", "OPENAI_API_KEY", "k");
  assert.equal(asDir.code, 1);
  assert.equal(
    asDir.stderr,
    `herald: Cannot read ${env}: it is a directory, not a file; move it away\n`,
  );
  await Deno.remove(env);
  await Deno.writeFile(env, new Uint8Array([0x41, 0x3d, 0xff, 0xfe, 0x0a]));
  const binary = await herald(home.path, "config", "set", "OPENAI_API_KEY", "k");
  assert.equal(binary.code, 1);
  assert.match(binary.stderr, /it is not UTF-8 text/);
  assert.deepEqual(await Deno.readFile(env), new Uint8Array([0x41, 0x3d, 0xff, 0xfe, 0x0a]));
});

Deno.test("invalid profile names are refused with the rule, before anything is created", async () => {
  await using dir = await tempDir();
  const home = join(dir.path, "h");
  for (const bad of ["../x", "Bad Name"]) {
    const result = await herald(home, "-p", bad, "config", "show");
    assert.equal(result.code, 2);
    assert.match(
      result.stderr,
      new RegExp(`^herald: Invalid profile name "${bad.replace(".", "\\.")}"`),
    );
    const created = await herald(home, "profile", "create", bad);
    assert.equal(created.code, 2);
  }
  assert.throws(() => Deno.statSync(home), Deno.errors.NotFound);
});

Deno.test("named profiles have their own home and config", async () => {
  await using home = await tempDir();
  const missing = await herald(home.path, "-p", "work", "config", "show");
  assert.equal(missing.code, 2);
  assert.match(missing.stderr, /Profile "work" does not exist .*herald profile create work/);
  assert.equal((await herald(home.path, "profile", "create", "Work")).code, 0);
  const again = await herald(home.path, "profile", "create", "work");
  assert.equal(again.code, 2);
  assert.match(again.stderr, /already exists/);
  const workHome = join(home.path, "profiles", "work");
  assert.equal(mode(workHome), 0o700);
  assert.equal(mode(join(workHome, ".env")), 0o600);
  assert.equal(
    (await herald(home.path, "config", "set", "agent.max_turns", "7", "-p", "work")).code,
    0,
  );
  assert.equal(
    (await herald(home.path, "--profile", "work", "config", "get", "agent.max_turns")).stdout,
    "7\n",
  );
  assert.equal((await herald(home.path, "config", "get", "agent.max_turns")).stdout, "90\n");
  const path = JSON.parse(
    (await herald(home.path, "config", "path", "--json", "-p", "work")).stdout,
  );
  assert.equal(path.config, join(workHome, "config.yaml"));
  const list = JSON.parse(
    (await herald(home.path, "profile", "list", "--json", "-p", "work")).stdout,
  );
  assert.deepEqual(list.map((p: { name: string }) => p.name), ["default", "work"]);
  assert.deepEqual(list.find((p: { active: boolean }) => p.active).name, "work");
});

Deno.test("doctor reports every check as JSON and fails on a corrupt config", async () => {
  await using home = await tempDir();
  assert.equal((await herald(home.path, "config", "set", "agent.max_turns", "5")).code, 0);
  const good = await herald(home.path, "doctor", "--json");
  assert.equal(good.code, 0, good.stderr);
  const report = JSON.parse(good.stdout);
  assert.equal(report.ok, true);
  assert.deepEqual(
    report.checks.map((c: { name: string }) => c.name),
    ["deno", "home", "config", "model", "env", "state_db"],
  );
  await Deno.writeTextFile(join(home.path, "config.yaml"), "a: [\n");
  const bad = await herald(home.path, "doctor", "--json");
  assert.equal(bad.code, 1);
  const badReport = JSON.parse(bad.stdout);
  assert.equal(badReport.ok, false);
  assert.equal(badReport.checks.find((c: { name: string }) => c.name === "config").status, "fail");
  assert.match(bad.stderr, /^herald: 1 check failed/);
});

Deno.test("doctor on a missing home warns and creates nothing", async () => {
  await using dir = await tempDir();
  const home = join(dir.path, "none");
  const result = await herald(home, "doctor");
  assert.equal(result.code, 0, result.stderr);
  assert.match(result.stdout, /\[warn\] home .* does not exist yet/);
  assert.throws(() => Deno.statSync(home), Deno.errors.NotFound);
});

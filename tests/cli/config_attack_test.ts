/**
 * `herald config` and `herald profile list` under hostile input: keys named
 * after Object.prototype members, YAML alias bombs and aliases that name no
 * anchor, values larger than Herald stores, and one bad profile.yaml among
 * good profiles. Each is one line on stderr and a usage or state exit code,
 * never a stack trace.
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { captureOutput, run } from "../../cli/app.ts";
import { MAX_CONFIG_VALUE_BYTES, MAX_ENV_VALUE_BYTES } from "../../core/config/mod.ts";
import { PROTOTYPE_KEYS, tempDir } from "../_helpers.ts";

async function herald(home: string, ...argv: string[]) {
  const io = captureOutput();
  const code = await run(argv, { io, env: { HERALD_HOME: home, HOME: "/nonexistent" } });
  return { code, stdout: io.stdout, stderr: io.stderr };
}

function oneLine(stderr: string): void {
  assert.equal(stderr.trimEnd().split("\n").length, 1, `one line, no stack trace:\n${stderr}`);
  assert.doesNotMatch(stderr, /\n\s+at /);
}

async function readOr(path: string): Promise<string | null> {
  return await Deno.readTextFile(path).catch(() => null);
}

function aliasBomb(): string {
  const lines = ["a0: &a0 [lol, lol, lol, lol, lol, lol, lol, lol, lol]"];
  for (let i = 1; i < 9; i++) {
    lines.push(`a${i}: &a${i} [${Array(9).fill(`*a${i - 1}`).join(", ")}]`);
  }
  return lines.join("\n") + "\n";
}

Deno.test("config set and get with keys named after Object.prototype members say the key is unknown", async () => {
  await using home = await tempDir();
  const config = join(home.path, "config.yaml");
  await Deno.writeTextFile(config, "agent:\n  max_turns: 7\n");
  for (const key of PROTOTYPE_KEYS) {
    const set = await herald(home.path, "config", "set", key, "1");
    assert.equal(set.code, 2, `${key}: ${set.stderr}`);
    assert.match(
      set.stderr,
      new RegExp(`^herald: Unknown config key "${key.replaceAll(".", "\\.")}"`),
    );
    oneLine(set.stderr);
    const get = await herald(home.path, "config", "get", key);
    assert.equal(get.code, 2, `${key}: ${get.stderr}`);
    assert.match(get.stderr, /Unknown config key/);
    assert.equal(get.stdout, "");
  }
  assert.equal(await Deno.readTextFile(config), "agent:\n  max_turns: 7\n");
  assert.equal(({} as Record<string, unknown>).x, undefined);
});

Deno.test("config show on a config.yaml with an alias bomb or an unresolved alias is one line with the position", async () => {
  await using home = await tempDir();
  const config = join(home.path, "config.yaml");
  for (
    const [text, reason] of [
      [aliasBomb(), /aliases expand to too much data/],
      ["model:\n  default: *nope\n", /alias \*nope names no anchor/],
    ] as const
  ) {
    await Deno.writeTextFile(config, text);
    for (const argv of [["config", "show"], ["config", "set", "agent.max_turns", "3"]]) {
      const result = await herald(home.path, ...argv);
      assert.equal(result.code, 1, result.stderr);
      assert.match(
        result.stderr,
        new RegExp(`^herald: ${config.replaceAll(".", "\\.")}:\\d+:\\d+: `),
      );
      assert.match(result.stderr, reason);
      oneLine(result.stderr);
    }
    assert.equal(await Deno.readTextFile(config), text);
  }
});

Deno.test("config set refuses a value over the limit naming the key, its size and the limit", async () => {
  await using home = await tempDir();
  const config = join(home.path, "config.yaml");
  const env = join(home.path, ".env");
  await Deno.writeTextFile(config, "agent:\n  max_turns: 7\n");
  const cases: [string, string, number][] = [
    ["model.default", "x".repeat(MAX_CONFIG_VALUE_BYTES + 1), MAX_CONFIG_VALUE_BYTES],
    ["OPENAI_API_KEY", "k".repeat(MAX_ENV_VALUE_BYTES + 1), MAX_ENV_VALUE_BYTES],
    ["model.api_key", "k".repeat(MAX_ENV_VALUE_BYTES + 1), MAX_ENV_VALUE_BYTES],
  ];
  for (const [key, value, limit] of cases) {
    const result = await herald(home.path, "config", "set", key, value);
    assert.equal(result.code, 2, result.stderr.slice(0, 300));
    assert.ok(result.stderr.includes(`"${key}"`), result.stderr);
    assert.ok(result.stderr.includes(`${value.length} bytes`), result.stderr);
    assert.ok(result.stderr.includes(`(${limit} bytes)`), result.stderr);
    oneLine(result.stderr);
  }
  assert.equal(await Deno.readTextFile(config), "agent:\n  max_turns: 7\n");
  assert.doesNotMatch((await readOr(env)) ?? "", /kkkk/);
});

Deno.test("one bad profile.yaml is a warning for that profile while list shows every profile", async () => {
  await using home = await tempDir();
  for (const name of ["alpha", "bravo"]) {
    const created = await herald(home.path, "profile", "create", name, "--no-skills", "--json");
    assert.equal(created.code, 0, created.stderr);
  }
  await herald(home.path, "profile", "describe", "alpha", "--text", "Alpha work.");
  const bad = join(home.path, "profiles", "bravo", "profile.yaml");
  const corruptions: [string, () => Promise<void>][] = [
    ["invalid YAML", () => Deno.writeTextFile(bad, "description: [\n")],
    ["an unresolved alias", () => Deno.writeTextFile(bad, "description: *nope\n")],
    ["an alias bomb", () => Deno.writeTextFile(bad, aliasBomb())],
    ["an alias cycle", () => Deno.writeTextFile(bad, "description: &d [*d]\n")],
    ["wrong types", () => Deno.writeTextFile(bad, "description: [1, 2]\ndescription_auto: 3\n")],
    ["a directory in its place", async () => {
      await Deno.remove(bad).catch(() => {});
      await Deno.mkdir(bad);
    }],
  ];
  if (Deno.uid() !== 0) {
    corruptions.push(["an unreadable file", async () => {
      await Deno.writeTextFile(bad, "description: Hidden.\n");
      await Deno.chmod(bad, 0o000);
    }]);
  }
  for (const [what, corrupt] of corruptions) {
    await Deno.remove(bad, { recursive: true }).catch(() => {});
    await corrupt();
    const result = await herald(home.path, "profile", "list", "--json");
    assert.equal(result.code, 0, `${what}: ${result.stderr}`);
    const rows = JSON.parse(result.stdout) as {
      name: string;
      description: string;
      warnings: string[];
    }[];
    assert.deepEqual(rows.map((row) => row.name), ["default", "alpha", "bravo"], what);
    assert.equal(rows[1].description, "Alpha work.", what);
    assert.deepEqual(rows[0].warnings, [], what);
    assert.deepEqual(rows[1].warnings, [], what);
    assert.equal(rows[2].warnings.length, 1, what);
    assert.ok(rows[2].warnings[0].startsWith(`${bad}: `), rows[2].warnings[0]);
    assert.equal(rows[2].description, "", what);
    assert.match(result.stderr, new RegExp(`^herald: warning: ${bad.replaceAll(".", "\\.")}: `));
    oneLine(result.stderr);
    const text = await herald(home.path, "profile", "list");
    assert.equal(text.code, 0, text.stderr);
    assert.match(text.stdout, /bravo .*profile\.yaml ignored/);
    assert.doesNotMatch(text.stdout, /alpha .*profile\.yaml ignored/);
  }
});

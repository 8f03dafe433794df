/**
 * `herald codex-runtime` as a subprocess: refused with the install hint
 * when no codex is on PATH (config.yaml byte for byte unchanged); with the
 * real codex, `on` writes the managed block into a hand-written
 * config.toml, `migrate` rewrites only the block, and the real
 * `codex app-server` loads the file (no "Invalid configuration" warning)
 * and reports the `:workspace` permission profile.
 */

import assert from "node:assert/strict";
import { dirname, join } from "node:path";
import { MANAGED_BLOCK_START, outsideManagedBlock } from "../../core/codex/config_toml.ts";
import { tempDir } from "../_helpers.ts";
import { runHerald } from "../e2e/_herald.ts";
import { codexBinary, codexHome, startBareAppServer } from "../codex_cli.ts";

const CONFIG_YAML = "# hand-written\nmodel:\n  provider: openai # mine\n";

function baseEnv(herald: string, path: string): Record<string, string> {
  const env: Record<string, string> = {
    HOME: Deno.env.get("HOME") ?? "/root",
    HERALD_HOME: herald,
    PATH: path,
  };
  const denoDir = Deno.env.get("DENO_DIR");
  if (denoDir) env.DENO_DIR = denoDir;
  return env;
}

/** `herald <args>` with exactly `env` (HERALD_HOME in it), from the profile's home. */
function herald(args: string[], env: Record<string, string>) {
  return runHerald({ args, home: env.HERALD_HOME, env, clearEnv: true });
}

Deno.test("codex-runtime on without codex on PATH is refused with the hint; config.yaml unchanged", async () => {
  await using home = await tempDir();
  await Deno.writeTextFile(join(home.path, "config.yaml"), CONFIG_YAML);
  const before = await Deno.readFile(join(home.path, "config.yaml"));
  const result = await herald(["codex-runtime", "on"], baseEnv(home.path, "/usr/bin:/bin"));
  assert.equal(result.code, 1, result.stderr);
  assert.match(result.stderr, /npm install -g @openai\/codex/);
  assert.equal(result.stdout, "");
  assert.deepEqual(await Deno.readFile(join(home.path, "config.yaml")), before);
  const bad = await herald(["codex-runtime", "sideways"], baseEnv(home.path, "/usr/bin:/bin"));
  assert.equal(bad.code, 2);
  assert.match(bad.stderr, /Usage: herald codex-runtime \[auto \| codex_app_server \| on \| off\]/);
});

Deno.test("codex-runtime on and migrate keep a hand-written config.toml; the real app-server loads it", async () => {
  const codex = await codexBinary();
  await using home = await tempDir();
  // A hand-written config.toml: top-level lines, then tables (the fake provider is never called here).
  await using cx = await codexHome({ baseUrl: "http://127.0.0.1:9/v1", topLevel: "# my own line" });
  const toml = join(cx.path, "config.toml");
  const handWritten = await Deno.readTextFile(toml);
  await Deno.writeTextFile(join(home.path, "config.yaml"), CONFIG_YAML);
  const env: Record<string, string> = {
    ...baseEnv(home.path, `${dirname(codex)}:/usr/bin:/bin`),
    CODEX_HOME: cx.path,
  };

  const on = await herald(["codex-runtime", "on"], env);
  assert.equal(on.code, 0, on.stderr);
  assert.match(on.stdout, /Applies from the next session\.\n$/);
  const first = await Deno.readTextFile(toml);
  assert.ok(first.startsWith(MANAGED_BLOCK_START));
  assert.equal(outsideManagedBlock(first), handWritten);

  const migrate = await herald(["codex-runtime", "migrate"], env);
  assert.equal(migrate.code, 0, migrate.stderr);
  assert.match(migrate.stdout, /Wrote Herald's managed block/);
  const second = await Deno.readTextFile(toml);
  assert.equal(outsideManagedBlock(second), handWritten);
  assert.equal(second, first);

  const shown = await herald(["codex-runtime"], env);
  assert.match(shown.stdout, /Runtime: codex_app_server/);

  const started = await threadStart(
    codex,
    { ...cx.env, PATH: env.PATH, HOME: env.HOME },
    home.path,
  );
  assert.deepEqual(started.warnings.filter((w) => /invalid configuration/i.test(w)), []);
  assert.equal(started.result.activePermissionProfile?.id, ":workspace");
  assert.equal(started.result.sandbox?.type, "workspaceWrite");
});

interface ThreadStarted {
  result: { activePermissionProfile?: { id: string }; sandbox?: { type: string } };
  warnings: string[];
}

/** What codex app-server answers to thread/start with this config, and the config warnings it sent. */
async function threadStart(
  codex: string,
  env: Record<string, string>,
  cwd: string,
): Promise<ThreadStarted> {
  await using server = await startBareAppServer(codex, env, cwd);
  const result = await server.request("thread/start", { cwd }) as ThreadStarted["result"];
  const warnings = server.seen.filter((message) => message.method === "configWarning")
    .map((message) => JSON.stringify(message.params));
  return { result, warnings };
}

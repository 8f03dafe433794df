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
import { spawnProcessGroup } from "../../adapters/process/spawn_group.ts";
import { MANAGED_BLOCK_START, outsideManagedBlock } from "../../core/codex/config_toml.ts";
import { REPO_ROOT, tempDir } from "../_helpers.ts";
import { codexBinary, codexHome } from "../codex_cli.ts";

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

async function herald(args: string[], env: Record<string, string>) {
  const output = await new Deno.Command(Deno.execPath(), {
    args: ["run", "--allow-all", "--quiet", join(REPO_ROOT, "cli", "main.ts"), ...args],
    env,
    clearEnv: true,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).output();
  const decode = (bytes: Uint8Array) => new TextDecoder().decode(bytes);
  return { code: output.code, stdout: decode(output.stdout), stderr: decode(output.stderr) };
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

/** Starts `codex app-server`, sends initialize and thread/start, reads until the answer to id 2. */
async function threadStart(
  codex: string,
  env: Record<string, string>,
  cwd: string,
): Promise<ThreadStarted> {
  const group = spawnProcessGroup(codex, {
    args: ["app-server"],
    env,
    clearEnv: true,
    cwd,
    stdin: "piped",
    stdout: "piped",
    stderr: "null",
  });
  const writer = group.child.stdin.getWriter();
  const send = (message: unknown) =>
    writer.write(new TextEncoder().encode(JSON.stringify(message) + "\n"));
  const warnings: string[] = [];
  try {
    await send({
      id: 1,
      method: "initialize",
      params: {
        clientInfo: { name: "herald_test", version: "0" },
        capabilities: { experimentalApi: true },
      },
    });
    let buffer = "";
    for await (const chunk of group.child.stdout.pipeThrough(new TextDecoderStream())) {
      buffer += chunk;
      let newline;
      while ((newline = buffer.indexOf("\n")) >= 0) {
        const message = JSON.parse(buffer.slice(0, newline));
        buffer = buffer.slice(newline + 1);
        if (message.method === "configWarning") warnings.push(JSON.stringify(message.params));
        if (message.id === 1) {
          await send({ method: "initialized" });
          await send({ id: 2, method: "thread/start", params: { cwd } });
        }
        if (message.id === 2) {
          assert.equal(message.error, undefined, JSON.stringify(message.error));
          return { result: message.result, warnings };
        }
      }
    }
    throw new Error("codex app-server ended before answering thread/start");
  } finally {
    await writer.close().catch(() => {});
    await group.terminate({ graceMs: 2000 });
  }
}

/**
 * `/codex-runtime` through the real adapters: a profile home on disk, the
 * real codex CLI for the version check, Codex's config.toml in a temporary
 * CODEX_HOME. Enabling writes config.yaml (comments kept) and the managed
 * block; disabling leaves config.toml alone; a broken config.toml only warns.
 */

import assert from "node:assert/strict";
import { dirname, join } from "node:path";
import { profilePaths } from "../../../adapters/home/mod.ts";
import { codexConfigFile, codexHomeFor } from "../../../adapters/codex/config_file.ts";
import { codexProgram } from "../../../adapters/codex/program.ts";
import { codexRuntimePorts, toolServerCommand } from "../../../adapters/runtime/codex_ports.ts";
import {
  describeCodexRuntime,
  migrateCodexConfig,
  parseRuntimeArgument,
  switchCodexRuntime,
} from "../../../core/usecases/codex_runtime.ts";
import { MANAGED_BLOCK_START, outsideManagedBlock } from "../../../core/codex/config_toml.ts";
import { tempDir } from "../../_helpers.ts";
import { codexBinary } from "../../codex_cli.ts";

const CONFIG_YAML = "# my config, with a comment\nagent:\n  max_turns: 7 # keep me\n";
const HAND_WRITTEN = '# my codex line\nmodel = "gpt-5"\n\n[profiles.fast]\nmodel = "o4-mini"\n';

async function setup(root: string, codex: string) {
  const paths = profilePaths(join(root, "herald"), "default");
  await Deno.mkdir(paths.home, { recursive: true });
  await Deno.writeTextFile(paths.config, CONFIG_YAML);
  const codexHome = join(root, "codex");
  await Deno.mkdir(codexHome);
  await Deno.writeTextFile(join(codexHome, "config.toml"), HAND_WRITTEN);
  const env = {
    HOME: root,
    HERALD_HOME: dirname(paths.config),
    CODEX_HOME: codexHome,
    PATH: `${dirname(codex)}:/usr/bin:/bin`,
  };
  return { paths, env, codexHome, toml: join(codexHome, "config.toml") };
}

Deno.test("parseRuntimeArgument reads on/off and the names, any case, and refuses the rest", () => {
  assert.deepEqual(parseRuntimeArgument(""), { mode: null });
  assert.deepEqual(parseRuntimeArgument(" On "), { mode: "codex_app_server" });
  assert.deepEqual(parseRuntimeArgument("CODEX_APP_SERVER"), { mode: "codex_app_server" });
  assert.deepEqual(parseRuntimeArgument("off"), { mode: "auto" });
  assert.deepEqual(parseRuntimeArgument("auto"), { mode: "auto" });
  const bad = parseRuntimeArgument("maybe");
  assert.ok(
    "error" in bad &&
      bad.error.startsWith("Usage: /codex-runtime [auto | codex_app_server | on | off]"),
  );
});

Deno.test("switching on writes the runtime and the block; again says Already; off leaves config.toml alone", async () => {
  await using dir = await tempDir();
  const { paths, env, toml } = await setup(dir.path, await codexBinary());
  const ports = await codexRuntimePorts(paths, env);

  const on = await switchCodexRuntime(ports, "codex_app_server");
  assert.equal(on.ok, true, on.text);
  assert.match(on.text, /codex-cli \d+\.\d+\.\d+/);
  assert.ok(on.text.endsWith("Applies from the next session."), on.text);
  const yaml = await Deno.readTextFile(paths.config);
  assert.ok(yaml.startsWith(CONFIG_YAML.trimEnd()), "comments kept");
  assert.match(yaml, /openai_runtime: codex_app_server/);
  const text = await Deno.readTextFile(toml);
  assert.ok(text.startsWith(MANAGED_BLOCK_START));
  assert.equal(outsideManagedBlock(text), HAND_WRITTEN);
  assert.match(text, /default_permissions = ":workspace"/);
  assert.match(text, /mcp_servers\.herald = \{ command = .*"mcp", "serve"\]/);

  const again = await switchCodexRuntime(ports, "codex_app_server");
  assert.match(again.text, /Already using codex_app_server/);
  assert.ok(again.text.split("\n").at(-1)!.startsWith("Already"));

  await Deno.writeTextFile(toml, text + "# added by hand after the switch\n");
  const before = await Deno.readFile(toml);
  const off = await switchCodexRuntime(ports, "auto");
  assert.equal(off.ok, true);
  assert.ok(off.text.endsWith("Applies from the next session."));
  assert.match(await Deno.readTextFile(paths.config), /openai_runtime: auto/);
  assert.deepEqual(await Deno.readFile(toml), before, "config.toml untouched by off");
  assert.match(
    await describeCodexRuntime(ports),
    /Runtime: auto[\s\S]*Codex: codex-cli[\s\S]*Permissions: auto \(:workspace\)/,
  );
});

Deno.test("a config.toml that cannot be read or written only warns; the switch still applies", async () => {
  await using dir = await tempDir();
  const { paths, env, toml } = await setup(dir.path, await codexBinary());
  await Deno.remove(toml);
  await Deno.mkdir(toml); // a folder where the file should be
  const ports = await codexRuntimePorts(paths, env);
  const result = await switchCodexRuntime(ports, "codex_app_server");
  assert.equal(result.ok, true);
  assert.equal(result.warnings.length, 1);
  assert.match(result.warnings[0], /Codex config not updated: cannot read/);
  assert.match(await Deno.readTextFile(paths.config), /openai_runtime: codex_app_server/);
});

Deno.test("invalid TOML outside the block is reported with its line and left as it is", async () => {
  await using dir = await tempDir();
  const { paths, env, toml } = await setup(dir.path, await codexBinary());
  await Deno.writeTextFile(toml, 'ok = 1\nbroken = "no end\n');
  const migration = await migrateCodexConfig(await codexRuntimePorts(paths, env));
  assert.equal(migration.written, false);
  assert.match(migration.warnings.join("\n"), /line 2/);
  assert.equal(await Deno.readTextFile(toml), 'ok = 1\nbroken = "no end\n');
});

Deno.test("a missing config.toml is created 0600 in a new Codex home", async () => {
  await using dir = await tempDir();
  const home = join(dir.path, "fresh", "codex");
  const file = codexConfigFile(home);
  assert.equal(await file.read(), null);
  await file.write("a = 1\n");
  assert.equal((await Deno.stat(file.path)).mode! & 0o777, 0o600);
  assert.equal(await file.read(), "a = 1\n");
});

Deno.test("a config.toml that is a symbolic link is written where it lives; the link stays", async () => {
  await using dir = await tempDir();
  const dotfiles = join(dir.path, "dotfiles");
  const home = join(dir.path, "codex");
  await Deno.mkdir(dotfiles);
  await Deno.mkdir(home);
  await Deno.writeTextFile(join(dotfiles, "config.toml"), "a = 1\n");
  await Deno.symlink(join(dotfiles, "config.toml"), join(home, "config.toml"));
  const file = codexConfigFile(home);
  await file.write("a = 2\n");
  assert.ok((await Deno.lstat(file.path)).isSymlink);
  assert.equal(await Deno.readTextFile(join(dotfiles, "config.toml")), "a = 2\n");
});

Deno.test("codexHomeFor: codex.home (with ~), else CODEX_HOME, else ~/.codex", () => {
  const config = (home?: string) => ({
    codex: { permissions: "auto" as const, turn_timeout: 1800, home },
  });
  assert.equal(codexHomeFor(config("~/cx"), { HOME: "/u", CODEX_HOME: "/e" }), "/u/cx");
  assert.equal(codexHomeFor(config(), { HOME: "/u", CODEX_HOME: "/e" }), "/e");
  assert.equal(codexHomeFor(config(), { HOME: "/u" }), "/u/.codex");
});

Deno.test("the tool server serves this profile: its root in HERALD_HOME and -p with its name", () => {
  const work = toolServerCommand(profilePaths("/r", "work"));
  assert.deepEqual(work.env, { HERALD_HOME: "/r" });
  assert.deepEqual(work.args.slice(-4), ["-p", "work", "mcp", "serve"]);
  assert.deepEqual(toolServerCommand(profilePaths("/r", "default")).env, { HERALD_HOME: "/r" });
});

Deno.test("codexProgram: the real codex answers; a missing one is null", async () => {
  const codex = await codexBinary();
  assert.match((await codexProgram(codex, { PATH: "/usr/bin:/bin" }).version())!, /^codex-cli /);
  assert.equal(await codexProgram("codex", { PATH: "/nonexistent" }).version(), null);
});

Deno.test("codexProgram: a program that does not answer within 5 s is null, and ended", async () => {
  await using dir = await tempDir();
  const script = join(dir.path, "codex");
  const marker = join(dir.path, "still-running");
  await Deno.writeTextFile(script, `#!/bin/sh\nsleep 30\ntouch ${marker}\n`);
  await Deno.chmod(script, 0o755);
  assert.equal(await codexProgram(script, { PATH: "/usr/bin:/bin" }).version(), null);
  await new Promise((resolve) => setTimeout(resolve, 200));
  assert.equal(await Deno.stat(marker).then(() => true, () => false), false);
});

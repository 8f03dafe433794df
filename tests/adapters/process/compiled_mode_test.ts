/**
 * Herald inside a `deno compile` binary, tested without one (no Deno
 * runtime image is reachable here): each decision with the runtime facts of
 * a compiled binary injected, the spawn sites given a compiled command, and
 * one subprocess whose entry point lies under a `deno-compile-herald` folder,
 * which the runtime-facts wiring takes for a binary.
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import {
  heraldCheckout,
  heraldCheckoutFor,
  heraldCommandFor,
  type HeraldRuntimeFacts,
  liveExecPath,
} from "../../../adapters/process/mod.ts";
import { missingServerReason, resolveServerProgram } from "../../../adapters/lsp/command.ts";
import { seededFileMode } from "../../../adapters/skills/seed.ts";
import { pluginImportFailure } from "../../../adapters/plugins/load.ts";
import { REPO_ROOT, tempDir } from "../../_helpers.ts";
import { type JsonRequest, routesApp } from "../../server/_routes.ts";

/** This module's URL in a source checkout and in a binary's virtual file system. */
const SOURCE_MODULE = "file:///src/herald/adapters/process/herald_command.ts";
const VFS_MODULE = "file:///tmp/deno-compile-herald/adapters/process/herald_command.ts";

const SOURCE: HeraldRuntimeFacts = {
  execPath: "/usr/local/bin/deno",
  mainModule: "file:///src/herald/cli/main.ts",
  standalone: false,
  sourceMain: "/src/herald/cli/main.ts",
};

const COMPILED: HeraldRuntimeFacts = {
  execPath: "/home/u/.herald/bin/herald",
  mainModule: "file:///tmp/deno-compile-herald/cli/main.ts",
  standalone: true,
  sourceMain: "/tmp/deno-compile-herald/cli/main.ts",
};

/** A `herald` stand-in that prints its arguments: what a compiled binary would be given. */
async function fakeBinary(dir: string): Promise<string> {
  const path = join(dir, "herald");
  await Deno.writeTextFile(path, '#!/bin/sh\necho "args=$*"\n', { mode: 0o755 });
  return path;
}

async function finished(json: JsonRequest, id: string): Promise<Record<string, unknown>> {
  for (;;) {
    const action = (await json("GET", `/api/actions/${id}`)).body.action as Record<string, unknown>;
    if (action.status === "succeeded" || action.status === "failed") return action;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

Deno.test("from source the checkout is the folder two levels above this module", () => {
  assert.equal(heraldCheckoutFor(SOURCE, SOURCE_MODULE), "/src/herald");
  assert.equal(heraldCheckoutFor(SOURCE, new URL(SOURCE_MODULE)), "/src/herald");
  assert.equal(heraldCheckout(), REPO_ROOT);
});

Deno.test("a compiled binary has no checkout, though its modules have file: URLs", () => {
  assert.equal(heraldCheckoutFor(COMPILED, VFS_MODULE), undefined);
  // Decided from the main module alone when the runtime does not say it is standalone.
  const { standalone: _, ...unflagged } = COMPILED;
  assert.equal(heraldCheckoutFor(unflagged, VFS_MODULE), undefined);
  // A module loaded over the network has no folder either.
  assert.equal(
    heraldCheckoutFor(SOURCE, "https://example.com/herald/adapters/process/herald_command.ts"),
    undefined,
  );
});

Deno.test("a compiled binary's language servers come from PATH only, and a miss says so", async () => {
  await using dir = await tempDir();
  const bin = join(dir.path, "bin");
  const modules = join(dir.path, "checkout", "node_modules", ".bin");
  for (const folder of [bin, modules]) {
    await Deno.mkdir(folder, { recursive: true });
    await Deno.writeTextFile(join(folder, "pyright-langserver"), "#!/bin/sh\n", { mode: 0o755 });
  }
  const checkout = join(dir.path, "checkout");
  // From source the checkout's node_modules/.bin comes first; compiled (no checkout), PATH.
  assert.equal(
    resolveServerProgram("pyright-langserver", { cwd: dir.path, path: bin, checkout }),
    join(modules, "pyright-langserver"),
  );
  assert.equal(
    resolveServerProgram("pyright-langserver", { cwd: dir.path, path: bin, checkout: undefined }),
    join(bin, "pyright-langserver"),
  );
  const compiled = { cwd: dir.path, path: "", checkout: undefined };
  assert.equal(resolveServerProgram("typescript-language-server", compiled), undefined);
  assert.equal(
    missingServerReason("typescript-language-server", compiled),
    "typescript-language-server is not on PATH (this Herald has no node_modules of its own); " +
      "install it: npm install -g typescript-language-server typescript",
  );
  assert.equal(
    missingServerReason("gopls", { cwd: dir.path, path: "", checkout }),
    `gopls is in neither ${join(checkout, "node_modules", ".bin")} nor PATH; put it on PATH, ` +
      "or set the server's command in lsp.servers to its path",
  );
});

Deno.test("a bundled skill copied out of a binary's embedded files stays readable", () => {
  // Embedded files report mode 0; Windows reports none.
  assert.equal(seededFileMode(0), 0o644);
  assert.equal(seededFileMode(null), 0o644);
  assert.equal(seededFileMode(0o100755), 0o755);
  assert.equal(seededFileMode(0o100600), 0o600);
});

Deno.test("a plugin a compiled binary cannot import is explained, other failures are kept", () => {
  const notFound = "Module not found: file:///home/u/.herald/plugins/tidy.ts\n    at async x";
  assert.match(pluginImportFailure(notFound, "compiled"), /compiled Herald binary loads only/);
  assert.equal(
    pluginImportFailure(notFound, "source"),
    "Module not found: file:///home/u/.herald/plugins/tidy.ts",
  );
  assert.equal(
    pluginImportFailure("SyntaxError: Unexpected token\n  at 3:1", "compiled"),
    "SyntaxError: Unexpected token",
  );
});

Deno.test("the dashboard's gateway restart runs a compiled binary as [binary, gateway, restart]", async () => {
  await using home = await tempDir();
  const binary = await fakeBinary(home.path);
  const { json } = await routesApp(home.path, {
    env: { HOME: home.path, PATH: Deno.env.get("PATH") },
    heraldCommand: heraldCommandFor({ ...COMPILED, execPath: binary }),
  });
  const started = (await json("POST", "/api/gateway/restart", {})).body.action as {
    id: string;
  };
  const action = await finished(json, started.id);
  assert.deepEqual(action.command, [binary, "gateway", "restart"]);
  assert.deepEqual(action.output_tail, ["args=gateway restart"]);
});

/**
 * What this proves: with the entry point under a folder named
 * `deno-compile-herald` (where a binary's embedded files appear), the real
 * wiring (`currentRuntimeFacts` from `Deno.mainModule`) decides "compiled",
 * so Herald's own modules report no checkout, the dashboard's update runs
 * `[binary, update, --yes]` without `--branch` in the server's home, the
 * Codex tool server is `[binary, -p, <profile>, mcp, serve]`, and a missing
 * language server is looked for on PATH only. What it does not prove: that
 * a real binary embeds these modules, reads its virtual file system, or
 * runs them; Herald's modules still load from this checkout's disk here.
 */
Deno.test("a process whose entry point lies in a deno-compile-herald folder takes the compiled branch", async () => {
  await using dir = await tempDir();
  const binary = await fakeBinary(dir.path);
  const folder = join(dir.path, "deno-compile-herald");
  await Deno.mkdir(folder);
  const repo = (path: string) => JSON.stringify(new URL(path, `file://${REPO_ROOT}/`).href);
  const probe = join(folder, "probe.ts");
  await Deno.writeTextFile(
    probe,
    `
import { currentRuntimeFacts, heraldCheckout, heraldCommandFor, heraldLaunchMode } from ${
      repo("adapters/process/mod.ts")
    };
import { toolServerCommand } from ${repo("adapters/runtime/codex_ports.ts")};
import { profilePaths } from ${repo("adapters/home/mod.ts")};
import { openLspDiagnostics } from ${repo("adapters/lsp/service.ts")};
import { routesApp } from ${repo("tests/server/_routes.ts")};

const home = Deno.args[0];
const facts = currentRuntimeFacts();
const heraldCommand = heraldCommandFor({ ...facts, execPath: Deno.args[1] });
const { json } = await routesApp(home, { env: { HOME: home, PATH: Deno.env.get("PATH") }, heraldCommand });
const started = (await json("POST", "/api/herald/update", {})).body.action;
let update;
for (;;) {
  update = (await json("GET", "/api/actions/" + started.id)).body.action;
  if (update.status === "succeeded" || update.status === "failed") break;
  await new Promise((resolve) => setTimeout(resolve, 25));
}
const lsp = openLspDiagnostics(undefined, { cwd: home, env: { PATH: "" } });
await Deno.mkdir(home + "/project");
await Deno.writeTextFile(home + "/project/package.json", "{}\\n");
await Deno.writeTextFile(home + "/project/a.ts", "export const a = 1;\\n");
await lsp.diagnose(home + "/project/a.ts", null);
const lspStatus = lsp.status();
await lsp.close();
console.log(JSON.stringify({
  mode: heraldLaunchMode(facts),
  checkout: heraldCheckout() ?? null,
  command: heraldCommand,
  update: { command: update.command, details: update.details, output: update.output_tail },
  toolServer: toolServerCommand(profilePaths(home, "work")),
  lsp: lspStatus.map((status) => status.reason),
}));
`,
  );
  const home = join(dir.path, "home");
  await Deno.mkdir(home);
  const output = await new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", "--quiet", "--config", join(REPO_ROOT, "deno.json"), probe, home, binary],
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).output();
  const stderr = new TextDecoder().decode(output.stderr);
  assert.equal(output.code, 0, stderr);
  const seen = JSON.parse(new TextDecoder().decode(output.stdout).trim().split("\n").at(-1)!);
  assert.equal(seen.mode, "compiled");
  assert.equal(seen.checkout, null);
  assert.deepEqual(seen.command, [binary]);
  assert.deepEqual(seen.update.command, [binary, "update", "--yes"]);
  assert.equal(seen.update.details.checkout, null);
  assert.equal(seen.update.details.branch, null);
  assert.deepEqual(seen.update.output, ["args=update --yes"]);
  // The tool server takes the real heraldCommand(): here the process's own program (deno
  // standing in for the binary) with Herald's arguments straight after it.
  assert.equal(seen.toolServer.command, Deno.execPath());
  assert.deepEqual(seen.toolServer.args, ["-p", "work", "mcp", "serve"]);
  assert.deepEqual(seen.lsp, [
    "typescript-language-server is not on PATH (this Herald has no node_modules of its own); " +
    "install it: npm install -g typescript-language-server typescript",
  ]);
});

Deno.test("a process whose binary an update replaced still starts the program at its path", async () => {
  assert.equal(liveExecPath("/opt/herald/bin/herald (deleted)", "linux"), "/opt/herald/bin/herald");
  assert.equal(liveExecPath("C:\\herald (deleted)", "windows"), "C:\\herald (deleted)");
  if (Deno.build.os !== "linux") return;
  await using dir = await tempDir();
  // A copy of the runtime stands in for a release binary that keeps running while it is replaced.
  const binary = join(dir.path, "herald");
  await Deno.copyFile(Deno.execPath(), binary);
  const go = join(dir.path, "go");
  const script = join(dir.path, "probe.ts");
  await Deno.writeTextFile(
    script,
    `import { currentRuntimeFacts } from ${
      JSON.stringify(new URL("../../../adapters/process/herald_command.ts", import.meta.url).href)
    };
while (true) { try { Deno.statSync(${
      JSON.stringify(go)
    }); break; } catch { await new Promise((r) => setTimeout(r, 20)); } }
const path = currentRuntimeFacts().execPath;
const ran = await new Deno.Command(path, { args: ["--version"], stdout: "null" }).output();
console.log(JSON.stringify({ reported: Deno.execPath(), path, code: ran.code }));
`,
  );
  const child = new Deno.Command(binary, {
    args: ["run", "-A", "--quiet", "--config", join(REPO_ROOT, "deno.json"), script],
    stdout: "piped",
  }).spawn();
  // Replaced as herald update does: the old file kept as .previous by a link, the new one renamed in.
  await new Promise((resolve) => setTimeout(resolve, 300));
  await Deno.link(binary, `${binary}.previous`);
  await Deno.copyFile(Deno.execPath(), `${binary}.new`);
  await Deno.rename(`${binary}.new`, binary);
  await Deno.writeTextFile(go, "");
  const out = JSON.parse(new TextDecoder().decode((await child.output()).stdout));
  assert.equal(out.path, binary);
  assert.equal(out.code, 0);
});

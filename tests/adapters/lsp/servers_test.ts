/**
 * The language-server channel end to end: real typescript-language-server
 * and pyright behind write_file and patch, files outside any project, and
 * servers that hang, break the framing or do not exist. Every test closes
 * its servers and checks that their process groups are gone.
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { type LspConfig, openLspDiagnostics } from "../../../adapters/lsp/mod.ts";
import { createFileTools } from "../../../adapters/tools/files/mod.ts";
import { tempDir } from "../../_helpers.ts";
import { eventually, processAlive, toolContext } from "../tools/_context.ts";
import { groupGone, groupMembers, projectDir } from "./_workspace.ts";

/** The diagnostics seam and file tools over it; closing stops the servers and checks they are gone. */
function setup(cwd: string, config?: LspConfig) {
  const lsp = openLspDiagnostics(config, { cwd });
  const tools = createFileTools({ diagnostics: lsp.diagnose });
  const ctx = toolContext({ cwd });
  return {
    lsp,
    tools,
    ctx,
    async [Symbol.asyncDispose]() {
      const pids = lsp.status().flatMap((status) => status.pid ? [status.pid] : []);
      await lsp.close();
      for (const pid of pids) assert.deepEqual(await groupGone(pid), [], `group ${pid} left`);
    },
  };
}

Deno.test("typescript-language-server: an introduced type error is reported, the fix clears it", async () => {
  await using dir = await projectDir();
  await using rig = setup(dir.path);
  const { tools, ctx } = rig;

  const bad = await tools.writeFile.run(
    { path: "main.ts", content: 'export const n: number = "not a number";\n' },
    ctx,
  );
  assert.equal(bad.lint.status, "ok");
  const file = join(dir.path, "main.ts");
  assert.equal(
    bad.lsp_diagnostics,
    [
      "LSP diagnostics introduced by this edit:",
      `<diagnostics file="${file}">`,
      "ERROR [1:14] Type 'string' is not assignable to type 'number'. [2322] (typescript)",
      "</diagnostics>",
    ].join("\n"),
  );

  const fixed = await tools.patch.run(
    { path: "main.ts", old_string: '"not a number"', new_string: "42" },
    ctx,
  );
  assert.equal("lsp_diagnostics" in fixed, false);

  const status = rig.lsp.status();
  assert.equal(status.length, 1);
  assert.equal(status[0].state, "running");
  assert.ok(groupMembers(status[0].pid!).length > 0);
});

Deno.test("typescript-language-server: an error already in the file is not reported again", async () => {
  await using dir = await projectDir();
  const old = 'export const n: number = "old";\n';
  await Deno.writeTextFile(join(dir.path, "main.ts"), old);
  await using rig = setup(dir.path);
  const { tools, ctx } = rig;

  // The old error moves down a line; the edit adds no new one.
  const moved = await tools.writeFile.run(
    { path: "main.ts", content: `export const ok = 1;\n${old}` },
    ctx,
  );
  assert.equal("lsp_diagnostics" in moved, false);

  // A new error beside the old one is reported alone.
  const added = await tools.patch.run(
    {
      path: "main.ts",
      old_string: "export const ok = 1;",
      new_string: "export const s: string = 1;",
    },
    ctx,
  );
  assert.match(
    added.lsp_diagnostics ?? "",
    /ERROR \[1:14\] Type 'number' is not assignable to type 'string'/,
  );
  assert.doesNotMatch(added.lsp_diagnostics ?? "", /'string' is not assignable to type 'number'/);
  assert.equal(added.lsp_diagnostics!.split("\n").length, 4);
});

Deno.test("a file whose earlier text is unknown (over 256 KiB) gets no diagnostics: its old errors are not the edit's", async () => {
  await using dir = await projectDir();
  const filler = `// ${"x".repeat(100)}\n`.repeat(3_000);
  const old = `export const n: number = "old";\n${filler}`;
  await Deno.writeTextFile(join(dir.path, "big.ts"), old);
  await using rig = setup(dir.path);
  const { tools, ctx } = rig;

  const written = await tools.writeFile.run(
    { path: "big.ts", content: `export const ok = 1;\n${old}` },
    ctx,
  );
  assert.equal(written.lint.status, "ok");
  assert.equal("lsp_diagnostics" in written, false);
  assert.deepEqual(rig.lsp.status(), [], "no server is started for a write it cannot judge");
});

Deno.test("pyright: an introduced type error is reported, the fix clears it", async () => {
  await using dir = await projectDir();
  await using rig = setup(dir.path);
  const { tools, ctx } = rig;

  const bad = await tools.writeFile.run(
    { path: "app.py", content: 'def f(x: int) -> int:\n    return x\n\nn: int = "not a number"\n' },
    ctx,
  );
  assert.match(
    bad.lsp_diagnostics ?? "",
    /^ERROR \[4:10\] Type "Literal\['not a number'\]" is not assignable to declared type "int".* \[reportAssignmentType\] \(Pyright\)$/m,
  );
  const fixed = await tools.patch.run(
    { path: "app.py", old_string: '"not a number"', new_string: "f(2)" },
    ctx,
  );
  assert.equal("lsp_diagnostics" in fixed, false);
  assert.equal(rig.lsp.status()[0].server, "pyright");
});

Deno.test("a file outside any project gets no lsp_diagnostics and starts no server", async () => {
  await using dir = await tempDir("herald-lsp-loose-");
  await using rig = setup(dir.path);
  const result = await rig.tools.writeFile.run(
    { path: "loose.ts", content: 'export const n: number = "x";\n' },
    rig.ctx,
  );
  assert.equal(result.lint.status, "ok");
  assert.equal("lsp_diagnostics" in result, false);
  assert.deepEqual(rig.lsp.status(), []);
});

Deno.test("disabled, or a server whose program is nowhere: no diagnostics, no error", async () => {
  await using dir = await projectDir();
  await using off = setup(dir.path, { enabled: false });
  const quiet = await off.tools.writeFile.run(
    { path: "a.ts", content: 'const n: number = "x";\n' },
    off.ctx,
  );
  assert.equal("lsp_diagnostics" in quiet, false);
  assert.deepEqual(off.lsp.status(), []);

  await using missing = setup(dir.path, {
    servers: { typescript: { command: ["herald-no-such-language-server", "--stdio"] } },
  });
  const skipped = await missing.tools.writeFile.run({
    path: "b.ts",
    content: 'const n: number = "x";\n',
  }, missing.ctx);
  assert.equal("lsp_diagnostics" in skipped, false);
  assert.equal(missing.lsp.status()[0].state, "missing");
});

Deno.test("a server that never answers is marked broken after the 8 s timeout; later writes skip it", async () => {
  await using dir = await projectDir();
  const spawns = join(dir.path, "spawns.log");
  await using rig = setup(dir.path, {
    servers: {
      typescript: { disabled: true },
      // Reads its input forever and never answers.
      silent: {
        command: ["sh", "-c", `echo $$ >> '${spawns}'; exec cat > /dev/null`],
        extensions: ["ts"],
      },
    },
  });
  const first = await rig.tools.writeFile.run(
    { path: "a.ts", content: "export const a = 1;\n" },
    rig.ctx,
  );
  assert.equal("lsp_diagnostics" in first, false);
  const [status] = rig.lsp.status();
  assert.equal(status.state, "broken");
  assert.match(status.reason ?? "", /did not answer within 8000 ms/);
  const pid = Number((await Deno.readTextFile(spawns)).trim());
  assert.equal(
    await eventually(() => !processAlive(pid)),
    true,
    "the silent server was stopped when it was marked broken",
  );

  // Skipped at once: nothing new is started, nothing is waited for.
  const second = await rig.tools.writeFile.run(
    { path: "b.ts", content: "export const b = 1;\n" },
    rig.ctx,
  );
  assert.equal("lsp_diagnostics" in second, false);
  assert.equal((await Deno.readTextFile(spawns)).trim().split("\n").length, 1);
  assert.equal(rig.lsp.status()[0].state, "broken");
});

Deno.test("a server whose header block is over 8 KiB breaks the framing and is marked broken", async () => {
  await using dir = await projectDir();
  await using rig = setup(dir.path, {
    servers: {
      typescript: { disabled: true },
      chatty: {
        command: [
          "sh",
          "-c",
          "printf 'Content-Length: 2\\r\\nX-Pad: '; head -c 9000 /dev/zero | tr '\\0' a; exec cat > /dev/null",
        ],
        extensions: ["ts"],
      },
    },
  });
  const result = await rig.tools.writeFile.run(
    { path: "a.ts", content: "export const a = 1;\n" },
    rig.ctx,
  );
  assert.equal("lsp_diagnostics" in result, false);
  const [status] = rig.lsp.status();
  assert.equal(status.state, "broken");
  assert.match(status.reason ?? "", /header section is over the 8192-byte limit/);
});

import assert from "node:assert/strict";
import { join } from "node:path";
import {
  formatDiagnostics,
  introducedDiagnostics,
  lineShift,
  type LspDiagnostic,
  lspServers,
  MAX_ROOT_STEPS,
  reportable,
  serverForPath,
} from "../../../core/lsp/mod.ts";
import { findWorkspaceRoot } from "../../../adapters/lsp/mod.ts";
import { tempDir } from "../../_helpers.ts";

function diagnostic(
  line: number,
  message: string,
  extra: Partial<LspDiagnostic> = {},
): LspDiagnostic {
  return {
    range: { start: { line, character: 4 }, end: { line, character: 5 } },
    severity: 1,
    code: 2322,
    source: "typescript",
    message,
    ...extra,
  };
}

Deno.test("lineShift keeps lines above an edit and moves the ones below it", () => {
  assert.deepEqual(lineShift("a\nb\nc", "a\nx\ny\nb\nc"), [0, 3, 4]);
  assert.deepEqual(lineShift("a\nb\nc", "a\nB\nc"), [0, -1, 2]);
  assert.deepEqual(lineShift("a\nb\nc", "b\nc"), [-1, 0, 1]);
});

Deno.test("only errors and warnings count, not unnecessary-code hints", () => {
  assert.equal(reportable(diagnostic(0, "x")), true);
  assert.equal(reportable(diagnostic(0, "x", { severity: 2 })), true);
  assert.equal(reportable(diagnostic(0, "x", { severity: 2, tags: [1] })), false);
  assert.equal(reportable(diagnostic(0, "x", { severity: 3 })), false);
  assert.equal(reportable(diagnostic(0, "x", { severity: 4, tags: [1] })), false);
  assert.equal(reportable(diagnostic(0, "x", { severity: undefined })), true);
});

Deno.test("an old diagnostic that moved with its line is not introduced; a new copy is", () => {
  const before = "const a: number = 'x';\n";
  const after = "// added\nconst a: number = 'x';\nconst b: number = 'x';\n";
  const old = [diagnostic(0, "Type 'string' is not assignable to type 'number'.")];
  const moved = diagnostic(1, "Type 'string' is not assignable to type 'number'.");
  const fresh = diagnostic(2, "Type 'string' is not assignable to type 'number'.");
  const hint = diagnostic(2, "'b' is declared but its value is never read.", {
    severity: 4,
    tags: [1],
  });
  assert.deepEqual(introducedDiagnostics(old, [fresh, moved, hint], before, after), [fresh]);
  assert.deepEqual(introducedDiagnostics(old, [moved], before, after), []);
  // Another code or severity is another problem.
  const other = diagnostic(1, moved.message, { code: 2345 });
  assert.deepEqual(introducedDiagnostics(old, [other], before, after), [other]);
});

Deno.test("the report has 1-based positions, the severity word, code and source", () => {
  assert.equal(formatDiagnostics("/w/a.ts", []), "");
  const text = formatDiagnostics("/w/a.ts", [
    diagnostic(3, "second\n  detail", { severity: 2, code: "reportX", source: "Pyright" }),
    diagnostic(0, "first"),
  ]);
  assert.equal(
    text,
    [
      "LSP diagnostics introduced by this edit:",
      '<diagnostics file="/w/a.ts">',
      "ERROR [1:5] first [2322] (typescript)",
      "WARNING [4:5] second; detail [reportX] (Pyright)",
      "</diagnostics>",
    ].join("\n"),
  );
});

Deno.test("servers: built-ins by extension, overrides and servers of one's own", () => {
  const specs = lspServers({
    pyright: { disabled: true },
    gopls: { command: ["gopls"], extensions: [".go"] },
    half: { command: ["x"] },
  });
  assert.deepEqual(specs.map((spec) => spec.id), ["typescript", "gopls"]);
  assert.equal(serverForPath(specs, "/w/a.TSX")?.id, "typescript");
  assert.equal(serverForPath(specs, "/w/main.go")?.id, "gopls");
  assert.equal(serverForPath(specs, "/w/a.py"), undefined);
  assert.equal(serverForPath(specs, "/w/Makefile"), undefined);
});

Deno.test("the workspace root is the nearest folder with a marker, looked for 64 folders up", async () => {
  await using dir = await tempDir();
  const deep = join(dir.path, "app", "src", "lib");
  await Deno.mkdir(deep, { recursive: true });
  assert.equal(await findWorkspaceRoot(join(deep, "a.ts")), undefined);
  await Deno.mkdir(join(dir.path, ".git"));
  assert.equal(await findWorkspaceRoot(join(deep, "a.ts")), dir.path);
  await Deno.writeTextFile(join(dir.path, "app", "package.json"), "{}");
  assert.equal(await findWorkspaceRoot(join(deep, "a.ts")), join(dir.path, "app"));

  const parts = Array.from({ length: MAX_ROOT_STEPS }, (_, i) => `d${i}`);
  const tooDeep = join(dir.path, ...parts);
  await Deno.mkdir(tooDeep, { recursive: true });
  // The file's folder is step 1; the marker 64 folders up is one too far.
  assert.equal(await findWorkspaceRoot(join(tooDeep, "a.ts")), undefined);
  assert.equal(await findWorkspaceRoot(join(dir.path, ...parts.slice(1), "a.ts")), dir.path);
});

/**
 * Language-server diagnostics through the real agent: `herald chat -q` in a
 * git repository with a strict tsconfig, the scripted model writing a
 * TypeScript file with a type error and then the fix. The first write's
 * result carries `lsp_diagnostics` naming the error (from the real
 * typescript-language-server), the fix's result none; no language server
 * outlives the chat.
 *
 * @module
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { tempDir } from "../_helpers.ts";
import { startModelServer } from "../fakes/model_server.ts";
import { configureModel, runHerald } from "./_herald.ts";

/** The tool results the model received in a recorded request. */
function toolResults(body: unknown): string[] {
  const messages = (body as { messages?: { role: string; content: unknown }[] }).messages ?? [];
  return messages.filter((message) => message.role === "tool").map((message) =>
    String(message.content)
  );
}

async function languageServers(): Promise<string> {
  const ps = await new Deno.Command("ps", { args: ["-eo", "pid,args"], stdout: "piped" }).output();
  return new TextDecoder().decode(ps.stdout).split("\n").filter((line) =>
    line.includes("typescript-language-server") && !line.includes("ps -eo")
  ).join("\n");
}

Deno.test("a write with a type error gets lsp_diagnostics through the agent; the fix none", async () => {
  await using home = await tempDir();
  await using project = await tempDir();
  await using server = await startModelServer();
  await configureModel(home.path, server.openaiBaseUrl);
  await Deno.mkdir(join(project.path, ".git"));
  await Deno.writeTextFile(
    join(project.path, "tsconfig.json"),
    JSON.stringify({ compilerOptions: { strict: true, noEmit: true } }),
  );
  const file = join(project.path, "main.ts");
  server.enqueue(
    {
      toolCalls: [{
        name: "write_file",
        arguments: { path: file, content: 'export const n: number = "not a number";\n' },
      }],
    },
    {
      toolCalls: [{
        name: "write_file",
        arguments: { path: file, content: "export const n: number = 42;\n" },
      }],
    },
    { text: "Fixed." },
  );
  const before = await languageServers();
  const run = await runHerald({
    args: ["chat", "-q", "write it"],
    home: home.path,
    cwd: project.path,
  });
  assert.equal(run.code, 0, run.stderr);
  assert.equal(run.stdout.trim(), "Fixed.");

  const [broken] = toolResults(server.requests[1].body);
  assert.match(broken, /lsp_diagnostics/);
  assert.match(broken, /ERROR \[1:14\] Type 'string' is not assignable to type 'number'/);
  const fixed = toolResults(server.requests[2].body).at(-1)!;
  assert.doesNotMatch(fixed, /lsp_diagnostics/);
  assert.equal(await languageServers(), before, "no language server left running");
});

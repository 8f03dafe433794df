/**
 * `herald mcp list|add|remove`, run in-process against a temporary home.
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { buildProgram, captureOutput } from "../../cli/app.ts";
import { extractGlobalArgs } from "../../cli/argv.ts";
import { type CliContext, createContext } from "../../cli/context.ts";
import { EXIT, reportError } from "../../cli/errors.ts";
import { registerMcp } from "../../cli/commands/mcp.ts";
import { tempDir } from "../_helpers.ts";

/** Runs `herald <argv>` with `herald mcp` registered (whether or not cli/app.ts does it yet). */
async function herald(argv: string[], home: string) {
  const io = captureOutput();
  let code: number = EXIT.ok;
  try {
    const global = extractGlobalArgs(argv);
    let context: CliContext | undefined;
    const ctx = () => context ??= createContext(io, { HERALD_HOME: home }, global.profile);
    const program = buildProgram(io, ctx);
    if (!program.commands.some((c) => c.name() === "mcp")) registerMcp(program, ctx);
    await program.parseAsync(global.rest, { from: "user" });
  } catch (error) {
    code = reportError(error, io);
  }
  return { code, stdout: io.stdout, stderr: io.stderr };
}

Deno.test("herald mcp add stores the server, moves secret env values to .env and lists it as JSON", async () => {
  await using home = await tempDir();
  const added = await herald([
    "mcp",
    "add",
    "github",
    "--command",
    "npx",
    "--arg=-y",
    "--arg",
    "@modelcontextprotocol/server-github",
    "--env",
    "GITHUB_TOKEN=ghp_cli_secret_123456",
    "--json",
  ], home.path);
  assert.equal(added.code, 0, added.stderr);
  const result = JSON.parse(added.stdout);
  assert.deepEqual(result.secrets, ["GITHUB_TOKEN"]);
  assert.deepEqual(result.server.args, ["-y", "@modelcontextprotocol/server-github"]);
  assert.ok(!added.stdout.includes("ghp_cli_secret"));
  assert.match(
    await Deno.readTextFile(join(home.path, ".env")),
    /GITHUB_TOKEN=ghp_cli_secret_123456/,
  );
  assert.ok(!(await Deno.readTextFile(join(home.path, "config.yaml"))).includes("ghp_cli"));

  const listed = await herald(["mcp", "list", "--json"], home.path);
  const servers = JSON.parse(listed.stdout);
  assert.deepEqual(servers.map((s: { name: string }) => s.name), ["github"]);
  assert.equal(servers[0].env.GITHUB_TOKEN, "${GITHUB_TOKEN}");

  const text = await herald(["mcp", "list"], home.path);
  assert.match(text.stdout, /^github {2}stdio {2}npx -y @modelcontextprotocol\/server-github$/m);
});

Deno.test("herald mcp add refuses a duplicate, both transports or none; remove deletes it once", async () => {
  await using home = await tempDir();
  assert.equal(
    (await herald(["mcp", "add", "web", "--url", "http://127.0.0.1:1/mcp"], home.path)).code,
    0,
  );
  const duplicate = await herald(["mcp", "add", "web", "--command", "x"], home.path);
  assert.equal(duplicate.code, EXIT.usage);
  assert.match(duplicate.stderr, /already configured/);
  const both = await herald(["mcp", "add", "b", "--command", "x", "--url", "http://h/"], home.path);
  assert.equal(both.code, EXIT.usage);
  const none = await herald(["mcp", "add", "n"], home.path);
  assert.equal(none.code, EXIT.usage);
  const removed = await herald(["mcp", "remove", "web", "--json"], home.path);
  assert.deepEqual(JSON.parse(removed.stdout), { profile: "default", removed: "web" });
  const again = await herald(["mcp", "remove", "web"], home.path);
  assert.notEqual(again.code, 0);
  assert.match(again.stderr, /MCP server "web" not found/);
});

Deno.test("herald -p <profile> mcp add writes into that profile only", async () => {
  await using home = await tempDir();
  const created = await herald(["profile", "create", "work", "--no-skills"], home.path);
  assert.equal(created.code, 0, created.stderr);
  const added = await herald(["-p", "work", "mcp", "add", "fetch", "--command", "uvx"], home.path);
  assert.equal(added.code, 0, added.stderr);
  const work = await herald(["-p", "work", "mcp", "list", "--json"], home.path);
  assert.deepEqual(JSON.parse(work.stdout).map((s: { name: string }) => s.name), ["fetch"]);
  const main = await herald(["mcp", "list", "--json"], home.path);
  assert.deepEqual(JSON.parse(main.stdout), []);
});

/**
 * `herald help <command> [sub]` and the end of `herald --help`: the same
 * text as `--help` on the command, suggestions for a typo, examples and a
 * pointer to docs/cli.md.
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { captureOutput, run } from "../../cli/app.ts";
import { REPO_ROOT, tempDir } from "../_helpers.ts";

async function herald(home: string, ...argv: string[]) {
  const io = captureOutput();
  const code = await run(argv, { io, env: { HERALD_HOME: home, HOME: "/nonexistent" } });
  return { code, stdout: io.stdout, stderr: io.stderr };
}

Deno.test("herald help <command> [sub] prints that command's own help", async () => {
  await using home = await tempDir();
  for (const path of [["sessions"], ["sessions", "list"], ["profile", "create"], ["chat"]]) {
    const viaHelp = await herald(home.path, "help", ...path);
    const viaFlag = await herald(home.path, ...path, "--help");
    assert.equal(viaHelp.code, 0, path.join(" "));
    assert.equal(viaHelp.stdout, viaFlag.stdout, path.join(" "));
    assert.match(viaHelp.stdout, new RegExp(`^Usage: herald ${path.join(" ")} `));
  }
  const top = await herald(home.path, "help");
  assert.equal(top.code, 0);
  assert.equal(top.stdout, (await herald(home.path, "--help")).stdout);
});

Deno.test("herald help with an unknown command exits 2 and suggests the nearest", async () => {
  await using dir = await tempDir();
  const home = join(dir.path, "never-created");
  const top = await herald(home, "help", "sesions");
  assert.equal(top.code, 2);
  assert.equal(top.stdout, "");
  assert.equal(
    top.stderr,
    'herald: Unknown command "sesions" (did you mean `herald help sessions`?); ' +
      "run `herald --help` to see the commands\n",
  );
  const sub = await herald(home, "help", "sessions", "lsit");
  assert.equal(sub.code, 2);
  assert.match(
    sub.stderr,
    /\(did you mean `herald help sessions list`\?\); run `herald sessions --help`/,
  );
  const far = await herald(home, "help", "xylophone");
  assert.equal(far.code, 2);
  assert.equal(
    far.stderr,
    'herald: Unknown command "xylophone"; run `herald --help` to see the commands\n',
  );
  assert.throws(() => Deno.statSync(home), Deno.errors.NotFound);
});

Deno.test("herald help followed by a sentence says how to send it to the agent", async () => {
  await using dir = await tempDir();
  const home = join(dir.path, "never-created");
  const result = await herald(home, "help", "me", "fix", "this");
  assert.equal(result.code, 2);
  assert.equal(
    result.stderr,
    'herald: Unknown command "me"; run `herald --help` to see the commands. ' +
      'To send "help me fix this" to the agent as a prompt, run `herald -- help me fix this`\n',
  );
  const nested = await herald(home, "help", "sessions", "lsit", "now");
  assert.doesNotMatch(nested.stderr, /herald --/, "a subcommand's typo gets no prompt hint");
});

Deno.test("--help ends with the entry points, examples and a pointer to docs/cli.md", async () => {
  await using home = await tempDir();
  const help = await herald(home.path, "--help");
  assert.equal(help.code, 0);
  const tail = help.stdout.slice(help.stdout.indexOf("\nStart:\n"));
  assert.notEqual(tail, help.stdout, "the entry points follow the command list");
  assert.match(tail, /herald "<prompt>"/);
  assert.match(tail, /herald -c, --continue/);
  assert.match(tail, /\nExamples:\n( {2}herald.*\n| {2}.*\| herald\n| {2}source .*\n)+/);
  assert.match(help.stdout, /docs\/cli\.md\n+$/);
  assert.match(help.stdout, /-C, --cd <dir>/);
  assert.match(help.stdout, /-v, --version/);
  await Deno.stat(join(REPO_ROOT, "docs", "cli.md"));
  // Subcommands keep their own help without the program's examples.
  assert.doesNotMatch((await herald(home.path, "sessions", "--help")).stdout, /Examples:/);
});

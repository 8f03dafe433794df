/** Running Herald itself: from source through the deno binary, or a compiled binary directly. */

import assert from "node:assert/strict";
import { join } from "node:path";
import {
  currentRuntimeFacts,
  heraldCommand,
  heraldCommandFor,
  heraldLaunchMode,
} from "../../../adapters/process/mod.ts";
import { REPO_ROOT } from "../../_helpers.ts";

const SOURCE_MAIN = "/src/herald/cli/main.ts";

Deno.test("the deno binary running a file on disk runs Herald's source entry point", () => {
  const facts = {
    execPath: "/usr/local/bin/deno",
    mainModule: "file:///src/herald/cli/main.ts",
    standalone: false,
    sourceMain: SOURCE_MAIN,
  };
  assert.equal(heraldLaunchMode(facts), "source");
  assert.deepEqual(heraldCommandFor(facts), [
    "/usr/local/bin/deno",
    "run",
    "--allow-all",
    "--quiet",
    SOURCE_MAIN,
  ]);
});

Deno.test("a compiled binary runs itself with no extra arguments", () => {
  const facts = {
    execPath: "/home/u/.herald/bin/herald",
    mainModule: "file:///tmp/deno-compile-herald/cli/main.ts",
    standalone: true,
    sourceMain: "/tmp/deno-compile-herald/cli/main.ts",
  };
  assert.equal(heraldLaunchMode(facts), "compiled");
  assert.deepEqual(heraldCommandFor(facts), ["/home/u/.herald/bin/herald"]);
});

Deno.test("a main module inside a compiled binary's virtual file system means compiled without the build flag", () => {
  for (
    const mainModule of [
      "file:///tmp/deno-compile-herald/cli/main.ts",
      "file:///C:/Users/u/AppData/Local/Temp/deno-compile-herald.exe/cli/main.ts",
    ]
  ) {
    const facts = { execPath: "/opt/herald", mainModule, sourceMain: SOURCE_MAIN };
    assert.equal(heraldLaunchMode(facts), "compiled", mainModule);
    assert.deepEqual(heraldCommandFor(facts), ["/opt/herald"]);
  }
});

Deno.test("a test file, an eval or a remote entry point still runs from source", () => {
  for (
    const mainModule of [
      "file:///src/herald/tests/server/app_test.ts",
      "file:///src/herald/$deno$eval.mts",
      "https://example.com/herald/cli/main.ts",
      "file:///home/u/deno-compile-notes.ts",
    ]
  ) {
    const facts = {
      execPath: "/usr/bin/deno",
      mainModule,
      standalone: false,
      sourceMain: SOURCE_MAIN,
    };
    assert.equal(heraldLaunchMode(facts), "source", mainModule);
    assert.deepEqual(heraldCommandFor(facts).slice(1), [
      "run",
      "--allow-all",
      "--quiet",
      SOURCE_MAIN,
    ]);
  }
});

Deno.test("this test process runs Herald from the repository's cli/main.ts, and that command works", async () => {
  const facts = currentRuntimeFacts();
  assert.equal(heraldLaunchMode(facts), "source");
  assert.equal(facts.sourceMain, join(REPO_ROOT, "cli", "main.ts"));
  const [program, ...prefix] = heraldCommand();
  assert.equal(program, Deno.execPath());
  const output = await new Deno.Command(program, {
    args: [...prefix, "--version"],
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).output();
  assert.equal(output.code, 0, new TextDecoder().decode(output.stderr));
  assert.match(new TextDecoder().decode(output.stdout), /\d+\.\d+\.\d+/);
});

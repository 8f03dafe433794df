/**
 * The runtime hands the terminal tool the profile's passthrough names and
 * its credentials lookup, so a command sees the allowlist, the names the
 * profile passes on (from its `.env` or the environment), and nothing else.
 */

import assert from "node:assert/strict";
import {
  assertNoPlantedSecret,
  parseEnvDump,
  PLANTED_DOTENV_TEXT,
  PLANTED_PARENT_SECRETS,
} from "../../_planted_secrets.ts";
import { createProfile } from "../../../adapters/home/mod.ts";
import { openProfileRuntime } from "../../../adapters/runtime/profile_runtime.ts";
import type { TerminalResult } from "../../../adapters/tools/mod.ts";
import { configureModel } from "../../e2e/_herald.ts";
import { tempDir } from "../../_helpers.ts";
import { toolContext } from "../tools/_context.ts";

Deno.test("a profile's terminal passes on only the allowlist and the names it lists", async () => {
  await using root = await tempDir();
  const paths = await createProfile(root.path, "work", { bundledSkills: false });
  await configureModel(
    paths.home,
    "http://127.0.0.1:9/v1",
    "terminal:\n  env_passthrough: [PASSED_ON, DOTENV_PASSED]\n",
  );
  await Deno.writeTextFile(
    paths.env,
    PLANTED_DOTENV_TEXT,
  );
  const runtime = await openProfileRuntime(paths, {
    safeMode: false,
    source: "test",
    cwd: root.path,
    approve: () => Promise.resolve("deny"),
    onWarning: (file, message) => assert.fail(`${file}: ${message}`),
    env: {
      PATH: Deno.env.get("PATH"),
      HOME: root.path,
      LANG: "C.UTF-8",
      ...PLANTED_PARENT_SECRETS,
      PASSED_ON: "from-the-environment",
    },
  });
  try {
    const terminal = runtime.sessionOptions.tools.get("terminal")!;
    const result = await terminal.run(
      { command: "env" },
      toolContext({ cwd: root.path }),
    ) as TerminalResult;
    assert.equal(result.exit_code, 0, result.stderr);
    const env = parseEnvDump(result.stdout);
    assertNoPlantedSecret(result.stdout, "the command");
    assert.equal(env.PATH, Deno.env.get("PATH"));
    assert.equal(env.HOME, root.path);
    assert.equal(env.LANG, "C.UTF-8");
    assert.equal(env.PASSED_ON, "from-the-environment");
    assert.equal(env.DOTENV_PASSED, "dotenv-passed");
  } finally {
    runtime.close();
  }
});

/**
 * The agent runtime of a profile: the terminal tool gets the profile's
 * passthrough names and its credentials lookup, and the approval policy
 * every surface gets (the terminal chat and the dashboard's gateway pass only
 * how to ask) is the profile's: its allow list, "always" saved to its
 * config.yaml, safe mode, the timeout.
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { parse } from "yaml";
import {
  assertNoPlantedSecret,
  parseEnvDump,
  PLANTED_DOTENV_TEXT,
  PLANTED_PARENT_SECRETS,
} from "../../_planted_secrets.ts";
import { createProfile, type ProfilePaths } from "../../../adapters/home/mod.ts";
import {
  type AgentRuntimeOptions,
  openAgentRuntime,
} from "../../../adapters/runtime/agent_runtime.ts";
import type { TerminalResult } from "../../../adapters/tools/mod.ts";
import type {
  ApprovalNotice,
  ApprovalSurface,
  AskHuman,
} from "../../../core/tools/approval_policy.ts";
import type { ApprovalChoice, ApprovalRequest } from "../../../core/tools/types.ts";
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
  const runtime = await openAgentRuntime(paths, {
    safeMode: false,
    source: "test",
    cwd: root.path,
    approvals: {},
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

const rmRequest: ApprovalRequest = {
  tool: "terminal",
  command: "rm -rf build",
  reason: "recursive delete",
  ruleKey: "rm_recursive",
};

/** A human who gives `answers` in turn and records every question. */
function human(...answers: ApprovalChoice[]): AskHuman & { asked: string[] } {
  const asked: string[] = [];
  const ask: AskHuman = (request) => {
    asked.push(request.ruleKey);
    const answer = answers.shift();
    return answer ? Promise.resolve(answer) : Promise.reject(new Error("asked too often"));
  };
  return Object.assign(ask, { asked });
}

/** Opens the runtime of a fresh profile whose config.yaml adds `extra`. */
async function profileWith(root: string, extra = ""): Promise<ProfilePaths> {
  const paths = await createProfile(root, "work", { bundledSkills: false });
  await configureModel(paths.home, "http://127.0.0.1:9/v1", extra);
  return paths;
}

function open(
  paths: ProfilePaths,
  surface: ApprovalSurface,
  options: Partial<AgentRuntimeOptions>,
) {
  return openAgentRuntime(paths, {
    safeMode: false,
    source: "test",
    cwd: paths.home,
    env: { PATH: Deno.env.get("PATH") },
    approvals: surface,
    onWarning: () => {},
    ...options,
  });
}

Deno.test("the profile's approval policy: allow list, always saved to config.yaml, asked once", async () => {
  await using root = await tempDir();
  const paths = await profileWith(root.path, "approvals:\n  allow: [git_reset_hard]\n");
  const ask = human("always");
  const notices: ApprovalNotice[] = [];
  const runtime = await open(paths, { ask, onNotice: (n) => void notices.push(n) }, {});
  try {
    const reset = { ...rmRequest, command: "git reset --hard", ruleKey: "git_reset_hard" };
    assert.equal(await runtime.approvals.decide(reset), "always", "the config's rule passes");
    assert.equal(await runtime.approvals.decide(rmRequest), "always");
    assert.equal(await runtime.approvals.decide(rmRequest), "always", "not asked again");
    assert.deepEqual(ask.asked, ["rm_recursive"]);
    assert.deepEqual(notices, []);
    const config = parse(await Deno.readTextFile(paths.config));
    assert.deepEqual(config.approvals.allow, ["git_reset_hard", "rm_recursive"]);
    assert.equal(config.model.base_url, "http://127.0.0.1:9/v1", "the rest of the file is kept");
  } finally {
    runtime.close();
  }
  const again = await open(paths, {}, {});
  try {
    assert.equal(await again.approvals.decide(rmRequest), "always", "saved for the next run");
  } finally {
    again.close();
  }
});

Deno.test("the profile's approval policy in safe mode saves nothing and says so", async () => {
  await using root = await tempDir();
  const paths = await profileWith(root.path);
  const before = await Deno.readTextFile(paths.config);
  const ask = human("always");
  const notices: ApprovalNotice[] = [];
  // Safe mode ignores config.yaml, so the model comes from the command line.
  const runtime = await open(paths, { ask, onNotice: (n) => void notices.push(n) }, {
    safeMode: true,
    provider: "custom",
    model: "test-model",
    baseUrl: "http://127.0.0.1:9/v1",
  });
  try {
    assert.equal(await runtime.approvals.decide(rmRequest), "session");
    assert.equal(await runtime.approvals.decide(rmRequest), "always", "held for this run");
    assert.deepEqual(ask.asked, ["rm_recursive"]);
    assert.deepEqual(notices.map((n) => n.code), ["not_saved_safe_mode"]);
    assert.equal(await Deno.readTextFile(paths.config), before);
  } finally {
    runtime.close();
  }
});

Deno.test("the profile's approval policy denies for silence and without anyone to ask", async () => {
  await using root = await tempDir();
  const paths = await profileWith(root.path);
  const notices: ApprovalNotice[] = [];
  const onNotice = (notice: ApprovalNotice) => void notices.push(notice);
  let withdrawn = false;
  const silent: AskHuman = (_request, { signal }) =>
    new Promise((resolve) => {
      signal.addEventListener("abort", () => {
        withdrawn = true;
        resolve("once");
      });
    });
  const runtime = await open(paths, { ask: silent, onNotice, timeoutMs: 20 }, {});
  const unattended = await open(paths, { onNotice }, {});
  try {
    assert.equal(await runtime.approvals.decide(rmRequest), "deny");
    assert.ok(withdrawn, "the question is withdrawn");
    assert.equal(await unattended.approvals.decide(rmRequest), "deny");
    assert.deepEqual(notices.map((n) => n.code), ["expired", "non_interactive"]);
    assert.doesNotMatch(await Deno.readTextFile(paths.config), /rm_recursive/);
  } finally {
    runtime.close();
    unattended.close();
  }
});

Deno.test("a runtime's sessions switch models for /model and carry it into a new session", async () => {
  await using root = await tempDir();
  const paths = await profileWith(root.path);
  const runtime = await open(paths, {}, {});
  try {
    const session = await runtime.start();
    assert.deepEqual([session.provider, session.model], ["custom", "test-model"]);
    session.setModel("other-model");
    assert.equal(session.model, "other-model");
    const next = await runtime.start({ model: session.model });
    assert.equal(next.model, "other-model");
    assert.equal(runtime.profile, "work");
    assert.equal(runtime.source, "test");
    await assert.rejects(runtime.resume("ses_0000000000000000dead"), /not found/);
    assert.ok((await Deno.stat(join(paths.home, "state.db"))).isFile);
  } finally {
    runtime.close();
  }
});

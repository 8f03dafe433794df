/**
 * `/codex-runtime` through the conversation over a profile's real agent
 * runtime: refused without codex (config.yaml untouched), switching with
 * the real codex (the next session runs in the Codex app-server against the
 * scripted Responses model), and a switch asked for during a turn applied
 * when that turn ends.
 */

import assert from "node:assert/strict";
import { dirname, join } from "node:path";
import { Conversation } from "../../../core/agent/conversation.ts";
import type { AgentEvent } from "../../../core/agent/turn_runtime.ts";
import { createProfile, type ProfilePaths } from "../../../adapters/home/mod.ts";
import { openAgentRuntime } from "../../../adapters/runtime/agent_runtime.ts";
import { openStateStore } from "../../../adapters/sqlite/mod.ts";
import { type ScriptedReply, startModelServer } from "../../fakes/model_server.ts";
import { startResponsesModel } from "../../fakes/responses_model.ts";
import { configureModel } from "../../e2e/_herald.ts";
import { codexBinary, codexHome } from "../../codex_cli.ts";
import { tempDir } from "../../_helpers.ts";

/** A profile whose own model is the scripted server; `env` is what the runtime sees. */
async function profile(replies: ScriptedReply[] = []) {
  const root = await tempDir();
  const work = await Deno.makeTempDir({ dir: root.path, prefix: "cwd-" });
  const model = await startModelServer({ replies });
  const paths = await createProfile(root.path, "work", { bundledSkills: false });
  await configureModel(paths.home, model.openaiBaseUrl);
  return {
    paths,
    work,
    open: async (env: Record<string, string | undefined>) =>
      // HOME: where Codex's home (~/.codex) would be when CODEX_HOME is not set.
      await Conversation.open({
        runtime: await openAgentRuntime(paths, {
          safeMode: false,
          source: "test",
          cwd: work,
          env: { HOME: root.path, ...env },
          approvals: {},
          onWarning: () => {},
        }),
      }),
    async [Symbol.asyncDispose]() {
      await model.close();
      await root[Symbol.asyncDispose]();
    },
  };
}

function configText(paths: ProfilePaths): Promise<string> {
  return Deno.readTextFile(paths.config);
}

Deno.test("/codex-runtime on without codex is refused with the install hint; config.yaml is unchanged", async () => {
  await using setup = await profile();
  const before = await configText(setup.paths);
  const conversation = await setup.open({ PATH: "/nonexistent-bin" });
  try {
    const shown = await conversation.input("/codex-runtime");
    assert.equal(shown.kind, "reply");
    assert.match(shown.kind === "reply" ? shown.text : "", /Runtime: .*\nCodex: not installed/);
    const refused = await conversation.input("/codex-runtime on");
    assert.equal(refused.kind, "reply");
    assert.match(refused.kind === "reply" ? refused.text : "", /npm install -g @openai\/codex/);
    assert.equal(await configText(setup.paths), before);
    const usage = await conversation.input("/codex-runtime sideways");
    assert.match(usage.kind === "reply" ? usage.text : "", /^Usage: \/codex-runtime \[auto/);
  } finally {
    await conversation.close();
  }
});

Deno.test("/codex-runtime on switches the next session to the Codex app-server; off switches back", async () => {
  await using setup = await profile();
  const program = await codexBinary();
  await using responses = await startResponsesModel();
  await using home = await codexHome({ baseUrl: responses.baseUrl });
  const env = { PATH: `${dirname(program)}:${Deno.env.get("PATH")}`, ...home.env };
  const conversation = await setup.open(env);
  try {
    const switched = await conversation.input("/codex-runtime on");
    assert.match(switched.kind === "reply" ? switched.text : "", /codex-cli 0\.169\.0/);
    assert.match(await configText(setup.paths), /openai_runtime: codex_app_server/);
    assert.match(await Deno.readTextFile(join(home.path, "config.toml")), /# >>> /);
    // The running session keeps its runtime; the next one is Codex's.
    assert.equal(conversation.provider, "custom");
    await conversation.input("/new");
    assert.equal(conversation.provider, "codex");
    const turn = await conversation.input("hello codex");
    assert.equal(turn.kind, "turn");
    assert.equal(turn.kind === "turn" ? turn.result.response : "", "Echo: hello codex");
    const store = openStateStore(setup.paths.stateDb);
    try {
      const rows = store.getMessages(conversation.sessionId!);
      assert.deepEqual(rows.map((row) => [row.role, row.content]), [
        ["user", "hello codex"],
        ["assistant", "Echo: hello codex"],
      ]);
    } finally {
      store.close();
    }
    await conversation.input("/codex-runtime off");
    assert.match(await configText(setup.paths), /openai_runtime: auto/);
    await conversation.input("/new");
    assert.equal(conversation.provider, "custom");
  } finally {
    await conversation.close();
  }
});

Deno.test("a switch asked for during a turn is applied when the turn ends, and told as a notice", async () => {
  await using setup = await profile([{ text: "slow answer", delayMs: 800 }]);
  const conversation = await setup.open({ PATH: "/nonexistent-bin" });
  try {
    // Switched on elsewhere (the dashboard) after this session started in Herald's own loop.
    const config = await configText(setup.paths);
    await Deno.writeTextFile(
      setup.paths.config,
      config.replace("model:\n", "model:\n  openai_runtime: codex_app_server\n"),
    );
    const events: AgentEvent[] = [];
    const turn = conversation.input("take your time");
    while (!conversation.busy) await new Promise((resolve) => setTimeout(resolve, 5));
    const deferred = await conversation.input("/codex-runtime off", {
      onEvent: (event) => events.push(event),
    });
    assert.equal(
      deferred.kind === "reply" ? deferred.text : "",
      "The switch to auto applies once the current turn ends.",
    );
    assert.match(await configText(setup.paths), /openai_runtime: codex_app_server/);
    assert.deepEqual(events, [], "nothing is switched while the turn runs");
    const result = await turn;
    assert.equal(result.kind === "turn" ? result.result.response : "", "slow answer");
    for (let i = 0; i < 200 && events.length === 0; i++) {
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    assert.equal(events.length, 1);
    const notice = events[0] as AgentEvent;
    assert.equal(notice.type === "notice" ? notice.code : "", "runtime_switched");
    assert.match(await configText(setup.paths), /openai_runtime: auto/);
  } finally {
    await conversation.close();
  }
});

/**
 * `/model provider:model` in a conversation over the real agent runtime and
 * two scripted model servers: the switch applies at once when idle, after
 * the turn when one runs (the running turn keeps its model), carries over
 * to `/new`, and a provider without a key is refused with the key to set.
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { Conversation, type ConversationResult } from "../../../core/agent/conversation.ts";
import type { AgentEvent } from "../../../core/agent/turn_runtime.ts";
import { ModelError } from "../../../core/errors.ts";
import { createProfile } from "../../../adapters/home/mod.ts";
import { openAgentRuntime } from "../../../adapters/runtime/agent_runtime.ts";
import { type ModelServer, startModelServer } from "../../fakes/model_server.ts";
import { tempDir } from "../../_helpers.ts";

async function open(root: string, primary: ModelServer, other: ModelServer) {
  const paths = await createProfile(root, "switch", { bundledSkills: false });
  await Deno.writeTextFile(
    paths.config,
    `model:\n  provider: openrouter\n  base_url: ${primary.openaiBaseUrl}\n  default: gpt-test\n` +
      `fallback_providers:\n  - provider: anthropic\n    model: claude-test\n` +
      `    base_url: ${other.anthropicBaseUrl}\n`,
  );
  await Deno.writeTextFile(
    join(paths.home, ".env"),
    "OPENROUTER_API_KEY=sk-or-key-0001\nANTHROPIC_API_KEY=sk-ant-key-0002\n",
  );
  const runtime = await openAgentRuntime(paths, {
    safeMode: false,
    source: "test",
    cwd: root,
    env: {},
    approvals: {},
    onWarning: (file, message) => assert.fail(`${file}: ${message}`),
  });
  return await Conversation.open({ runtime });
}

function model(server: ModelServer, index: number): string {
  return (server.requests[index].body as { model: string }).model;
}

Deno.test("/model provider:model switches at once when idle and carries over to /new", async () => {
  await using root = await tempDir();
  await using primary = await startModelServer({ replies: [{ text: "one" }] });
  await using other = await startModelServer({ replies: [{ text: "two" }, { text: "three" }] });
  const conversation = await open(root.path, primary, other);
  try {
    await conversation.input("hello");
    assert.deepEqual(await conversation.input("/model anthropic:claude-other"), {
      kind: "set_model",
      model: "claude-other",
      provider: "anthropic",
      text: "Model set to anthropic:claude-other for this session.",
    });
    assert.deepEqual([conversation.provider, conversation.model], ["anthropic", "claude-other"]);
    await conversation.input("again");
    assert.equal(model(other, 0), "claude-other");

    await conversation.input("/new");
    assert.deepEqual([conversation.provider, conversation.model], ["anthropic", "claude-other"]);
    await conversation.input("fresh");
    assert.equal(model(other, 1), "claude-other");
    assert.equal(primary.requests.length, 1);
  } finally {
    await conversation.close();
  }
});

Deno.test("/model during a turn applies when the turn ends; the running turn keeps its model", async () => {
  await using root = await tempDir();
  await using primary = await startModelServer({
    replies: [{ text: "slow answer", delayMs: 300 }],
  });
  await using other = await startModelServer({ replies: [{ text: "switched" }] });
  const conversation = await open(root.path, primary, other);
  try {
    const running = conversation.input("take your time");
    while (primary.requests.length === 0) await new Promise((r) => setTimeout(r, 5));
    assert.ok(conversation.busy);
    const queued = await conversation.input("/model anthropic:claude-later");
    assert.deepEqual(queued, {
      kind: "set_model",
      model: "claude-later",
      provider: "anthropic",
      text: "Model set to anthropic:claude-later for this session once the current turn ends.",
    });
    assert.equal(conversation.model, "gpt-test", "nothing changes while the turn runs");
    const turn = await running as Extract<ConversationResult, { kind: "turn" }>;
    assert.equal(turn.result.response, "slow answer");
    assert.deepEqual([conversation.provider, conversation.model], ["anthropic", "claude-later"]);
    await conversation.input("next");
    assert.equal(model(primary, 0), "gpt-test");
    assert.equal(model(other, 0), "claude-later");
  } finally {
    await conversation.close();
  }
});

Deno.test("a queued switch that cannot apply is told as a notice and the model stays", async () => {
  await using root = await tempDir();
  await using primary = await startModelServer({ replies: [{ text: "slow", delayMs: 300 }] });
  await using other = await startModelServer();
  const conversation = await open(root.path, primary, other);
  try {
    const running = conversation.input("take your time");
    while (primary.requests.length === 0) await new Promise((r) => setTimeout(r, 5));
    const events: AgentEvent[] = [];
    await conversation.input("/model openai:gpt-4o", { onEvent: (e) => events.push(e) });
    await running;
    assert.equal(conversation.provider, "openrouter");
    assert.equal(events.length, 1);
    const notice = events[0] as Extract<AgentEvent, { type: "notice" }>;
    assert.equal(notice.code, "model_switch_failed");
    assert.match(
      notice.message,
      /^The switch to openai:gpt-4o after the turn failed: No API key for openai/,
    );
  } finally {
    await conversation.close();
  }
});

Deno.test("/model to a provider without a key is refused, naming the key to set", async () => {
  await using root = await tempDir();
  await using primary = await startModelServer();
  await using other = await startModelServer();
  const conversation = await open(root.path, primary, other);
  try {
    const error = await conversation.input("/model openai:gpt-4o").then(
      () => assert.fail("expected a refusal"),
      (e) => e,
    );
    assert.ok(error instanceof ModelError);
    assert.equal(error.code, "model_not_configured");
    assert.match(error.message, /OPENAI_API_KEY/);
    assert.equal(conversation.provider, "openrouter");
    assert.deepEqual(await conversation.input("/model qwen3:8b"), {
      kind: "set_model",
      model: "qwen3:8b",
      text: "Model set to qwen3:8b for this session.",
    });
    assert.equal(conversation.provider, "openrouter", "qwen3 is not a provider");
  } finally {
    await conversation.close();
  }
});

import assert from "node:assert/strict";
import { ConfigSchema, defaultConfig } from "../../../core/config/schema.ts";

Deno.test("the kanban config section has its defaults", () => {
  assert.deepEqual(defaultConfig().kanban, {
    auto_decompose: true,
    auto_decompose_per_tick: 3,
    dispatch_in_gateway: true,
    dispatch_interval_seconds: 60,
    failure_limit: 2,
    max_in_progress: 4,
    claim_ttl_seconds: 900,
    max_runtime_seconds: 3600,
  });
});

Deno.test("the kanban keys and the kanban_decomposer slot are read and checked", () => {
  const config = ConfigSchema.parse({
    kanban: {
      orchestrator_profile: "lead",
      default_assignee: "coder",
      auto_decompose: false,
      auto_decompose_per_tick: 0,
    },
    auxiliary: { kanban_decomposer: { provider: "openrouter", model: "small" } },
  });
  assert.equal(config.kanban.orchestrator_profile, "lead");
  assert.equal(config.kanban.default_assignee, "coder");
  assert.equal(config.kanban.auto_decompose, false);
  assert.equal(config.kanban.auto_decompose_per_tick, 0);
  assert.equal(config.auxiliary.kanban_decomposer.model, "small");
  assert.ok(!ConfigSchema.safeParse({ kanban: { auto_decompose_per_tick: -1 } }).success);
  assert.ok(!ConfigSchema.safeParse({ kanban: { auto_decompose_per_tick: 1.5 } }).success);
});

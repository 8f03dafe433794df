/**
 * The Settings page's config form logic (server/ui/src/pages/settings/config_form.ts)
 * over the schema `GET /api/config/schema` answers: fields by type, the
 * `{set}` of only what changed, and caret offsets for parse errors.
 */

import assert from "node:assert/strict";
import { configJsonSchema, defaultConfig } from "../../core/config/mod.ts";
import {
  changedValues,
  draftOf,
  draftProblem,
  type FormField,
  formLayout,
  offsetOf,
  valueAt,
} from "../../server/ui/src/pages/settings/config_form.ts";
import type { JsonSchema } from "../../server/ui/src/pages/settings/types.ts";

/** What `GET /api/config/schema` and `GET /api/config` (of an empty config.yaml) answer. */
function served(): { schema: JsonSchema; config: Record<string, unknown> } {
  return {
    schema: JSON.parse(JSON.stringify(configJsonSchema())),
    config: JSON.parse(JSON.stringify(defaultConfig())),
  };
}

Deno.test("the form has a field of the right kind for every leaf the schema types", () => {
  const { schema } = served();
  const { groups, others } = formLayout(schema);
  const fields = new Map(groups.flatMap((group) => group.fields).map((f) => [f.key, f]));
  assert.equal(groups[0].id, "general");
  assert.equal(fields.get("plugins")?.kind, "list");
  assert.equal(fields.get("agent.max_turns")?.kind, "integer");
  assert.equal(fields.get("agent.max_turns")?.default, 90);
  assert.equal(fields.get("agent.max_turns")?.description, "Cap on model calls in one user turn");
  assert.equal(fields.get("agent.dump_requests")?.kind, "boolean");
  assert.equal(fields.get("compression.threshold")?.kind, "number");
  assert.equal(fields.get("compression.threshold")?.max, 1);
  assert.deepEqual(fields.get("approvals.mode")?.options, ["ask", "yolo"]);
  assert.equal(fields.get("approvals.deny")?.kind, "list");
  assert.equal(fields.get("model.api_key")?.kind, "secret");
  assert.equal(fields.get("model.default")?.kind, "string");
  assert.deepEqual(
    others.map((other) => [other.id, other.section ?? null]),
    [
      ["fallback_providers", null],
      ["auxiliary", "model"],
      ["mcp_servers", "mcp"],
      ["tool_gateway", null],
      ["platforms", "messaging"],
    ],
  );
});

Deno.test("saving sends only the changed keys: null for a cleared value, a secret only when typed", () => {
  const { schema, config } = served();
  const fields = formLayout(schema).groups.flatMap((group) => group.fields);
  const loaded = Object.fromEntries(
    fields.map((field) => [field.key, draftOf(field, valueAt(config, field.key))]),
  );
  assert.deepEqual(changedValues(fields, loaded, loaded), {});
  const drafts = {
    ...loaded,
    "agent.max_turns": "30",
    "agent.dump_requests": true,
    "approvals.deny": ["git push *", " "],
    "model.default": "",
    "model.api_key": "",
  };
  assert.deepEqual(changedValues(fields, loaded, drafts), {
    "agent.max_turns": 30,
    "agent.dump_requests": true,
    "approvals.deny": ["git push *"],
  });
  const withKey = { ...loaded, "model.api_key": "sk-new", "agent.loop_guard": "" };
  assert.deepEqual(changedValues(fields, loaded, withKey), {
    "model.api_key": "sk-new",
    "agent.loop_guard": null,
  });
  const integer = fields.find((field) => field.key === "agent.max_turns") as FormField;
  assert.equal(draftProblem(integer, "2.5"), "Enter a whole number");
  assert.equal(draftProblem(integer, "x"), "Enter a number");
  assert.equal(draftProblem(integer, ""), null);
});

Deno.test("a line and column become the caret offset, clamped to the line and the text", () => {
  const text = "a: 1\nbb: 2: 3\nc";
  assert.equal(offsetOf(text, 1, 1), 0);
  assert.equal(offsetOf(text, 2, 6), 10);
  assert.equal(text.slice(offsetOf(text, 2, 6)), ": 3\nc");
  assert.equal(offsetOf(text, 2, 99), 13, "past the line's end: its end");
  assert.equal(offsetOf(text, 9, 1), text.length, "past the last line: the end");
});

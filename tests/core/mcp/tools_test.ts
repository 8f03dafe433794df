import assert from "node:assert/strict";
import {
  bindMcpTools,
  elicitationDefaults,
  MAX_TOOL_NAME,
  mcpResultText,
  mcpToolName,
  mcpToolOutput,
  toolParameters,
} from "../../../core/mcp/mod.ts";

const tool = (name: string) => ({ name, inputSchema: { type: "object" } });

Deno.test("tool names are mcp_<server>_<tool> in provider-safe characters, long ones cut apart", () => {
  assert.equal(mcpToolName("everything", "get-sum"), "mcp_everything_get-sum");
  assert.equal(mcpToolName("fs", "read.file/v2"), "mcp_fs_read_file_v2");
  const a = mcpToolName("s", "x".repeat(80) + "a");
  const b = mcpToolName("s", "x".repeat(80) + "b");
  assert.equal(a.length, MAX_TOOL_NAME);
  assert.equal(b.length, MAX_TOOL_NAME);
  assert.notEqual(a, b);
  assert.equal(mcpToolName("s", "x".repeat(80) + "a"), a, "stable");
});

Deno.test("bindings are ordered by server then tool, whatever order the servers list them", () => {
  const servers = new Map([
    ["zeta", [tool("b"), tool("a")]],
    ["alpha", [tool("z"), tool("m")]],
  ]);
  const { bindings, clashes } = bindMcpTools(servers);
  assert.deepEqual(bindings.map((binding) => binding.name), [
    "mcp_alpha_m",
    "mcp_alpha_z",
    "mcp_zeta_a",
    "mcp_zeta_b",
  ]);
  assert.deepEqual(clashes, []);
  // "a.b" and "a_b" become one name: the first is kept, the other reported.
  const clash = bindMcpTools(new Map([["s", [tool("a_b"), tool("a.b")]]]));
  assert.deepEqual(clash.bindings.map((binding) => binding.tool.name), ["a.b"]);
  assert.deepEqual(clash.clashes, ["s/a_b"]);
});

Deno.test("parameters are an object schema without the server's $schema", () => {
  assert.deepEqual(
    toolParameters({
      $schema: "http://json-schema.org/draft-07/schema#",
      type: "object",
      properties: { a: { type: "number" } },
      required: ["a"],
    }),
    { type: "object", properties: { a: { type: "number" } }, required: ["a"] },
  );
  assert.deepEqual(toolParameters({}), { type: "object", properties: {} });
});

Deno.test("results keep every content block; error text is the text blocks", () => {
  const content = [
    { type: "text", text: "one" },
    { type: "image", data: "iVBOR", mimeType: "image/png" },
    { type: "resource", resource: { uri: "file:///a", text: "x" } },
    { type: "text", text: "two" },
  ];
  assert.deepEqual(mcpToolOutput({ content, structuredContent: { n: 1 } }), {
    content,
    structuredContent: { n: 1 },
  });
  assert.deepEqual(mcpToolOutput({}), { content: [] });
  assert.equal(mcpResultText({ content }), "one\ntwo");
});

Deno.test("a form is answered with defaults only when they fill every required field", () => {
  const schema = {
    type: "object",
    properties: { name: { type: "string" }, n: { type: "integer", default: 42 } },
    required: ["name"],
  };
  assert.equal(elicitationDefaults(schema), undefined);
  assert.deepEqual(elicitationDefaults({ ...schema, required: ["n"] }), { n: 42 });
  assert.deepEqual(elicitationDefaults({ type: "object", properties: {} }), {});
});

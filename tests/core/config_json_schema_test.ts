/**
 * The config schema as JSON Schema: secret values marked `writeOnly` wherever
 * the schema puts them (records, unions, references), and the shared
 * document frozen.
 */

import assert from "node:assert/strict";
import {
  configJsonSchema,
  type JsonSchemaNode,
  markSecretValues,
} from "../../core/config/json_schema.ts";

Deno.test("secret values are write-only inside unions, references and records, and nothing else is", () => {
  const text = (): JsonSchemaNode => ({ type: "string" });
  const document: JsonSchemaNode = {
    type: "object",
    properties: {
      model: {
        anyOf: [
          { type: "object", properties: { api_key: text(), name: text() } },
          { type: "null" },
        ],
      },
      platforms: { type: "object", additionalProperties: { $ref: "#/$defs/Platform" } },
      tree: { $ref: "#/$defs/Tree" },
      mcp_servers: {
        type: "object",
        additionalProperties: {
          oneOf: [{
            type: "object",
            properties: {
              env: { type: "object", additionalProperties: { type: ["string", "null"] } },
              headers: { type: "object", additionalProperties: text() },
              command: text(),
            },
          }],
        },
      },
    },
    $defs: {
      Platform: { type: "object", properties: { bot_token: text(), chat: text() } },
      Tree: { type: "object", properties: { child: { $ref: "#/$defs/Tree" }, secret: text() } },
    },
  };
  markSecretValues(document);
  const model = (document.properties!.model.anyOf as JsonSchemaNode[])[0].properties!;
  assert.equal(model.api_key.writeOnly, true);
  assert.equal(model.name.writeOnly, undefined);
  const defs = document.$defs as Record<string, JsonSchemaNode>;
  assert.equal(defs.Platform.properties!.bot_token.writeOnly, true);
  assert.equal(defs.Platform.properties!.chat.writeOnly, undefined);
  assert.equal(
    defs.Tree.properties!.secret.writeOnly,
    true,
    "a recursive definition is walked once",
  );
  const mcp = document.properties!.mcp_servers.additionalProperties as JsonSchemaNode;
  const server = (mcp.oneOf as JsonSchemaNode[])[0].properties!;
  assert.equal((server.env.additionalProperties as JsonSchemaNode).writeOnly, true);
  assert.equal((server.headers.additionalProperties as JsonSchemaNode).writeOnly, true);
  assert.equal(server.command.writeOnly, undefined);
});

Deno.test("the shared config schema is frozen and marks the MCP credentials", () => {
  const schema = configJsonSchema();
  assert.equal(configJsonSchema(), schema);
  assert.ok(Object.isFrozen(schema));
  assert.throws(() => {
    (schema.properties!.model as JsonSchemaNode).writeOnly = true;
  }, TypeError);
  const server = schema.properties!.mcp_servers.additionalProperties as JsonSchemaNode;
  const headers = server.properties!.headers.additionalProperties as JsonSchemaNode;
  assert.equal(headers.writeOnly, true);
  assert.equal(schema.properties!.model.properties!.api_key.writeOnly, true);
});

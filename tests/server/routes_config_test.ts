/**
 * `/api/config` and `/api/env`: effective config with secrets hidden,
 * schema-checked edits that keep comments and route secrets to `.env`, the
 * raw file, and the `.env` store whose values only reveal returns.
 */

import assert from "node:assert/strict";
import { tempDir } from "../_helpers.ts";
import { testApp } from "./_app.ts";
import { readOr, routesApp } from "./_routes.ts";

type Sections = Record<string, Record<string, unknown>>;

const COMMENTED = `# my settings
model:
  provider: openrouter # the cheap one
  default: some/model
agent:
  max_turns: 12 # keep turns short
`;

Deno.test("GET config returns defaults, the file path and warnings, with literal secrets redacted", async () => {
  await using home = await tempDir();
  const { json, main } = await routesApp(home.path);
  await Deno.writeTextFile(
    main.config,
    "model:\n  api_key: sk-literal-secret-123456\nnot_a_key: 1\n",
  );
  const { status, body } = await json("GET", "/api/config");
  assert.equal(status, 200);
  assert.equal(body.file, main.config);
  const config = body.config as Record<string, Record<string, unknown>>;
  assert.equal(config.agent.max_turns, 90);
  assert.equal(config.model.api_key, "…3456");
  assert.ok(!JSON.stringify(body).includes("sk-literal-secret"));
  assert.deepEqual((body.warnings as { path: string }[]).map((w) => w.path), ["not_a_key"]);
});

Deno.test("PUT config with set edits dotted keys, keeps comments and sends secrets to .env", async () => {
  await using home = await tempDir();
  const { json, main } = await routesApp(home.path);
  await Deno.writeTextFile(main.config, COMMENTED);
  const { status, body } = await json("PUT", "/api/config", {
    set: {
      "agent.max_turns": 30,
      "agent.dump_requests": true,
      "model.api_key": "sk-or-new-key-0001",
    },
  });
  assert.equal(status, 200, JSON.stringify(body));
  assert.deepEqual(body.changed, ["agent.max_turns", "agent.dump_requests", "model.api_key"]);
  assert.deepEqual(body.secrets, ["OPENROUTER_API_KEY"]);
  assert.ok(!JSON.stringify(body).includes("sk-or-new-key"));
  const text = await Deno.readTextFile(main.config);
  for (const comment of ["# my settings", "# the cheap one", "# keep turns short"]) {
    assert.ok(text.includes(comment), `${comment} kept in:\n${text}`);
  }
  assert.match(text, /max_turns: 30/);
  assert.match(text, /api_key: \$\{OPENROUTER_API_KEY\}/);
  assert.match(await Deno.readTextFile(main.env), /^OPENROUTER_API_KEY=sk-or-new-key-0001$/m);
  assert.equal((await Deno.stat(main.env)).mode! & 0o777, 0o600);
});

Deno.test("PUT config with a partial config object writes only what changed and ignores redacted secrets", async () => {
  await using home = await tempDir();
  const { json, main } = await routesApp(home.path);
  await Deno.writeTextFile(
    main.config,
    COMMENTED + "auxiliary:\n  kanban_decomposer:\n    api_key: literal-aux-key-123456\n",
  );
  const shown = (await json("GET", "/api/config")).body.config as Sections;
  shown.agent.max_turns = 40;
  shown.model.default = "other/model";
  const { status, body } = await json("PUT", "/api/config", { config: shown });
  assert.equal(status, 200, JSON.stringify(body));
  assert.deepEqual(body.changed, ["model.default", "agent.max_turns"]);
  const text = await Deno.readTextFile(main.config);
  assert.match(text, /literal-aux-key-123456/, "the redacted secret did not overwrite the key");
  assert.ok(!/verify_file_mutations/.test(text), "defaults are not written into the file");
  assert.ok(text.includes("# keep turns short"));

  const removed = await json("PUT", "/api/config", { config: { agent: { max_turns: null } } });
  assert.deepEqual(removed.body.removed, ["agent.max_turns"]);
  assert.equal((removed.body.config as Sections).agent.max_turns, 90);
});

Deno.test("PUT config rejects unknown keys and bad values with 400 and the core message, writing nothing", async () => {
  await using home = await tempDir();
  const { json, main } = await routesApp(home.path);
  await Deno.writeTextFile(main.config, COMMENTED);
  const unknown = await json("PUT", "/api/config", { set: { "agent.max_turn": 5 } });
  assert.equal(unknown.status, 400);
  assert.equal(unknown.body.error?.code, "config_unknown_key");
  assert.match(unknown.body.error!.message, /did you mean "agent\.max_turns"/);
  const bad = await json("PUT", "/api/config", {
    set: { "agent.verify_file_mutations": false, "agent.max_turns": "many" },
  });
  assert.equal(bad.status, 400);
  assert.equal(bad.body.error?.code, "config_invalid_value");
  const object = await json("PUT", "/api/config", { config: { agent: { nope: 1 } } });
  assert.equal(object.status, 400);
  const empty = await json("PUT", "/api/config", {});
  assert.equal(empty.status, 400);
  assert.equal(await Deno.readTextFile(main.config), COMMENTED);
});

Deno.test("raw config round-trips the file, hides literal secrets and puts them back on save", async () => {
  await using home = await tempDir();
  const { json, main } = await routesApp(home.path);
  await Deno.writeTextFile(main.config, COMMENTED);
  const plain = await json("GET", "/api/config/raw");
  assert.equal(plain.body.text, COMMENTED);

  await Deno.writeTextFile(
    main.config,
    COMMENTED.replace("model:\n", "model:\n  api_key: sk-very-secret-value-42\n"),
  );
  const shown = await json("GET", "/api/config/raw");
  assert.ok(!String(shown.body.text).includes("sk-very-secret"));
  assert.deepEqual(shown.body.redacted, ["model.api_key"]);
  const edited = String(shown.body.text).replace("max_turns: 12", "max_turns: 13");
  const saved = await json("PUT", "/api/config/raw", { text: edited, version: shown.body.version });
  assert.equal(saved.status, 200, JSON.stringify(saved.body));
  const text = await Deno.readTextFile(main.config);
  assert.match(text, /api_key: sk-very-secret-value-42/);
  assert.match(text, /max_turns: 13 # keep turns short/);
});

Deno.test("PUT raw config that is not YAML is 422 with file, line and column, and nothing is written", async () => {
  await using home = await tempDir();
  const { json, main } = await routesApp(home.path);
  await Deno.writeTextFile(main.config, COMMENTED);
  const { version } = (await json("GET", "/api/config/raw")).body;
  const { status, body } = await json("PUT", "/api/config/raw", {
    text: "model:\n  provider: [unclosed\nagent: 1\n",
    version,
  });
  assert.equal(status, 422);
  const error = body.error as unknown as Record<string, unknown>;
  assert.equal(error.code, "config_parse");
  assert.equal(error.file, main.config);
  assert.equal(typeof error.line, "number");
  assert.equal(typeof error.column, "number");
  assert.equal(await Deno.readTextFile(main.config), COMMENTED);

  const warned = await json("PUT", "/api/config/raw", {
    text: "agent:\n  max_turns: 5\nextra: 1\n",
    version,
  });
  assert.equal(warned.status, 200);
  assert.deepEqual((warned.body.warnings as { path: string }[]).map((w) => w.path), ["extra"]);
});

Deno.test("raw config carries a version; a save from an older version is 409 and keeps the other change", async () => {
  await using home = await tempDir();
  const { json, main } = await routesApp(home.path);
  const empty = await json("GET", "/api/config/raw");
  assert.equal(
    empty.body.version,
    "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
    "a missing file has the version of empty text (SHA-256 of no bytes)",
  );
  await Deno.writeTextFile(main.config, COMMENTED);
  const loaded = await json("GET", "/api/config/raw");
  assert.match(String(loaded.body.version), /^[0-9a-f]{64}$/);
  assert.notEqual(loaded.body.version, empty.body.version);

  const missing = await json("PUT", "/api/config/raw", { text: COMMENTED });
  assert.equal(missing.status, 400);
  assert.match(missing.body.error?.message ?? "", /"version" is required.*GET \/api\/config\/raw/);

  // Someone else saves a setting after the editor loaded the file.
  const other = await json("PUT", "/api/config", { set: { "agent.dump_requests": true } });
  assert.equal(other.status, 200);
  const stale = await json("PUT", "/api/config/raw", {
    text: COMMENTED.replace("max_turns: 12", "max_turns: 40"),
    version: loaded.body.version,
  });
  assert.equal(stale.status, 409, JSON.stringify(stale.body));
  assert.equal(stale.body.error?.code, "config_changed");
  assert.match(stale.body.error?.message ?? "", /changed by someone else.*[Rr]eload/);
  const text = await Deno.readTextFile(main.config);
  assert.match(text, /dump_requests: true/, "the other change is kept");
  assert.match(text, /max_turns: 12/);

  const fresh = await json("GET", "/api/config/raw");
  const saved = await json("PUT", "/api/config/raw", {
    text: String(fresh.body.text).replace("max_turns: 12", "max_turns: 40"),
    version: fresh.body.version,
  });
  assert.equal(saved.status, 200, JSON.stringify(saved.body));
  assert.match(await Deno.readTextFile(main.config), /max_turns: 40/);
  assert.equal((await json("GET", "/api/config/raw")).body.version, saved.body.version);
  const replay = await json("PUT", "/api/config/raw", {
    text: String(fresh.body.text),
    version: fresh.body.version,
  });
  assert.equal(replay.status, 409, "the same version cannot be used twice once the file changed");
});

Deno.test("env lists names with a redacted preview, never a value; only reveal returns one", async () => {
  await using home = await tempDir();
  const { json, main } = await routesApp(home.path);
  const secret = "sk-ant-very-secret-0042";
  const put = await json("PUT", "/api/env", { key: "ANTHROPIC_API_KEY", value: secret });
  assert.equal(put.status, 200);
  assert.equal(put.body.preview, "…0042");
  await json("PUT", "/api/env", { key: "SHORT", value: "abc" });
  const list = await json("GET", "/api/env");
  assert.equal(list.status, 200);
  assert.ok(!JSON.stringify(list.body).includes(secret));
  const names = list.body.variables as {
    name: string;
    set: boolean;
    preview: string;
    used_by: string[];
  }[];
  const anthropic = names.find((v) => v.name === "ANTHROPIC_API_KEY")!;
  assert.deepEqual(anthropic, {
    name: "ANTHROPIC_API_KEY",
    set: true,
    preview: "…0042",
    used_by: ["provider:anthropic"],
  });
  assert.equal(names.find((v) => v.name === "SHORT")!.preview, "…");
  const reveal = await json("POST", "/api/env/reveal", { key: "ANTHROPIC_API_KEY" });
  assert.equal(reveal.body.value, secret);
  assert.equal((await Deno.stat(main.env)).mode! & 0o777, 0o600);
});

Deno.test("env keys must look like variable names, and delete works by body or query", async () => {
  await using home = await tempDir();
  const { json, main } = await routesApp(home.path);
  for (const key of ["1ABC", "A-B", "A B", "", "X=Y"]) {
    const response = await json("PUT", "/api/env", { key, value: "v" });
    assert.equal(response.status, 400, JSON.stringify(key));
  }
  assert.equal((await json("PUT", "/api/env", { key: "EMPTY" })).status, 400);
  await json("PUT", "/api/env", { key: "ONE", value: "1" });
  await json("PUT", "/api/env", { key: "TWO", value: "2" });
  const byBody = await json("DELETE", "/api/env", { key: "ONE" });
  assert.equal(byBody.status, 200);
  const byQuery = await json("DELETE", "/api/env?key=TWO");
  assert.equal(byQuery.status, 200);
  const missing = await json("DELETE", "/api/env?key=TWO");
  assert.equal(missing.status, 404);
  assert.equal(missing.body.error?.code, "env_not_set");
  const text = await readOr(main.env);
  assert.ok(!/^ONE=|^TWO=/m.test(text));
  assert.equal((await json("POST", "/api/env/reveal", { key: "ONE" })).status, 404);
});

Deno.test("credential headers of MCP servers written by hand are hidden in config and raw config", async () => {
  await using home = await tempDir();
  const { json, main } = await routesApp(home.path);
  const text = "mcp_servers:\n  remote:\n    url: https://mcp.example.com/mcp\n" +
    "    headers:\n      Authorization: Bearer hand-written-secret-77\n      X-Trace: on\n";
  await Deno.writeTextFile(main.config, text);
  const config = await json("GET", "/api/config");
  assert.ok(!JSON.stringify(config.body).includes("hand-written-secret"));
  const raw = await json("GET", "/api/config/raw");
  assert.ok(!String(raw.body.text).includes("hand-written-secret"));
  assert.deepEqual(raw.body.redacted, ["mcp_servers.remote.headers.Authorization"]);
  const servers = await json("GET", "/api/mcp/servers");
  assert.ok(!JSON.stringify(servers.body).includes("hand-written-secret"));
  const saved = await json("PUT", "/api/config/raw", {
    text: String(raw.body.text),
    version: raw.body.version,
  });
  assert.equal(saved.status, 200);
  assert.match(
    await Deno.readTextFile(main.config),
    /Authorization: Bearer hand-written-secret-77/,
  );
});

Deno.test("GET config schema answers JSON Schema with types, defaults, descriptions and write-only secrets", async () => {
  await using home = await tempDir();
  const { json } = await routesApp(home.path);
  const { status, body } = await json("GET", "/api/config/schema?profile=work");
  assert.equal(status, 200);
  assert.equal(body.$schema, "https://json-schema.org/draft/2020-12/schema");
  type Node = Record<string, unknown> & {
    properties: Record<string, Node>;
    additionalProperties: Node;
    items: Node;
  };
  const sections = (body as unknown as Node).properties;
  const maxTurns = sections.agent.properties.max_turns;
  assert.equal(maxTurns.type, "integer");
  assert.equal(maxTurns.default, 90);
  assert.equal(maxTurns.description, "Cap on model calls in one user turn");
  assert.deepEqual(sections.approvals.properties.mode.enum, ["ask", "yolo"]);
  assert.equal(sections.approvals.properties.deny.items.type, "string");
  assert.equal(sections.compression.properties.threshold.maximum, 1);
  assert.equal(sections.model.properties.api_key.writeOnly, true);
  assert.equal(sections.auxiliary.additionalProperties.properties.api_key.writeOnly, true);
  assert.equal(sections.model.properties.default.writeOnly, undefined);
  assert.ok(String(sections.agent.description).length > 0, "sections carry a description");
  const again = await json("GET", "/api/config/schema");
  assert.deepEqual(again.body, body);
});

Deno.test("the config schema marks MCP headers and env values write-only and is scoped like the other config routes", async () => {
  await using home = await tempDir();
  const { json } = await routesApp(home.path);
  const { body } = await json("GET", "/api/config/schema?profile=work");
  type Node = Record<string, unknown> & {
    properties: Record<string, Node>;
    additionalProperties: Node;
  };
  const server = (body as unknown as Node).properties.mcp_servers.additionalProperties.properties;
  assert.equal(server.headers.additionalProperties.writeOnly, true);
  assert.equal(server.env.additionalProperties.writeOnly, true);
  assert.equal(server.command.writeOnly, undefined);
  assert.equal(server.url.writeOnly, undefined);

  for (const profile of ["ghost", "Not%20A%20Name"]) {
    const answer = await json("GET", `/api/config/schema?profile=${profile}`);
    assert.equal(answer.status, 404, profile);
    assert.equal(answer.body.error?.code, "profile_not_found");
  }
  const pinned = testApp(home.path, { pinnedProfile: "work" });
  assert.equal((await pinned.request("/api/config/schema")).status, 200);
  const other = await pinned.request("/api/config/schema?profile=default");
  assert.equal(other.status, 404);
  assert.equal((await other.json()).error.code, "profile_not_found");
});

/**
 * core/config/redact.ts: the one decision on what in a configuration is
 * secret, and the text round trip that puts hidden values back on save.
 */

import assert from "node:assert/strict";
import {
  isRedactedForm,
  isSecretPath,
  parseConfig,
  redactConfigText,
  redactConfigValue,
  redactSecrets,
  redactText,
  redactUrl,
  restoreRedactedSecrets,
} from "../../core/config/mod.ts";
import { describeMcpServers, planMcpServerAdd } from "../../core/mcp/mod.ts";

Deno.test("secret-marked keys, credential headers and secret-named MCP env values are secret paths", () => {
  assert.ok(isSecretPath("model.api_key"));
  assert.ok(isSecretPath("mcp_servers.x.headers.Authorization"));
  assert.ok(isSecretPath("mcp_servers.x.headers.X-Api-Key"));
  assert.ok(isSecretPath("mcp_servers.x.headers.Cookie"));
  assert.ok(isSecretPath("mcp_servers.x.env.GITHUB_PAT"));
  assert.ok(isSecretPath("mcp_servers.x.env.DB_PASSWORD"));
  assert.ok(!isSecretPath("mcp_servers.x.headers.X-Trace"));
  assert.ok(!isSecretPath("mcp_servers.x.env.LOG_LEVEL"));
  assert.ok(!isSecretPath("model.default"));
});

Deno.test("a config value is hidden by its key, its header scheme, its shape or its URL credentials", () => {
  assert.equal(redactConfigValue("model.api_key", "sk-1234567890abcdef"), "…cdef");
  assert.equal(redactConfigValue("model.api_key", "${OPENAI_API_KEY}"), "${OPENAI_API_KEY}");
  assert.equal(redactConfigValue("mcp_servers.x.headers.X-Custom", "Bearer abc123def456"), "…f456");
  assert.equal(
    redactConfigValue("mcp_servers.x.headers.Authorization", "Bearer ${TOKEN}"),
    "Bearer ${TOKEN}",
  );
  assert.equal(redactConfigValue("mcp_servers.x.headers.X-Trace", "on"), "on");
  assert.equal(redactConfigValue("mcp_servers.x.env.LOG_LEVEL", "debug"), "debug");
  assert.equal(redactConfigValue("mcp_servers.x.env.ROOT", "/srv/data"), "/srv/data");
  assert.equal(redactConfigValue("mcp_servers.x.env.LOGIN", "hunter2"), "…");
  assert.equal(
    redactConfigValue("mcp_servers.x.env.DATABASE_URL", "postgres://app:pw@db/app"),
    "postgres://app:…@db/app",
  );
  assert.equal(
    redactConfigValue("model.base_url", "https://u:p@h/v1?api_key=k&x=1#access_token=t"),
    "https://u:…@h/v1?api_key=…&x=1#access_token=…",
  );
  assert.equal(redactConfigValue("model.base_url", "https://h/v1"), "https://h/v1");
  assert.equal(redactConfigValue("model.default", "gpt-4o"), "gpt-4o");
});

Deno.test("URLs lose userinfo and token-like query values and keep everything else", () => {
  assert.equal(redactUrl("https://ghp_token@github.com/x.git"), "https://…@github.com/x.git");
  assert.equal(redactUrl("https://h/p?region=eu&sig=abc"), "https://h/p?region=eu&sig=…");
  assert.equal(redactUrl("https://h/@scope/pkg"), "https://h/@scope/pkg");
  assert.equal(redactUrl("not a url"), "not a url");
});

Deno.test("values resolved from .env are shown as their reference again, in config and in text", () => {
  const loaded = parseConfig(
    "model:\n  base_url: https://h/v1?tenant=${TENANT}\n  default: m\n",
    "config.yaml",
    (name) => name === "TENANT" ? "tenant-from-dotenv-55" : undefined,
  );
  assert.deepEqual(loaded.resolved, [{ name: "TENANT", value: "tenant-from-dotenv-55" }]);
  assert.equal(loaded.config.model.base_url, "https://h/v1?tenant=tenant-from-dotenv-55");
  const shown = redactSecrets(loaded.config, { resolved: loaded.resolved });
  assert.equal(shown.model.base_url, "https://h/v1?tenant=${TENANT}");
  assert.equal(
    redactText("Cannot reach https://u:pw@h/?tenant=tenant-from-dotenv-55: refused", loaded),
    "Cannot reach https://u:…@h/?tenant=${TENANT}: refused",
  );
});

Deno.test("raw config text hides every secret and a save of the shown text puts them back", () => {
  const text = "# keep me\nmodel:\n  base_url: https://u:pw-123@h/v1 # inline\n" +
    "mcp_servers:\n  a:\n    command: node\n    env:\n      LOGIN: s3cret-login-value\n" +
    "      LOG_LEVEL: debug\n";
  const shown = redactConfigText(text, "config.yaml");
  assert.deepEqual(shown.redacted, ["model.base_url", "mcp_servers.a.env.LOGIN"]);
  assert.ok(!shown.text.includes("pw-123") && !shown.text.includes("s3cret-login-value"));
  assert.match(shown.text, /# keep me/);
  assert.equal(restoreRedactedSecrets(shown.text, text, "config.yaml"), text);
  assert.deepEqual(redactConfigText("agent:\n  max_turns: 5\n", "c"), {
    text: "agent:\n  max_turns: 5\n",
    redacted: [],
  });
});

Deno.test("a value sent back as shown counts as its redacted form", () => {
  const args = ["--db", "postgres://u:pw@h/db"];
  assert.ok(isRedactedForm("mcp_servers.a.args", ["--db", "postgres://u:…@h/db"], args));
  assert.ok(!isRedactedForm("mcp_servers.a.args", ["--db", "postgres://u:new@h/db"], args));
});

Deno.test("MCP servers are described and added by the same rule", () => {
  const plan = planMcpServerAdd("", "config.yaml", {
    name: "a",
    command: "node",
    env: { LOGIN: "s3cret-login-value", LOG_LEVEL: "debug" },
  });
  assert.deepEqual(plan.secrets, [{ name: "LOGIN", value: "s3cret-login-value" }]);
  const [server] = describeMcpServers(
    parseConfig(
      "mcp_servers:\n  a:\n    url: https://u:pw@h/mcp\n    headers:\n      Cookie: c=1\n",
      "c",
    ).config.mcp_servers,
  );
  assert.equal(server.url, "https://u:…@h/mcp");
  assert.equal(server.headers.Cookie, "…");
});

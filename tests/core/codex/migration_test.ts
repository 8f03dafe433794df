/**
 * What the managed block holds: the permission profile per level (a user's
 * own choice kept), Herald's MCP servers in Codex's form with secrets never
 * written, Herald's tool server, and the approval vocabulary.
 */

import assert from "node:assert/strict";
import { userSettings } from "../../../core/codex/config_toml.ts";
import { HERALD_TOOL_SERVER, migrateMcpServers } from "../../../core/codex/mcp_servers.ts";
import {
  approvalDecision,
  permissionSettings,
  threadApprovalPolicy,
} from "../../../core/codex/permissions.ts";
import type { McpServerConfig } from "../../../core/mcp/servers.ts";

const TOOL_SERVER = {
  command: "herald",
  args: ["-p", "default", "mcp", "serve"],
  env: { HERALD_HOME: "/h" },
};
const NONE = userSettings("");

function server(fields: Partial<McpServerConfig>): McpServerConfig {
  return { timeout: 300, enabled: true, ...fields };
}

Deno.test("each permission level maps to Codex's built-in profile", () => {
  const values = (level: "auto" | "approval-required" | "unrestricted") =>
    Object.fromEntries(permissionSettings(level, NONE).entries.map((e) => [e.key[0], e.value]));
  assert.deepEqual(values("auto"), { default_permissions: ":workspace" });
  assert.deepEqual(values("approval-required"), {
    default_permissions: ":read-only",
    approval_policy: "on-request",
  });
  assert.deepEqual(values("unrestricted"), { default_permissions: ":danger-full-access" });
  assert.equal(threadApprovalPolicy("approval-required"), "untrusted");
  assert.equal(threadApprovalPolicy("auto"), undefined);
});

Deno.test("the user's own default_permissions and approval_policy outside the block are kept, ours left out", () => {
  const user = userSettings('default_permissions = ":read-only"\napproval_policy = "never"\n');
  const settings = permissionSettings("approval-required", user);
  assert.deepEqual(settings.entries, []);
  assert.deepEqual(settings.kept, ["default_permissions", "approval_policy"]);
  assert.match(settings.notes.join("\n"), /kept your own default_permissions/);
});

Deno.test("approval choices map to Codex's decisions, failing closed", () => {
  assert.equal(approvalDecision("once"), "accept");
  assert.equal(approvalDecision("session"), "acceptForSession");
  assert.equal(approvalDecision("always"), "acceptForSession");
  assert.equal(approvalDecision("deny"), "decline");
  assert.equal(approvalDecision("whatever"), "decline");
  assert.equal(approvalDecision(undefined), "decline");
});

Deno.test("stdio and HTTP servers migrate with references forwarded by name and no secret written", () => {
  const result = migrateMcpServers(
    {
      files: server({
        command: "npx",
        args: ["-y", "srv"],
        env: {
          GITHUB_TOKEN: "${GITHUB_TOKEN}",
          LOG_LEVEL: "debug",
          API_KEY: "sk-literal-secret-value",
        },
        timeout: 60,
      }),
      web: server({
        url: "https://mcp.example.com/mcp",
        headers: {
          Authorization: "Bearer ${WEB_TOKEN}",
          "X-Api-Key": "${HERALD_MCP_WEB_X_API_KEY}",
          "X-Client": "herald",
          "X-Secret-Token": "plain-secret-value",
        },
        enabled: false,
      }),
    },
    TOOL_SERVER,
    NONE,
  );
  const values = Object.fromEntries(result.entries.map((e) => [e.key.join("."), e.value]));
  assert.deepEqual(values[`mcp_servers.${HERALD_TOOL_SERVER}`], {
    ...TOOL_SERVER,
    startup_timeout_sec: 30,
    tool_timeout_sec: 600,
  });
  assert.deepEqual(values["mcp_servers.files"], {
    command: "npx",
    args: ["-y", "srv"],
    env: { LOG_LEVEL: "debug" },
    env_vars: ["GITHUB_TOKEN"],
    tool_timeout_sec: 60,
  });
  assert.deepEqual(values["mcp_servers.web"], {
    url: "https://mcp.example.com/mcp",
    bearer_token_env_var: "WEB_TOKEN",
    http_headers: { "X-Client": "herald" },
    env_http_headers: { "X-Api-Key": "HERALD_MCP_WEB_X_API_KEY" },
    tool_timeout_sec: 300,
    enabled: false,
  });
  assert.deepEqual(result.migrated, ["files", "web"]);
  assert.deepEqual(result.forwardedEnv, ["GITHUB_TOKEN", "HERALD_MCP_WEB_X_API_KEY", "WEB_TOKEN"]);
  const written = JSON.stringify(result.entries);
  assert.ok(
    !written.includes("sk-literal-secret-value") && !written.includes("plain-secret-value"),
  );
  assert.match(result.warnings.join("\n"), /API_KEY looks secret/);
  assert.match(result.warnings.join("\n"), /X-Secret-Token looks secret/);
});

Deno.test("servers Codex cannot take are skipped with a warning", () => {
  const result = migrateMcpServers(
    {
      renamed: server({ command: "a", env: { TOKEN: "${OTHER_TOKEN}" } }),
      argref: server({ command: "a", args: ["--key=${KEY}"] }),
      cred: server({ url: "https://u:pw@example.com/mcp" }),
      nothing: server({}),
      [HERALD_TOOL_SERVER]: server({ command: "mine" }),
    },
    TOOL_SERVER,
    NONE,
  );
  assert.deepEqual(result.migrated, ["renamed"]);
  const text = result.warnings.join("\n");
  assert.match(text, /env TOKEN is not passed/);
  assert.match(text, /"argref" is not migrated/);
  assert.match(text, /"cred" is not migrated: its URL holds a credential/);
  assert.match(text, /"nothing" is not migrated/);
  assert.match(text, /"herald" is not migrated/);
  assert.ok(!JSON.stringify(result.entries).includes("pw@"));
});

Deno.test("servers the user defines in config.toml are theirs; a [mcp_servers] table blocks all", () => {
  const user = userSettings(
    '[mcp_servers.herald]\ncommand = "x"\n[mcp_servers.fetch]\ncommand = "y"\n',
  );
  const result = migrateMcpServers({ fetch: server({ command: "uvx" }) }, TOOL_SERVER, user);
  assert.deepEqual(result.entries, []);
  assert.match(result.warnings.join("\n"), /already defines an MCP server named "herald"/);
  assert.match(
    result.warnings.join("\n"),
    /"fetch" is not migrated: config.toml already defines it/,
  );
  const table = migrateMcpServers({}, TOOL_SERVER, userSettings("[mcp_servers]\n"));
  assert.deepEqual(table.entries, []);
  assert.match(table.warnings[0], /defines mcp_servers as one table/);
});

Deno.test("a credential in a server's arguments is never written: the server is skipped, the value not shown", () => {
  const token = "sk-proj-abcdefghijklmnop1234";
  const result = migrateMcpServers(
    {
      flag: server({ command: "a", args: ["--api-key", "plain-looking-value"] }),
      inline: server({ command: "a", args: ["--token=abc123"] }),
      prefixed: server({ command: "a", args: ["serve", token] }),
      fine: server({ command: "a", args: ["--port", "8080", "--verbose", "--api-key-file", "/k"] }),
    },
    TOOL_SERVER,
    NONE,
  );
  assert.deepEqual(result.migrated, ["fine"]);
  const text = result.warnings.join("\n");
  assert.match(text, /"flag" is not migrated: its argument 2 looks like a credential/);
  assert.match(text, /"inline" is not migrated: its argument 1 /);
  assert.match(text, /"prefixed" is not migrated: its argument 2 /);
  const written = JSON.stringify(result.entries);
  for (const secret of [token, "plain-looking-value", "abc123"]) {
    assert.ok(!written.includes(secret) && !text.includes(secret), secret);
  }
});

/**
 * The managed block in Codex's config.toml: the TOML emitter, merging the
 * block into a hand-written file (everything outside the markers byte for
 * byte, CRLF kept, the block replaced in place) and the scanner that finds
 * what the user's text already sets.
 */

import assert from "node:assert/strict";
import {
  MANAGED_BLOCK_END,
  MANAGED_BLOCK_START,
  mergeManagedBlock,
  outsideManagedBlock,
  renderManagedBlock,
  scanToml,
  tomlLine,
  TomlScanError,
  tomlString,
  tomlValue,
  userSettings,
} from "../../../core/codex/config_toml.ts";

const HAND_WRITTEN = [
  "# my settings, keep them",
  'model = "gpt-5"   # trailing comment',
  "notes = '''",
  "[not.a.table]",
  "default_permissions = 1",
  "'''",
  "",
  "[profiles.x]",
  'model = "o3"',
  'sandbox_mode = "read-only"',
  "",
  "[mcp_servers.mine]",
  'command = "true"',
  "args = [",
  '  "a", # comment inside an array',
  '  "b",',
  "]",
  'last = "no newline at the end"',
].join("\n");

function block(lines: string[]): string {
  return renderManagedBlock(lines.map((line, i) => ({ key: [`k${i}`], value: line })));
}

Deno.test("tomlString escapes quotes, backslashes and control characters", () => {
  assert.equal(tomlString('a"b\\c\nd\te\u0001\u007f'), '"a\\"b\\\\c\\nd\\te\\u0001\\u007f"');
  assert.equal(tomlString("ünïcode ✓"), '"ünïcode ✓"');
});

Deno.test("tomlValue writes numbers, booleans, arrays, inline tables and quotes keys that are not bare", () => {
  assert.equal(
    tomlValue({ command: "npx", args: ["-y", "x"], n: 1.5, on: false, env: {}, "X Key": "v" }),
    '{ command = "npx", args = ["-y", "x"], n = 1.5, on = false, env = {}, "X Key" = "v" }',
  );
  assert.equal(
    tomlLine({ key: ["mcp_servers", "my.server"], value: 30 }),
    'mcp_servers."my.server" = 30',
  );
  assert.throws(() => tomlValue(Number.NaN), TypeError);
});

Deno.test("the scanner reads what the emitter writes, keys and all", () => {
  const text = renderManagedBlock([
    { key: ["mcp_servers", "we ird"], value: { command: 'a"b', env: { "X-Y": "1" } } },
  ]);
  const paths = scanToml(text).keys.map((k) => k.path.join("|"));
  assert.deepEqual(paths, [
    "mcp_servers|we ird",
    "mcp_servers|we ird|command",
    "mcp_servers|we ird|env",
    "mcp_servers|we ird|env|X-Y",
  ]);
});

Deno.test("a hand-written file survives two migrations byte for byte outside the markers", () => {
  const first = mergeManagedBlock(HAND_WRITTEN, block(["one"]));
  assert.ok(first.startsWith(MANAGED_BLOCK_START));
  assert.equal(outsideManagedBlock(first), HAND_WRITTEN);
  const second = mergeManagedBlock(first, block(["two", "three"]));
  assert.equal(outsideManagedBlock(second), HAND_WRITTEN);
  assert.equal(second.split(MANAGED_BLOCK_START).length, 2, "one block, not two");
  assert.ok(second.includes('k1 = "three"') && !second.includes('"one"'));
  assert.equal(mergeManagedBlock(second, block(["two", "three"])), second);
});

Deno.test("the block is replaced where it is, and keys the user added above it stay there", () => {
  const start = 'model = "x"\n' + block(["one"]) + "[t]\na = 1\n";
  const next = mergeManagedBlock(start, block(["two"]));
  assert.equal(next, 'model = "x"\n' + block(["two"]) + "[t]\na = 1\n");
});

Deno.test("a CRLF file gets the block with CRLF and keeps its own bytes", () => {
  const crlf = HAND_WRITTEN.replaceAll("\n", "\r\n");
  const merged = mergeManagedBlock(crlf, block(["one"]));
  assert.ok(!/[^\r]\n/.test(merged), "no bare LF");
  assert.equal(outsideManagedBlock(merged), crlf);
  const again = mergeManagedBlock(merged, block(["two"]));
  assert.equal(outsideManagedBlock(again), crlf);
  assert.ok(again.includes(`k0 = "two"\r\n${MANAGED_BLOCK_END}\r\n`));
});

Deno.test("a file with LF lines and one stray CRLF keeps LF for the block", () => {
  const mixed = `${HAND_WRITTEN}# pasted from elsewhere\r\n`;
  const merged = mergeManagedBlock(mixed, block(["one"]));
  assert.equal(outsideManagedBlock(merged), mixed);
  assert.ok(!merged.slice(0, merged.indexOf(MANAGED_BLOCK_END) + 100).includes("\r"));
});

Deno.test("a byte-order mark stays first, and no file gives the block alone", () => {
  const merged = mergeManagedBlock("\uFEFFa = 1\n", block(["x"]));
  assert.ok(merged.startsWith("\uFEFF" + MANAGED_BLOCK_START));
  assert.equal(mergeManagedBlock(null, block(["x"])), block(["x"]));
});

Deno.test("broken markers or a block below a table header are refused, not guessed at", () => {
  assert.throws(
    () => mergeManagedBlock(`${MANAGED_BLOCK_START}\na = 1\n`, block(["x"])),
    TomlScanError,
  );
  assert.throws(
    () => mergeManagedBlock(`a = 1\n${MANAGED_BLOCK_END}\n`, block(["x"])),
    TomlScanError,
  );
  assert.throws(
    () => mergeManagedBlock(block(["x"]) + block(["y"]), block(["z"])),
    TomlScanError,
  );
  assert.throws(
    () => mergeManagedBlock("[t]\n" + block(["x"]), block(["y"])),
    /before any \[table\]/,
  );
});

Deno.test("userSettings finds root keys and MCP server names outside the block, in every form", () => {
  const text = block(["x"]).replace(
    'k0 = "x"',
    'default_permissions = ":workspace"\nmcp_servers.herald = {}',
  ) +
    [
      'approval_policy = "never"',
      'mcp_servers.dotted.command = "a"',
      '"mcp_servers"."quoted" = { command = "b" }',
      "[profiles.p]",
      'default_permissions = ":read-only"',
      "[mcp_servers.header]",
      'command = "c"',
    ].join("\n");
  const user = userSettings(text);
  assert.ok(user.rootKeys.has("approval_policy"));
  assert.ok(!user.rootKeys.has("default_permissions"), "the block's own keys do not count");
  assert.deepEqual([...user.mcpServers].sort(), ["dotted", "header", "quoted"]);
  assert.equal(user.mcpServersTable, false);
  assert.equal(userSettings("[mcp_servers]\nx = { command = 'a' }\n").mcpServersTable, true);
  assert.equal(userSettings("mcp_servers = {}\n").mcpServersTable, true);
});

Deno.test("the scanner ignores look-alikes inside strings and reports text it cannot follow with its line", () => {
  const user = userSettings(HAND_WRITTEN);
  assert.ok(!user.rootKeys.has("default_permissions"), "inside a multi-line string");
  assert.ok(!user.rootKeys.has("not"));
  assert.deepEqual([...user.mcpServers], ["mine"]);
  assert.throws(
    () => scanToml('a = 1\nb = "open\n'),
    (error: unknown) => error instanceof TomlScanError && error.line === 2,
  );
  assert.throws(() => scanToml("a = 1\njust words\n"), TomlScanError);
});

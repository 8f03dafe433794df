import assert from "node:assert/strict";
import { join } from "node:path";
import { captureOutput, run } from "../../cli/app.ts";
import { DANGER_RULES } from "../../core/tools/dangerous.ts";
import { tempDir } from "../_helpers.ts";

async function herald(home: string, ...argv: string[]) {
  const io = captureOutput();
  const code = await run(argv, { io, env: { HERALD_HOME: home, HOME: "/nonexistent" } });
  return { code, stdout: io.stdout, stderr: io.stderr };
}

Deno.test("approvals list shows the profile's allow and deny lists, mode and timeout", async () => {
  await using home = await tempDir();
  await Deno.writeTextFile(
    join(home.path, "config.yaml"),
    "approvals:\n  allow: [rm_recursive:build]\n  deny: ['git push *']\n  timeout: 45\n",
  );
  const json = await herald(home.path, "approvals", "list", "--json");
  assert.equal(json.code, 0, json.stderr);
  const view = JSON.parse(json.stdout);
  assert.deepEqual(
    { mode: view.mode, timeout: view.timeout_seconds, allow: view.allow, deny: view.deny },
    { mode: "ask", timeout: 45, allow: ["rm_recursive:build"], deny: ["git push *"] },
  );
  const text = await herald(home.path, "approvals", "list");
  assert.match(text.stdout, /Questions wait 45 s/);
  assert.match(text.stdout, /Allowed always \(approvals\.allow\):\n {2}rm_recursive:build/);
  assert.match(text.stdout, /Refused \(approvals\.deny\):\n {2}git push \*/);
});

Deno.test("approvals list --rules lists every rule with its class", async () => {
  await using home = await tempDir();
  const json = await herald(home.path, "approvals", "list", "--rules", "--json");
  assert.equal(json.code, 0, json.stderr);
  const rules = JSON.parse(json.stdout) as { rule: string; class: string }[];
  assert.equal(rules.length, DANGER_RULES.length);
  assert.ok(rules.some((r) => r.rule === "rm_root" && r.class === "hardline"));
  const text = await herald(home.path, "approvals", "list", "--rules");
  assert.match(text.stdout, /asks {5}rm_recursive:<targets>/);
  assert.match(text.stdout, /refused {2}rm_root/);
});

Deno.test("a bad approvals.mode is a config warning, not a crash", async () => {
  await using home = await tempDir();
  await Deno.writeTextFile(join(home.path, "config.yaml"), "approvals:\n  mode: sometimes\n");
  const result = await herald(home.path, "approvals", "list");
  assert.equal(result.code, 0, result.stderr);
  assert.match(result.stderr, /warning: .*approvals\.mode/);
  assert.match(result.stdout, /Mode: ask/);
});

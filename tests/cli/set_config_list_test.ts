/**
 * `herald config set` of a list: items as separate arguments, one
 * comma-separated argument, or today's JSON form; a scalar key given
 * several values is a usage error that never echoes a secret.
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import YAML from "yaml";
import { captureOutput, run } from "../../cli/app.ts";
import { configValueFromArgs } from "../../core/usecases/config.ts";
import { tempDir } from "../_helpers.ts";

async function herald(home: string, ...argv: string[]) {
  const io = captureOutput();
  const code = await run(argv, { io, env: { HERALD_HOME: home, HOME: "/nonexistent" } });
  return { code, stdout: io.stdout, stderr: io.stderr };
}

async function written(home: string): Promise<Record<string, Record<string, unknown>>> {
  return YAML.parse(await Deno.readTextFile(join(home, "config.yaml")));
}

Deno.test("a list key takes comma-separated items, separate arguments or JSON", async () => {
  await using home = await tempDir();
  const commas = await herald(home.path, "config", "set", "plugins", " a.ts , b.ts");
  assert.equal(commas.code, 0, commas.stderr);
  assert.match(commas.stdout, /^Set plugins = \[ a\.ts, b\.ts \] in /);
  assert.deepEqual((await written(home.path)).plugins, ["a.ts", "b.ts"]);
  const deny = await herald(
    home.path,
    "config",
    "set",
    "approvals.deny",
    " git push *",
    "rm -rf *",
  );
  assert.equal(deny.code, 0, deny.stderr);
  assert.match(deny.stdout, /^Set approvals\.deny = \[ git push \*, rm -rf \* \] in /);
  assert.deepEqual((await written(home.path)).approvals.deny, ["git push *", "rm -rf *"]);

  const args = await herald(home.path, "config", "set", "terminal.env_passthrough", "A", "B", "C");
  assert.equal(args.code, 0, args.stderr);
  assert.deepEqual((await written(home.path)).terminal.env_passthrough, ["A", "B", "C"]);

  const json = await herald(home.path, "config", "set", "plugins", '["a,b.ts", "c.ts"]', "--json");
  assert.equal(json.code, 0, json.stderr);
  assert.deepEqual(JSON.parse(json.stdout).value, ["a,b.ts", "c.ts"]);
  const one = await herald(home.path, "config", "set", "plugins", "solo.ts");
  assert.equal(one.code, 0, one.stderr);
  assert.deepEqual((await written(home.path)).plugins, ["solo.ts"]);
  const empty = await herald(home.path, "config", "set", "plugins", "[]");
  assert.equal(empty.code, 0, empty.stderr);
  assert.deepEqual((await written(home.path)).plugins, []);

  const got = await herald(home.path, "config", "get", "approvals.deny", "--json");
  assert.deepEqual(JSON.parse(got.stdout).value, ["git push *", "rm -rf *"]);
});

Deno.test("an approvals pattern is one item even with commas: command patterns hold them", async () => {
  await using home = await tempDir();
  const one = await herald(home.path, "config", "set", "approvals.deny", "git commit -m a,b *");
  assert.equal(one.code, 0, one.stderr);
  assert.deepEqual((await written(home.path)).approvals.deny, ["git commit -m a,b *"]);
  const two = await herald(home.path, "config", "set", "approvals.allow", "a,b", "rm_recursive:x");
  assert.equal(two.code, 0, two.stderr);
  assert.deepEqual((await written(home.path)).approvals.allow, ["a,b", "rm_recursive:x"]);
  assert.deepEqual(configValueFromArgs("approvals.deny", ["sed -i s/a,b/c/ *"]), [
    "sed -i s/a,b/c/ *",
  ]);
  assert.deepEqual(configValueFromArgs("plugins", ["a.ts,b.ts"]), ["a.ts", "b.ts"]);
});

Deno.test("JSON the shell split into words is refused with a hint to quote it", async () => {
  await using home = await tempDir();
  for (
    const argv of [
      ["plugins", "[a.ts,", "b.ts]"],
      ["plugins", "a.ts]"],
      ["approvals.deny", "[git push *,", "rm *]"],
      ["terminal.env_passthrough", "A,B]"],
    ]
  ) {
    const result = await herald(home.path, "config", "set", ...argv);
    assert.equal(result.code, 2, `${argv.join(" ")}: ${result.stderr}`);
    assert.match(result.stderr, /starts with \[ or ends with \]/, argv.join(" "));
    assert.match(result.stderr, /quote the JSON as one argument/, argv.join(" "));
  }
  await assert.rejects(Deno.stat(join(home.path, "config.yaml")), Deno.errors.NotFound);
  const quoted = await herald(home.path, "config", "set", "plugins", '["a.ts", "b.ts"]');
  assert.equal(quoted.code, 0, quoted.stderr);
  assert.deepEqual((await written(home.path)).plugins, ["a.ts", "b.ts"]);
});

Deno.test("an empty list item, an item of the wrong type and extra values for a scalar are usage errors", async () => {
  await using home = await tempDir();
  await Deno.writeTextFile(join(home.path, "config.yaml"), "# keep me\nplugins: [x.ts]\n");
  for (
    const [argv, pattern] of [
      [["plugins", "a,,b"], /a list item is empty/],
      [["plugins", "a,"], /a list item is empty/],
      [["plugins", "a", ""], /a list item is empty/],
      [["plugins", ""], /a list item is empty/],
      [["terminal.env_passthrough", "A=B"], /Invalid value .*terminal\.env_passthrough/],
      [["agent.max_turns", "3", "4"], /"agent\.max_turns" takes one value, got 2/],
      [["model", "a", "b"], /"model" takes one value|section/],
    ] as const
  ) {
    const result = await herald(home.path, "config", "set", ...argv);
    assert.equal(result.code, 2, `${argv.join(" ")}: ${result.stderr}`);
    assert.match(result.stderr, pattern, argv.join(" "));
  }
  const secret = await herald(home.path, "config", "set", "model.api_key", "sk-one", "sk-two");
  assert.equal(secret.code, 2);
  assert.match(secret.stderr, /"model\.api_key" takes one value, got 2/);
  assert.doesNotMatch(secret.stderr + secret.stdout, /sk-one|sk-two/);
  const envName = await herald(home.path, "config", "set", "OPENAI_API_KEY", "k1", "k2");
  assert.equal(envName.code, 2);
  assert.doesNotMatch(envName.stderr, /k1|k2/);
  const typo = await herald(home.path, "config", "set", "plugin", "a", "b");
  assert.equal(typo.code, 2);
  assert.match(typo.stderr, /plugins/, "an unknown key is named first, with a suggestion");
  assert.equal(
    await Deno.readTextFile(join(home.path, "config.yaml")),
    "# keep me\nplugins: [x.ts]\n",
    "nothing was written",
  );
  await assert.rejects(Deno.stat(join(home.path, ".env")), Deno.errors.NotFound);
});

Deno.test("configValueFromArgs reads a list of objects only from JSON, and scalars as before", () => {
  assert.deepEqual(
    configValueFromArgs("fallback_providers", ['[{"provider": "openrouter", "model": "m"}]']),
    [{ provider: "openrouter", model: "m" }],
  );
  assert.throws(() => configValueFromArgs("fallback_providers", ["openrouter"]), /Invalid value/);
  assert.equal(configValueFromArgs("agent.max_turns", ["30"]), 30);
  assert.equal(configValueFromArgs("model.default", ["a,b"]), "a,b");
  assert.deepEqual(configValueFromArgs("platforms.telegram.allowed_users", ["12, 34"]), [
    "12",
    "34",
  ]);
  assert.deepEqual(configValueFromArgs("mcp_servers.fs.args", ["-y", "server"]), ["-y", "server"]);
  assert.throws(() => configValueFromArgs("plugins", []), /Give a value for "plugins"/);
});

/**
 * `herald login <provider>`: the key read from standard input (piped) into
 * the profile's `.env` (0600), never printed; an unknown provider and an
 * empty key are usage errors. Run in-process with an injected stdin.
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { captureOutput, run } from "../../cli/app.ts";
import { tempDir } from "../_helpers.ts";

function stdin(text: string): () => ReadableStream<Uint8Array> {
  return () =>
    new ReadableStream({
      start(controller) {
        controller.enqueue(new TextEncoder().encode(text));
        controller.close();
      },
    });
}

async function herald(home: string, input: string, ...argv: string[]) {
  const io = captureOutput();
  const code = await run(argv, {
    io,
    env: { HERALD_HOME: home, HOME: "/nonexistent" },
    terminal: { input: stdin(input), interactive: false },
  });
  return { code, stdout: io.stdout, stderr: io.stderr };
}

const KEY = "sk-or-v1-login-secret-9876";

Deno.test("login stores a piped key in .env under the provider's variable and never prints it", async () => {
  await using dir = await tempDir();
  const home = join(dir.path, "home");
  const result = await herald(home, `${KEY}\n`, "login", "openrouter");
  assert.equal(result.code, 0, result.stderr);
  assert.match(result.stdout, /Stored the openrouter key in .*\.env as OPENROUTER_API_KEY/);
  assert.ok(!(result.stdout + result.stderr).includes(KEY));
  const env = join(home, ".env");
  assert.match(await Deno.readTextFile(env), new RegExp(`^OPENROUTER_API_KEY=${KEY}$`, "m"));
  assert.equal(Deno.statSync(env).mode! & 0o777, 0o600);

  const json = await herald(home, "sk-ant-second-key\n", "login", "anthropic", "--json");
  assert.equal(json.code, 0, json.stderr);
  assert.deepEqual(JSON.parse(json.stdout), {
    profile: "default",
    provider: "anthropic",
    env: "ANTHROPIC_API_KEY",
    file: env,
  });
  const text = await Deno.readTextFile(env);
  assert.match(text, /^ANTHROPIC_API_KEY=sk-ant-second-key$/m);
  assert.match(text, new RegExp(`^OPENROUTER_API_KEY=${KEY}$`, "m"), "other keys are kept");
});

Deno.test("login custom stores CUSTOM_API_KEY and leaves an OpenAI key as it is", async () => {
  await using dir = await tempDir();
  const home = join(dir.path, "home");
  await Deno.mkdir(home, { recursive: true });
  await Deno.writeTextFile(join(home, ".env"), "OPENAI_API_KEY=sk-real-openai\n", { mode: 0o600 });
  const result = await herald(home, "local-server-key\n", "login", "custom");
  assert.equal(result.code, 0, result.stderr);
  assert.match(result.stdout, /^Stored the custom key in .*\.env as CUSTOM_API_KEY\n/);
  assert.match(result.stderr, /API key for custom \(hidden\)/);
  const text = await Deno.readTextFile(join(home, ".env"));
  assert.match(text, /^OPENAI_API_KEY=sk-real-openai$/m);
  assert.match(text, /^CUSTOM_API_KEY=local-server-key$/m);
});

Deno.test("login names a missing profile before asking for the key", async () => {
  await using dir = await tempDir();
  const home = join(dir.path, "home");
  const result = await herald(home, `${KEY}\n`, "-p", "nosuch", "login", "openrouter");
  assert.notEqual(result.code, 0);
  assert.match(result.stderr, /nosuch/);
  assert.doesNotMatch(result.stderr, /API key for/, "the key was not asked for");
  assert.ok(!(result.stdout + result.stderr).includes(KEY));
});

Deno.test("login refuses an unknown provider with a suggestion, and an empty key, with exit 2", async () => {
  await using dir = await tempDir();
  const home = join(dir.path, "home");
  const typo = await herald(home, `${KEY}\n`, "login", "openruter");
  assert.equal(typo.code, 2);
  assert.match(typo.stderr, /Unknown provider "openruter"; did you mean "openrouter"\?/);
  assert.ok(!typo.stderr.includes(KEY));
  const empty = await herald(home, "\n", "login", "openai");
  assert.equal(empty.code, 2);
  assert.match(empty.stderr, /No key was given, so nothing was stored/);
  await assert.rejects(() => Deno.stat(home), Deno.errors.NotFound, "nothing was created");
});

/**
 * `herald setup` and `herald model` as a person uses them: the real program
 * behind a real pseudo-terminal (tests/tui/_pty.ts), read through a
 * headless terminal emulator, against the scripted model server (which
 * lists its models at `GET /v1/models` and checks the key).
 *
 * Permissions: `-A` (the pty addon, /proc, subprocesses).
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { setupProviders } from "../../core/usecases/setup.ts";
import { startModelServer } from "../fakes/model_server.ts";
import { PtyScreen } from "../tui/_pty.ts";
import { tempDir } from "../_helpers.ts";
import { runHerald } from "./_herald.ts";

const KEY = "sk-setup-e2e-Zq81vX3k";
const CUSTOM_NUMBER = String(setupProviders().findIndex((p) => p.id === "custom") + 1);

/** Every process's command line that holds `text` (Linux /proc). */
async function commandLinesWith(text: string): Promise<string[]> {
  const found: string[] = [];
  for await (const entry of Deno.readDir("/proc")) {
    if (!/^\d+$/.test(entry.name)) continue;
    const argv = await Deno.readTextFile(`/proc/${entry.name}/cmdline`).catch(() => "");
    if (argv.includes(text)) found.push(`${entry.name}: ${argv.replaceAll("\0", " ")}`);
  }
  return found;
}

function screenFor(home: string, args: string[]): PtyScreen {
  return PtyScreen.spawn({
    cwd: home,
    env: { HERALD_HOME: home, HOME: home, NO_COLOR: "1" },
    args,
  });
}

Deno.test({
  name: "setup on a terminal: custom server, hidden key, model from the list, a passing test call",
  ignore: Deno.build.os !== "linux",
  async fn() {
    await using home = await tempDir();
    await using server = await startModelServer({
      requireKey: KEY,
      models: ["gpt-test", "other-model"],
      replies: [{ text: "OK" }],
    });
    await using screen = screenFor(home.path, ["setup"]);

    await screen.waitFor(/custom \(OpenAI-compatible local server\)[\s\S]*Choose 1-\d+:$/);
    await screen.type(`${CUSTOM_NUMBER}\r`);
    await screen.waitFor(/Base URL of the server .*:$/m);
    await screen.type(`${server.openaiBaseUrl}\r`);
    await screen.waitFor(/API key \(hidden; Enter if the server needs none\):$/m);
    await screen.type(KEY);
    await screen.waitFor(`: ${"*".repeat(KEY.length)}`);
    assert.deepEqual(await commandLinesWith(KEY), [], "the key is in no process's argv");
    screen.press("enter");

    await screen.waitFor(/lists 2 models[\s\S]*1\) gpt-test[\s\S]*Choose 1-3:$/);
    assert.deepEqual(await commandLinesWith(KEY), []);
    await screen.type("1\r");
    await screen.waitFor("Test call succeeded: gpt-test");
    const exit = await screen.exited;
    await screen.settle();
    assert.equal(exit.exitCode, 0, screen.allText());

    const shown = screen.allText();
    assert.ok(!shown.includes(KEY), "the key never appears on the screen");
    assert.match(shown, /The key is stored in .*\.env as CUSTOM_API_KEY/);
    assert.match(shown, /answered "OK"/);

    const config = await Deno.readTextFile(join(home.path, "config.yaml"));
    assert.ok(!config.includes(KEY), config);
    assert.match(config, /provider: custom/);
    assert.ok(config.includes(`base_url: ${server.openaiBaseUrl}`), config);
    assert.match(config, /default: gpt-test/);
    const envFile = join(home.path, ".env");
    assert.match(await Deno.readTextFile(envFile), new RegExp(`^CUSTOM_API_KEY=${KEY}$`, "m"));
    assert.doesNotMatch(await Deno.readTextFile(envFile), /OPENAI_API_KEY/);
    assert.equal(Deno.statSync(envFile).mode! & 0o777, 0o600);

    const listing = server.requests.find((request) => request.path === "/v1/models")!;
    assert.equal(listing.headers.authorization, `Bearer ${KEY}`);
    const call = server.requests.find((request) => request.path === "/v1/chat/completions")!;
    assert.equal((call.body as { model: string }).model, "gpt-test");
  },
});

Deno.test({
  name: "Ctrl-C at the key prompt cancels setup and writes nothing",
  ignore: Deno.build.os !== "linux",
  async fn() {
    await using home = await tempDir();
    await using screen = screenFor(home.path, ["setup"]);
    await screen.waitFor(/Choose 1-\d+:$/);
    await screen.type("openrouter\r");
    await screen.waitFor(/API key for OpenRouter \(hidden\):$/m);
    await screen.type("sk-half");
    screen.press("ctrl-c");
    const exit = await screen.exited;
    await screen.settle();
    assert.equal(exit.exitCode, 2, screen.allText());
    assert.match(screen.allText(), /Cancelled; nothing more was changed/);
    await assert.rejects(() => Deno.stat(join(home.path, "config.yaml")), Deno.errors.NotFound);
  },
});

Deno.test("a re-run of setup offers the current values, and herald model lists and switches", async () => {
  await using home = await tempDir();
  await using server = await startModelServer({
    requireKey: KEY,
    models: ["gpt-test", "other-model"],
    replies: [{ text: "first" }, { text: "second" }],
  });
  const first = await runHerald({
    args: ["setup"],
    home: home.path,
    stdin: `${CUSTOM_NUMBER}\n${server.openaiBaseUrl}\n${KEY}\n2\n`,
  });
  assert.equal(first.code, 0, first.stderr);
  assert.match(first.stdout, /model other-model/);
  assert.ok(!(first.stdout + first.stderr).includes(KEY));

  // Enter at every question keeps what is there.
  const again = await runHerald({ args: ["setup"], home: home.path, stdin: "\n\n\n\n" });
  assert.equal(again.code, 0, again.stderr);
  assert.match(again.stderr, /custom \(OpenAI-compatible local server\) \(current\)/);
  assert.ok(again.stderr.includes(`[${server.openaiBaseUrl}]`), again.stderr);
  assert.match(again.stderr, /Enter keeps the stored CUSTOM_API_KEY/);
  assert.match(again.stderr, /other-model \(current\)/);
  assert.match(again.stdout, /Test call succeeded: other-model .* answered "second"/);

  const listed = await runHerald({ args: ["model"], home: home.path });
  assert.equal(listed.code, 0, listed.stderr);
  assert.match(listed.stdout, /Model: +other-model/);
  assert.match(listed.stdout, /^ {2}gpt-test$/m);
  assert.match(listed.stdout, /^\* other-model$/m);

  const switched = await runHerald({ args: ["model", "gpt-test"], home: home.path });
  assert.equal(switched.code, 0, switched.stderr);
  assert.match(switched.stdout, /Model set to custom \/ gpt-test/);
  const json = await runHerald({ args: ["model", "--json"], home: home.path });
  const view = JSON.parse(json.stdout);
  assert.equal(view.model, "gpt-test");
  assert.deepEqual(view.models, ["gpt-test", "other-model"]);
});

Deno.test("setup of a custom server never offers nor sends to it an OpenAI key as its own", async () => {
  await using home = await tempDir();
  const openai = "sk-real-openai-key-Hq72";
  await Deno.writeTextFile(join(home.path, ".env"), `OPENAI_API_KEY=${openai}\n`, { mode: 0o600 });
  await using server = await startModelServer({ models: ["gpt-test"], replies: [{ text: "OK" }] });
  const result = await runHerald({
    args: ["setup"],
    home: home.path,
    stdin: `${CUSTOM_NUMBER}\n${server.openaiBaseUrl}\n\n1\n`,
  });
  assert.equal(result.code, 0, result.stderr);
  assert.doesNotMatch(result.stderr, /Enter keeps/);
  assert.match(result.stderr, /API key \(hidden; Enter if the server needs none\)/);
  const listing = server.requests.find((request) => request.path === "/v1/models")!;
  assert.equal(listing.headers.authorization, undefined, "the OpenAI key is not sent to list");
  // Sessions still read OPENAI_API_KEY for custom when CUSTOM_API_KEY is unset; setup says so.
  assert.match(result.stderr, /Note: custom has no key of its own, so OPENAI_API_KEY is sent/);
  assert.match(result.stderr, /herald login custom/);
  assert.ok(!(result.stdout + result.stderr).includes(openai));
  assert.equal(await Deno.readTextFile(join(home.path, ".env")), `OPENAI_API_KEY=${openai}\n`);

  // A key typed for the server goes to CUSTOM_API_KEY; the OpenAI key stays as it was.
  const typed = await runHerald({
    args: ["setup", "--no-test"],
    home: home.path,
    stdin: `${CUSTOM_NUMBER}\n\nsk-local-server\n1\n`,
  });
  assert.equal(typed.code, 0, typed.stderr);
  assert.match(typed.stdout, /The key is stored in .*\.env as CUSTOM_API_KEY/);
  assert.doesNotMatch(typed.stderr, /Note:/);
  const env = await Deno.readTextFile(join(home.path, ".env"));
  assert.match(env, new RegExp(`^OPENAI_API_KEY=${openai}$`, "m"));
  assert.match(env, /^CUSTOM_API_KEY=sk-local-server$/m);
  const listings = server.requests.filter((request) => request.path === "/v1/models");
  assert.equal(listings.at(-1)!.headers.authorization, "Bearer sk-local-server");
});

Deno.test("setup with a closed port says the server is not reachable and what to check", async () => {
  await using home = await tempDir();
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const base = `http://127.0.0.1:${listener.addr.port}/v1`;
  listener.close();
  const result = await runHerald({
    args: ["setup", "--provider", "ollama", "--base-url", base],
    home: home.path,
    stdin: "qwen3:8b\n",
  });
  assert.equal(result.code, 1);
  assert.ok(result.stderr.includes(`Cannot reach ${base}/models: connection refused`));
  assert.match(result.stderr, /The test call failed: Cannot reach ollama at .*connection refused/);
  assert.match(result.stderr, /check model\.base_url \(herald config get model\.base_url\)/);
  assert.match(await Deno.readTextFile(join(home.path, "config.yaml")), /default: qwen3:8b/);
});

Deno.test({
  name: "herald model on a terminal offers the server's models and switches to the one picked",
  ignore: Deno.build.os !== "linux",
  async fn() {
    await using home = await tempDir();
    await using server = await startModelServer({ models: ["gpt-test", "other-model"] });
    await Deno.writeTextFile(
      join(home.path, "config.yaml"),
      `model:\n  provider: custom\n  base_url: ${server.openaiBaseUrl}\n  default: gpt-test\n`,
    );
    await using screen = screenFor(home.path, ["model"]);
    await screen.waitFor(/1\) gpt-test \(current\)[\s\S]*2\) other-model[\s\S]*Choose 1-3 \[1\]:$/);
    await screen.type("2\r");
    await screen.waitFor("Model set to custom / other-model");
    assert.equal((await screen.exited).exitCode, 0);
    assert.match(
      await Deno.readTextFile(join(home.path, "config.yaml")),
      /default: other-model/,
    );
  },
});

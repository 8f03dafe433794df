/**
 * `/api/ws` tool events carry what a client needs to show a call: a preview
 * of the result on `tool.complete` (`output`), cut so it stays JSON, and,
 * for a write_file that went ahead, the file's old text (`before`, for a
 * diff) as the tool read it. The profile's secrets never leave the server
 * in them: `.env` values, secret-named environment values and secrets
 * written in config.yaml are hidden in arguments, output and `before`.
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { toolOutputView } from "../../core/agent/turn_view.ts";
import { SecretRedactor } from "../../core/agent/preview_secrets.ts";
import { startModelServer } from "../fakes/model_server.ts";
import { configureModel } from "../e2e/_herald.ts";
import { tempDir } from "../_helpers.ts";
import { testDeps } from "./_app.ts";
import { RpcClient, startLiveServer } from "./_live.ts";

Deno.test("tool.complete carries a write_file's old text and a preview of the result, tool.start neither", async () => {
  await using home = await tempDir();
  await using work = await tempDir();
  await Deno.writeTextFile(join(work.path, "notes.txt"), "old line\n");
  await using model = await startModelServer({
    replies: [
      {
        toolCalls: [
          { name: "write_file", arguments: { path: "notes.txt", content: "new line\n" } },
          { name: "write_file", arguments: { path: "fresh.txt", content: "hello\n" } },
          { name: "terminal", arguments: { command: "echo previewed" } },
        ],
      },
      { text: "done" },
    ],
  });
  await configureModel(home.path, model.openaiBaseUrl);
  await using server = startLiveServer(home.path, { deps: { cwd: work.path } });
  await using client = await RpcClient.connect(server.wsUrl("/api/ws"));
  const { session_key } = await client.call<{ session_key: string }>("session.start", {});
  await client.call("session.send", { session_key, text: "write and run" });

  const starts = client.named("tool.start").map((event) => event.params);
  assert.deepEqual(starts.map((start) => start.name), ["write_file", "write_file", "terminal"]);
  assert.ok(starts.every((start) => !("before" in start)), "tool.start carries no old text");
  assert.equal(await Deno.readTextFile(join(work.path, "notes.txt")), "new line\n");

  // The calls run in parallel: their ends come in any order.
  const completes = new Map(
    client.named("tool.complete").map((event) => [event.params.tool_call_id, event.params]),
  );
  assert.deepEqual(starts.map((start) => completes.get(start.tool_call_id)?.before), [
    "old line\n",
    null,
    undefined,
  ]);
  const terminal = completes.get(starts[2].tool_call_id)!;
  assert.ok(!("before" in terminal), "only write_file carries before");
  assert.equal(terminal.output_truncated, false);
  assert.equal(JSON.parse(String(terminal.output)).stdout, "previewed\n");
});

const DOTENV_SECRET = "tok-dotenv-0123456789abcdef";
const PROCESS_SECRET = "ghp_processEnvSecret0123456789";
const CONFIG_SECRET = "sk-literal-config-key-9876543210";

Deno.test("the profile's secrets are hidden in tool arguments, output and before over /api/ws", async () => {
  await using home = await tempDir();
  await using work = await tempDir();
  const secrets = `dotenv=${DOTENV_SECRET}\nprocess=${PROCESS_SECRET}\nconfig=${CONFIG_SECRET}\n`;
  await Deno.writeTextFile(join(work.path, "settings.txt"), secrets);
  await Deno.writeTextFile(join(work.path, ".env"), `LOCAL_KEY=${DOTENV_SECRET}\n`);
  await Deno.writeTextFile(join(home.path, ".env"), `HERALD_PREVIEW_TOKEN=${DOTENV_SECRET}\n`);
  await using model = await startModelServer({
    replies: [
      {
        toolCalls: [
          { name: "read_file", arguments: { path: "settings.txt" } },
          { name: "terminal", arguments: { command: "cat settings.txt" } },
        ],
      },
      {
        toolCalls: [
          {
            name: "write_file",
            arguments: { path: "settings.txt", content: `dotenv=${DOTENV_SECRET}\nmore\n` },
          },
          { name: "write_file", arguments: { path: ".env", content: "STOLEN=1\n" } },
        ],
      },
      { text: "done" },
    ],
  });
  await configureModel(home.path, model.openaiBaseUrl, `  api_key: ${CONFIG_SECRET}\n`);
  const env = { ...testDeps(home.path).env, GITHUB_TOKEN: PROCESS_SECRET };
  await using server = startLiveServer(home.path, { deps: { cwd: work.path, env } });
  await using client = await RpcClient.connect(server.wsUrl("/api/ws"));
  const { session_key } = await client.call<{ session_key: string }>("session.start", {});
  await client.call("session.send", { session_key, text: "look at the settings" });

  const wire = JSON.stringify(client.events);
  for (const secret of [DOTENV_SECRET, PROCESS_SECRET, CONFIG_SECRET]) {
    assert.ok(!wire.includes(secret), `no notification carries ${secret}`);
    assert.ok(!wire.includes(secret.slice(0, 5)), "not even a part of it (a cut summary)");
  }
  const completes = client.named("tool.complete").map((event) => event.params);
  const read = JSON.parse(String(completes.find((c) => c.name === "read_file")!.output));
  assert.equal(
    read.content,
    `dotenv=\${HERALD_PREVIEW_TOKEN}\nprocess=\${GITHUB_TOKEN}\nconfig=…3210\n`,
  );
  const cat = JSON.parse(String(completes.find((c) => c.name === "terminal")!.output));
  assert.match(cat.stdout, /dotenv=\$\{HERALD_PREVIEW_TOKEN\}/);
  const writes = completes.filter((c) => c.name === "write_file");
  const write = writes.find((c) => c.ok)!;
  assert.equal(write.before, read.content, "the old text is hidden the same way");
  const written = client.named("tool.start").find((s) =>
    s.params.name === "write_file" && JSON.parse(String(s.params.arguments)).path === "settings.txt"
  )!;
  assert.equal(
    JSON.parse(String(written.params.arguments)).content,
    "dotenv=${HERALD_PREVIEW_TOKEN}\nmore\n",
    "so the diff compares like with like",
  );
  const refused = writes.find((c) => !c.ok)!;
  assert.equal(refused.ok, false, "the guard refused the .env write");
  assert.ok(!("before" in refused), "and nothing of it was read");
  assert.equal(await Deno.readTextFile(join(work.path, ".env")), `LOCAL_KEY=${DOTENV_SECRET}\n`);

  // Display only: the model and the file keep the real values.
  assert.ok(model.requests.some((request) => request.rawBody.includes(PROCESS_SECRET)));
  assert.equal(
    await Deno.readTextFile(join(work.path, "settings.txt")),
    `dotenv=${DOTENV_SECRET}\nmore\n`,
  );
});

Deno.test("the secret redactor keeps JSON whole and leaves short and plain values alone", () => {
  const secrets = new SecretRedactor({
    dotenv: new Map([["API_KEY", 'sk-"quoted"-0123456789'], ["LEVEL", "debug"]]),
    env: { HOME_TOKEN_PATH: "/home/me/token", SERVICE_PASSWORD: "hunter2-but-longer" },
  });
  const json = JSON.stringify({ stdout: 'k=sk-"quoted"-0123456789 pw=hunter2-but-longer debug' });
  assert.deepEqual(JSON.parse(secrets.json(json)), {
    stdout: "k=${API_KEY} pw=${SERVICE_PASSWORD} debug",
  });
  assert.equal(secrets.text("see /home/me/token"), "see /home/me/token");
  assert.equal(secrets.json('{"a": 1}'), '{"a": 1}', "unchanged text comes back as it was");
  assert.equal(
    secrets.text("git clone https://me:ghp_abc@github.com/x.git"),
    "git clone https://me:…@github.com/x.git",
  );
});

Deno.test("a long result keeps the start and end of its text fields and stays JSON", () => {
  const stdout = `${"a".repeat(30_000)}THE-END`;
  const content = JSON.stringify({ exit_code: 0, stdout: `START${stdout}`, stderr: "" });
  const view = toolOutputView(content, 1_000);
  assert.equal(view.output_truncated, true);
  assert.ok(view.output.length <= 1_000);
  const parsed = JSON.parse(view.output);
  assert.equal(parsed.exit_code, 0);
  assert.match(parsed.stdout, /^START/);
  assert.match(parsed.stdout, /THE-END$/);
  assert.match(parsed.stdout, /characters left out/);

  const plain = toolOutputView("x".repeat(2_000), 1_000);
  assert.deepEqual(plain, { output: "x".repeat(1_000), output_truncated: true });
  assert.deepEqual(toolOutputView('{"ok":true}'), {
    output: '{"ok":true}',
    output_truncated: false,
  });
});

/**
 * Concurrent dashboard saves against a real listening server: every save
 * that answers 2xx is in the files afterwards (`.env`, config.yaml), and a
 * save that cannot be merged answers 409 instead of dropping another one.
 */

import assert from "node:assert/strict";
import {
  createProfile,
  type ProfilePaths,
  profilePaths,
  readEnvFile,
} from "../../adapters/home/mod.ts";
import { tempDir } from "../_helpers.ts";
import { TEST_TOKEN } from "./_app.ts";
import { type LiveServer, startLiveServer } from "./_live.ts";

/** Trials of the two-simultaneous-saves case (the issue reproduced it in 98 of 100). */
const ENV_PAIR_TRIALS = 100;
const PARALLEL = 50;
/**
 * Rounds of the 50-parallel cases, each from fresh files: 100 in a row
 * (about 40 s on two cores), or `HERALD_TEST_DASHBOARD_TRIALS`.
 */
const PARALLEL_TRIALS = Number(Deno.env.get("HERALD_TEST_DASHBOARD_TRIALS") ?? "100");

interface Answer {
  status: number;
  body: Record<string, unknown> & { error?: { code: string; message: string } };
}

async function send(
  server: LiveServer,
  method: string,
  path: string,
  body?: unknown,
): Promise<Answer> {
  const response = await fetch(`http://127.0.0.1:${server.port}${path}`, {
    method,
    headers: { "content-type": "application/json", "X-Herald-Session-Token": TEST_TOKEN },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  return { status: response.status, body: text === "" ? {} : JSON.parse(text) };
}

function assertAll(answers: Answer[], status: number, what: string): void {
  for (const [index, answer] of answers.entries()) {
    assert.equal(answer.status, status, `${what} #${index}: ${JSON.stringify(answer.body)}`);
  }
}

async function parseEnvFile(path: string): Promise<Map<string, string>> {
  return (await readEnvFile(path)).values;
}

async function freshHome(root: string): Promise<ProfilePaths> {
  await createProfile(root, "work", { bundledSkills: false });
  return profilePaths(root, "default");
}

Deno.test(`50 parallel PUT /api/env with distinct keys keep every key, ${PARALLEL_TRIALS} rounds`, async () => {
  await using home = await tempDir();
  const main = await freshHome(home.path);
  await using server = startLiveServer(home.path);
  for (let trial = 0; trial < PARALLEL_TRIALS; trial++) {
    await Deno.remove(main.env).catch(() => {}); // each round starts from an empty .env
    const name = (i: number) => `PARALLEL_${trial}_${i}`;
    const answers = await Promise.all(
      Array.from(
        { length: PARALLEL },
        (_, i) => send(server, "PUT", "/api/env", { key: name(i), value: `value-${i}` }),
      ),
    );
    assertAll(answers, 200, `round ${trial}: PUT /api/env`);
    const stored = await parseEnvFile(main.env);
    for (let i = 0; i < PARALLEL; i++) {
      assert.equal(stored.get(name(i)), `value-${i}`, `round ${trial} kept ${name(i)}`);
    }
    assert.equal(stored.size, PARALLEL);
  }
  assert.equal((await Deno.stat(main.env)).mode! & 0o777, 0o600);
});

Deno.test(`two simultaneous PUT /api/env with different keys keep both, ${ENV_PAIR_TRIALS} trials in a row`, async () => {
  await using home = await tempDir();
  const main = await freshHome(home.path);
  await using server = startLiveServer(home.path);
  for (let trial = 0; trial < ENV_PAIR_TRIALS; trial++) {
    const [a, b] = await Promise.all([
      send(server, "PUT", "/api/env", { key: `TRIAL_${trial}_A`, value: "a" }),
      send(server, "PUT", "/api/env", { key: `TRIAL_${trial}_B`, value: "b" }),
    ]);
    assertAll([a, b], 200, `trial ${trial}`);
    const stored = await parseEnvFile(main.env);
    assert.equal(stored.get(`TRIAL_${trial}_A`), "a", `trial ${trial} kept A`);
    assert.equal(stored.get(`TRIAL_${trial}_B`), "b", `trial ${trial} kept B`);
  }
  assert.equal((await parseEnvFile(main.env)).size, 2 * ENV_PAIR_TRIALS);
});

Deno.test(`50 parallel PUT /api/config with set keep every key, secrets included, ${PARALLEL_TRIALS} rounds`, async () => {
  await using home = await tempDir();
  const main = await freshHome(home.path);
  await using server = startLiveServer(home.path);
  for (let trial = 0; trial < PARALLEL_TRIALS; trial++) {
    // Each round starts from the same small files.
    await Deno.writeTextFile(main.config, "# kept comment\nagent:\n  max_turns: 12\n");
    await Deno.remove(main.env).catch(() => {});
    // Odd slots set a key (a secret: .env then config.yaml), even slots a model name.
    const slot = (i: number) => `r${trial}s${i}`;
    const key = (i: number) =>
      i % 2 === 0 ? `auxiliary.${slot(i)}.model` : `auxiliary.${slot(i)}.api_key`;
    const value = (i: number) => `value-${trial}-${i}-0123456789`;
    const answers = await Promise.all(
      Array.from(
        { length: PARALLEL },
        (_, i) => send(server, "PUT", "/api/config", { set: { [key(i)]: value(i) } }),
      ),
    );
    assertAll(answers, 200, `round ${trial}: PUT /api/config`);
    const config = (await send(server, "GET", "/api/config")).body.config as {
      auxiliary: Record<string, { model?: string; api_key?: string }>;
    };
    const stored = await parseEnvFile(main.env);
    for (let i = 0; i < PARALLEL; i++) {
      const kept = config.auxiliary[slot(i)];
      assert.ok(kept, `round ${trial}: ${slot(i)} kept`);
      const envName = `HERALD_AUXILIARY_${slot(i).toUpperCase()}_API_KEY`;
      if (i % 2 === 0) {
        assert.equal(kept.model, value(i));
      } else {
        assert.equal(kept.api_key, `\${${envName}}`);
        assert.equal(stored.get(envName), value(i));
      }
    }
  }
  const text = await Deno.readTextFile(main.config);
  assert.match(text, /# kept comment/);
  assert.match(text, /max_turns: 12/);
});

Deno.test("50 parallel MCP adds keep every server; the same name added at once is one 201 and 409s", async () => {
  await using home = await tempDir();
  await freshHome(home.path);
  await using server = startLiveServer(home.path);
  const answers = await Promise.all(
    Array.from({ length: PARALLEL }, (_, i) =>
      send(server, "POST", "/api/mcp/servers", {
        name: `server${i}`,
        command: "true",
        env: { [`SERVER${i}_API_KEY`]: `secret-${i}-0123456789` },
      })),
  );
  assertAll(answers, 201, "POST /api/mcp/servers");
  const listed = (await send(server, "GET", "/api/mcp/servers")).body.servers as {
    name: string;
  }[];
  assert.deepEqual(
    listed.map((s) => s.name).sort(),
    Array.from({ length: PARALLEL }, (_, i) => `server${i}`).sort(),
  );
  const stored = await parseEnvFile(profilePaths(home.path, "default").env);
  for (let i = 0; i < PARALLEL; i++) {
    assert.equal(stored.get(`SERVER${i}_API_KEY`), `secret-${i}-0123456789`);
  }

  const same = await Promise.all(
    Array.from(
      { length: 10 },
      (_, i) => send(server, "POST", "/api/mcp/servers", { name: "twin", command: `echo${i}` }),
    ),
  );
  const created = same.filter((answer) => answer.status === 201);
  const refused = same.filter((answer) => answer.status === 409);
  assert.equal(created.length, 1, JSON.stringify(same.map((a) => a.status)));
  assert.equal(refused.length, 9);
  for (const answer of refused) assert.equal(answer.body.error?.code, "mcp_server_exists");
  const twin = ((await send(server, "GET", "/api/mcp/servers")).body.servers as {
    name: string;
    command: string;
  }[]).filter((s) => s.name === "twin");
  assert.equal(twin.length, 1);
  assert.equal(
    twin[0].command,
    (created[0].body.server as { command: string }).command,
    "the stored server is the one that was answered 201",
  );
});

Deno.test("env, config and MCP saves racing each other keep every change", async () => {
  await using home = await tempDir();
  const main = await freshHome(home.path);
  await using server = startLiveServer(home.path);
  const saves = Array.from({ length: 60 }, (_, i) => {
    if (i % 3 === 0) return send(server, "PUT", "/api/env", { key: `MIXED_${i}`, value: `${i}` });
    if (i % 3 === 1) {
      return send(server, "PUT", "/api/config", {
        set: { [`auxiliary.mixed${i}.api_key`]: `mixed-secret-${i}` },
      });
    }
    return send(server, "POST", "/api/mcp/servers", { name: `mixed${i}`, command: "true" });
  });
  const answers = await Promise.all(saves);
  for (const [i, answer] of answers.entries()) {
    assert.ok(answer.status === 200 || answer.status === 201, `save ${i}: ${answer.status}`);
  }
  const stored = await parseEnvFile(main.env);
  const config = (await send(server, "GET", "/api/config")).body.config as {
    auxiliary: Record<string, unknown>;
    mcp_servers: Record<string, unknown>;
  };
  for (let i = 0; i < 60; i++) {
    if (i % 3 === 0) assert.equal(stored.get(`MIXED_${i}`), `${i}`);
    if (i % 3 === 1) {
      assert.equal(stored.get(`HERALD_AUXILIARY_MIXED${i}_API_KEY`), `mixed-secret-${i}`);
      assert.ok(config.auxiliary[`mixed${i}`], `auxiliary.mixed${i} kept`);
    }
    if (i % 3 === 2) assert.ok(config.mcp_servers[`mixed${i}`], `mcp server mixed${i} kept`);
  }
});

Deno.test("two raw saves from the same version at once: one is written, the other is 409", async () => {
  await using home = await tempDir();
  const main = await freshHome(home.path);
  await Deno.writeTextFile(main.config, "agent:\n  max_turns: 10\n");
  await using server = startLiveServer(home.path);
  const { version } = (await send(server, "GET", "/api/config/raw")).body;
  const answers = await Promise.all([11, 12].map((turns) =>
    send(server, "PUT", "/api/config/raw", {
      text: `agent:\n  max_turns: ${turns}\n`,
      version,
    })
  ));
  const statuses = answers.map((answer) => answer.status).sort();
  assert.deepEqual(statuses, [200, 409]);
  const winner = answers.findIndex((answer) => answer.status === 200);
  const loser = answers[1 - winner];
  assert.equal(loser.body.error?.code, "config_changed");
  assert.equal(
    await Deno.readTextFile(main.config),
    `agent:\n  max_turns: ${[11, 12][winner]}\n`,
  );
  const reloaded = await send(server, "GET", "/api/config/raw");
  assert.equal(reloaded.body.version, answers[winner].body.version);
});

Deno.test("the same new skill bundle saved at once is one 201 and 409s, never a silent replace", async () => {
  await using home = await tempDir();
  await freshHome(home.path);
  await using server = startLiveServer(home.path);
  const answers = await Promise.all(
    Array.from({ length: 10 }, (_, i) =>
      send(server, "POST", "/api/bundles", {
        name: "release",
        skills: [`skill-${i}`],
        description: `version ${i}`,
      })),
  );
  const created = answers.filter((answer) => answer.status === 201);
  const refused = answers.filter((answer) => answer.status === 409);
  assert.equal(created.length, 1, JSON.stringify(answers.map((a) => a.status)));
  assert.equal(refused.length, 9);
  const winner = answers.indexOf(created[0]);
  const file = await Deno.readTextFile(`${home.path}/skill-bundles/release.yaml`);
  assert.match(file, new RegExp(`skill-${winner}\\b`), "the stored bundle is the one answered 201");
});

/**
 * Real `herald` processes changing one profile at once, alone and while the
 * dashboard saves too: every change that reported success is in the files.
 *
 * The 20-process check runs `HERALD_TEST_CLI_TRIALS` times (default 3; each
 * trial starts 20 `deno` processes, a few seconds on two cores).
 */

import assert from "node:assert/strict";
import { loadConfigFile, profilePaths, readEnvFile } from "../../adapters/home/mod.ts";
import { tempDir } from "../_helpers.ts";
import { runHerald } from "../e2e/_herald.ts";
import { TEST_TOKEN } from "../server/_app.ts";
import { startLiveServer } from "../server/_live.ts";

const PROCESSES = 20;
const TRIALS = Number(Deno.env.get("HERALD_TEST_CLI_TRIALS") ?? "3");

/** Slot `i` of a trial: even slots set a model name, odd ones a key (.env, then config.yaml). */
function setting(trial: number, i: number): { key: string; value: string } {
  const slot = `t${trial}s${i}`;
  return i % 2 === 0
    ? { key: `auxiliary.${slot}.model`, value: `model-${slot}` }
    : { key: `auxiliary.${slot}.api_key`, value: `sk-${slot}-0123456789` };
}

function envName(trial: number, i: number): string {
  return `HERALD_AUXILIARY_T${trial}S${i}_API_KEY`;
}

async function assertKept(home: string, trial: number, count: number): Promise<void> {
  const paths = profilePaths(home, "default");
  const auxiliary = (await loadConfigFile(paths.config)).config.auxiliary;
  const env = (await readEnvFile(paths.env)).values;
  for (let i = 0; i < count; i++) {
    const slot = auxiliary[`t${trial}s${i}`];
    assert.ok(slot, `trial ${trial}: auxiliary.t${trial}s${i} kept`);
    if (i % 2 === 0) {
      assert.equal(slot.model, `model-t${trial}s${i}`);
    } else {
      assert.equal(slot.api_key, `\${${envName(trial, i)}}`);
      assert.equal(env.get(envName(trial, i)), setting(trial, i).value, `trial ${trial}: .env`);
    }
  }
}

Deno.test(`${PROCESSES} parallel \`herald config set\` processes with distinct keys keep every key (${TRIALS} trials)`, async () => {
  await using home = await tempDir();
  await Deno.writeTextFile(`${home.path}/config.yaml`, "# mine\nagent:\n  max_turns: 7\n");
  for (let trial = 0; trial < TRIALS; trial++) {
    const runs = await Promise.all(Array.from({ length: PROCESSES }, (_, i) => {
      const { key, value } = setting(trial, i);
      return runHerald({ home: home.path, args: ["config", "set", key, value, "--json"] });
    }));
    for (const [i, run] of runs.entries()) {
      assert.equal(run.code, 0, `trial ${trial}, process ${i}: ${run.stderr}`);
    }
    await assertKept(home.path, trial, PROCESSES);
  }
  const text = await Deno.readTextFile(`${home.path}/config.yaml`);
  assert.match(text, /# mine/);
  assert.match(text, /max_turns: 7/);
});

Deno.test("the CLI and the dashboard saving at once keep each other's changes", async () => {
  await using home = await tempDir();
  await using server = startLiveServer(home.path);
  const put = async (path: string, body: unknown, method = "PUT") => {
    const response = await fetch(`http://127.0.0.1:${server.port}${path}`, {
      method,
      headers: { "content-type": "application/json", "X-Herald-Session-Token": TEST_TOKEN },
      body: JSON.stringify(body),
    });
    return { status: response.status, text: await response.text() };
  };
  const cli = Array.from(
    { length: 8 },
    (_, i) =>
      i % 2 === 0
        ? runHerald({ home: home.path, args: ["config", "set", `auxiliary.cli${i}.model`, "m"] })
        : runHerald({
          home: home.path,
          args: ["mcp", "add", `cli${i}`, "--command", "true", "--env", `CLI${i}_TOKEN=tok-${i}`],
        }),
  );
  const dashboard = Array.from(
    { length: 30 },
    (_, i) =>
      i % 3 === 0
        ? put("/api/env", { key: `WEB_${i}`, value: `web-${i}` })
        : i % 3 === 1
        ? put("/api/config", { set: { [`auxiliary.web${i}.api_key`]: `web-secret-${i}` } })
        : put("/api/mcp/servers", { name: `web${i}`, command: "true" }, "POST"),
  );
  const [cliRuns, webAnswers] = await Promise.all([Promise.all(cli), Promise.all(dashboard)]);
  for (const [i, run] of cliRuns.entries()) assert.equal(run.code, 0, `cli ${i}: ${run.stderr}`);
  for (const [i, answer] of webAnswers.entries()) {
    assert.ok(answer.status === 200 || answer.status === 201, `web ${i}: ${answer.text}`);
  }
  const paths = profilePaths(home.path, "default");
  const config = (await loadConfigFile(paths.config)).config;
  const env = (await readEnvFile(paths.env)).values;
  for (let i = 0; i < 8; i++) {
    if (i % 2 === 0) assert.equal(config.auxiliary[`cli${i}`]?.model, "m");
    else {
      assert.ok(config.mcp_servers[`cli${i}`], `mcp server cli${i} kept`);
      assert.equal(env.get(`CLI${i}_TOKEN`), `tok-${i}`);
    }
  }
  for (let i = 0; i < 30; i++) {
    if (i % 3 === 0) assert.equal(env.get(`WEB_${i}`), `web-${i}`);
    if (i % 3 === 1) {
      assert.ok(config.auxiliary[`web${i}`], `auxiliary.web${i} kept`);
      assert.equal(env.get(`HERALD_AUXILIARY_WEB${i}_API_KEY`), `web-secret-${i}`);
    }
    if (i % 3 === 2) assert.ok(config.mcp_servers[`web${i}`], `mcp server web${i} kept`);
  }
});

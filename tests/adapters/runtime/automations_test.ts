/**
 * The job executor as `herald cron run`, a tick and the gateway run it
 * (`createJobExecutor`), for real: a job's script is a real `sh -c` with
 * the profile's time limit (a script past it is stopped with its whole
 * process tree), a prompt job is a model turn against the scripted model
 * server, and delivery goes through the send use case to the fake Telegram
 * Bot API with the job's header.
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { profilePaths } from "../../../adapters/home/mod.ts";
import { createJobExecutor } from "../../../adapters/runtime/automations.ts";
import { openCronFiles } from "../../../adapters/cron/outputs.ts";
import { type JobRecord, type NewJob, newJob } from "../../../core/schedules/mod.ts";
import { configureModel } from "../../e2e/_herald.ts";
import { processRunning, tempDir } from "../../_helpers.ts";
import { startModelServer } from "../../fakes/model_server.ts";
import { FAKE_TELEGRAM_TOKEN, startFakeTelegram } from "../../fakes/telegram_api.ts";

const CHAT = 4242;

let ids = 0;
function job(input: Partial<NewJob>): JobRecord {
  return newJob({ schedule: "every 1h", ...input }, {
    now: Date.now(),
    timeZone: "UTC",
    randomId: () => `exec${String(++ids).padStart(4, "0")}`,
  });
}

/** A profile home whose model is `modelUrl` and whose scripts may run `scriptTimeout` seconds. */
async function profileHome(root: string, modelUrl = "http://127.0.0.1:9/v1", scriptTimeout = 1) {
  const paths = profilePaths(root, "default");
  await configureModel(paths.home, modelUrl, `cron:\n  script_timeout: ${scriptTimeout}\n`);
  return paths;
}

/** What the run saved, by the report's file. */
async function savedOutput(root: string, jobId: string, file: string | null) {
  assert.ok(file !== null, "the run saved its output");
  const name = file.slice(file.lastIndexOf("/") + 1);
  return await openCronFiles(profilePaths(root, "default").cron).outputs.read(jobId, name);
}

const ENV = { PATH: Deno.env.get("PATH") ?? "/usr/bin:/bin", LANG: "C.UTF-8" };

Deno.test("a script-only job runs its script for real and its output is the run's", async () => {
  await using root = await tempDir();
  const paths = await profileHome(root.path);
  const execute = createJobExecutor(paths, { env: ENV });
  const echo = job({ script: "echo hi; echo there >&2", scriptOnly: true });
  const report = await execute(echo, Date.now());
  assert.deepEqual([report.status, report.delivered, report.error], ["ok", "local", null]);
  assert.equal((await savedOutput(root.path, echo.id, report.file)).output, "hi\nthere");
});

Deno.test("a script that runs past cron.script_timeout is stopped with its child", async () => {
  await using root = await tempDir();
  const paths = await profileHome(root.path);
  const pidFile = join(root.path, "sleep.pid");
  const execute = createJobExecutor(paths, { env: ENV });
  const slow = job({
    script: `sleep 30 & echo $! > '${pidFile}'; echo started; wait`,
    scriptOnly: true,
  });
  const report = await execute(slow, Date.now());
  assert.equal(report.status, "error");
  assert.equal(
    report.error,
    "the script failed: it was stopped: it ran longer than 1 s (cron.script_timeout)",
  );
  const childPid = Number((await Deno.readTextFile(pidFile)).trim());
  assert.ok(childPid > 0);
  assert.equal(await processRunning(childPid), false, "the script's child sleep is gone");
  const saved = await savedOutput(root.path, slow.id, report.file);
  assert.match(saved.output, /^The run failed: the script failed: it was stopped/);
  assert.match(saved.output, /started/, "what it printed before is kept");
});

Deno.test("a script that exits non-zero fails the run with its code and output", async () => {
  await using root = await tempDir();
  const paths = await profileHome(root.path);
  const execute = createJobExecutor(paths, { env: ENV });
  const failing = job({ script: "echo 'no feed' >&2; exit 3", prompt: "Summarise" });
  const report = await execute(failing, Date.now());
  assert.equal(report.status, "error");
  assert.equal(report.error, "the script failed: it exited with code 3");
  const saved = await savedOutput(root.path, failing.id, report.file);
  assert.match(saved.output, /no feed/);
});

Deno.test("a prompt job is a model turn whose request carries the prompt, its answer saved", async () => {
  await using root = await tempDir();
  await using model = await startModelServer({ replies: [{ text: "Nothing new today." }] });
  const paths = await profileHome(root.path, model.openaiBaseUrl);
  const execute = createJobExecutor(paths, { env: ENV });
  const digest = job({ prompt: "Summarise the news about Deno", script: "echo 'headline: 2.9.6'" });
  const report = await execute(digest, Date.now());
  assert.equal(report.status, "ok", report.error ?? "");
  assert.equal(model.requests.length, 1);
  const request = JSON.stringify(model.requests[0].body);
  assert.ok(request.includes("Summarise the news about Deno"), request);
  assert.ok(request.includes("headline: 2.9.6"), "the script's output went along");
  assert.equal((await savedOutput(root.path, digest.id, report.file)).output, "Nothing new today.");
});

Deno.test("a job delivers to Telegram with its header; a chat that refuses makes the run an error", async () => {
  await using root = await tempDir();
  await using model = await startModelServer({
    replies: [{ text: "Rain at **noon**." }, { text: "Again." }],
  });
  await using telegram = await startFakeTelegram();
  const bot = telegram.bot();
  bot.knowChat(CHAT);
  const paths = await profileHome(root.path, model.openaiBaseUrl);
  const env = {
    ...ENV,
    TELEGRAM_BOT_TOKEN: FAKE_TELEGRAM_TOKEN,
    TELEGRAM_API_BASE: telegram.baseUrl,
  };
  const execute = createJobExecutor(paths, { env });
  const weather = job({ name: "Weather", prompt: "Weather today?", deliver: `telegram:${CHAT}` });
  const report = await execute(weather, Date.now());
  assert.deepEqual(
    [report.status, report.delivered],
    ["ok", `telegram:${CHAT}`],
    report.error ?? "",
  );
  const sent = bot.sent.filter((message) => message.chatId === CHAT);
  assert.equal(sent.length, 1);
  assert.ok(sent[0].text!.includes("Weather"), sent[0].text);
  assert.ok(sent[0].text!.includes(weather.id), "the header names the job");
  assert.ok(sent[0].text!.includes("Rain at"), sent[0].text);
  assert.ok(!sent[0].text!.includes(FAKE_TELEGRAM_TOKEN));

  bot.block(CHAT);
  const refused = await execute(weather, Date.now());
  assert.equal(refused.status, "error");
  assert.match(refused.error!, /^delivery to telegram:4242 failed: .*blocked by the user/);
  assert.equal((await savedOutput(root.path, weather.id, refused.file)).output, "Again.");
});

Deno.test("a dangerous script is refused at run time unless the profile allows its rule", async () => {
  await using root = await tempDir();
  const paths = await profileHome(root.path);
  const target = `${root.path}/keep`;
  await Deno.mkdir(`${target}/inside`, { recursive: true });
  const execute = createJobExecutor(paths, { env: ENV });
  const wipe = job({ script: `rm -r ${target}`, scriptOnly: true });
  const refused = await execute(wipe, Date.now());
  assert.equal(refused.status, "error");
  assert.match(refused.error ?? "", /nobody can approve a scheduled run/);
  assert.match(refused.error ?? "", /herald approvals allow /);
  assert.ok((await Deno.stat(`${target}/inside`)).isDirectory, "nothing was removed");

  const rule = /herald approvals allow ([^`]+)`/.exec(refused.error ?? "")?.[1];
  assert.ok(rule);
  await Deno.writeTextFile(
    paths.config,
    (await Deno.readTextFile(paths.config)) + `approvals:\n  allow:\n    - "${rule}"\n`,
  );
  const allowed = await execute(wipe, Date.now());
  assert.equal(allowed.status, "ok", allowed.error ?? "");
  await assert.rejects(Deno.stat(target), Deno.errors.NotFound);
});

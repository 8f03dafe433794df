/**
 * One run of a job through `executeJob` with in-memory ports: the script's
 * output feeds the prompt (or is the output of a script-only job), a failed
 * script is an error that is delivered, a `[SILENT]` answer is saved and
 * not delivered, the header names the job unless wrapping is off, a local
 * job only saves, a failed delivery makes the run an error with the output
 * still saved, and skills lead the model's turn as `/skill` tokens.
 */

import assert from "node:assert/strict";
import {
  executeJob,
  type RunPorts,
  type ScriptResult,
  SILENT_TOKEN,
} from "../../../core/schedules/run.ts";
import {
  type JobOutputs,
  type JobRecord,
  type JobRunEntry,
  type NewJob,
  newJob,
  type SavedRun,
} from "../../../core/schedules/mod.ts";

const NOW = Date.UTC(2026, 10, 24, 8, 0);
const PLANNED = NOW - 1_000;

/** Saved runs kept in memory (the file store is tested in tests/adapters/cron). */
class MemoryOutputs implements JobOutputs {
  readonly runs: SavedRun[] = [];
  failing = false;
  save(run: SavedRun) {
    if (this.failing) return Promise.reject(new Error("the disk is full"));
    this.runs.push(structuredClone(run));
    return Promise.resolve(`/cron/output/${run.job_id}/${this.runs.length}.md`);
  }
  list(jobId: string): Promise<JobRunEntry[]> {
    return Promise.resolve(
      this.runs.filter((run) => run.job_id === jobId).map((run, index) => ({
        job_id: jobId,
        file: `${index + 1}.md`,
        at: run.at,
        planned_at: run.planned_at,
        status: run.status,
        delivered: run.delivered,
        error: run.error,
        bytes: run.output.length,
      })),
    );
  }
  read(jobId: string, file: string) {
    const run = this.runs.filter((each) => each.job_id === jobId)[Number.parseInt(file) - 1];
    return run ? Promise.resolve(run) : Promise.reject(new Error(`no run ${file}`));
  }
  removeAll(jobId: string) {
    this.runs.splice(0, this.runs.length, ...this.runs.filter((run) => run.job_id !== jobId));
    return Promise.resolve();
  }
}

/** Ports that record every call; each part answers as the test scripts it. */
function ports(options: {
  script?: ScriptResult | Error;
  answer?: string | Error;
  deliveryFails?: string;
  wrapResponse?: boolean;
} = {}) {
  const calls = {
    scripts: [] as string[],
    asked: [] as { job: string; message: string }[],
    delivered: [] as { target: string; text: string }[],
  };
  const outputs = new MemoryOutputs();
  const runPorts: RunPorts = {
    now: () => NOW,
    runScript(script) {
      calls.scripts.push(script);
      const result = options.script ?? { ok: true, output: "" };
      return result instanceof Error ? Promise.reject(result) : Promise.resolve(result);
    },
    ask(job, message) {
      calls.asked.push({ job: job.id, message });
      const answer = options.answer ?? "The answer";
      return answer instanceof Error ? Promise.reject(answer) : Promise.resolve(answer);
    },
    deliver(target, text) {
      if (options.deliveryFails !== undefined) {
        return Promise.reject(new Error(options.deliveryFails));
      }
      calls.delivered.push({ target, text });
      return Promise.resolve();
    },
    outputs,
    wrapResponse: options.wrapResponse ?? true,
  };
  return { calls, outputs, runPorts };
}

function job(input: Partial<NewJob> = {}): JobRecord {
  return newJob({ schedule: "every 1h", deliver: "telegram:-100123", ...input }, {
    now: NOW - 60 * 60_000,
    timeZone: "UTC",
    randomId: () => "run00001",
  });
}

Deno.test("the script's output feeds the prompt and the model's answer is delivered", async () => {
  const { calls, outputs, runPorts } = ports({
    script: { ok: true, output: "3 new posts" },
    answer: "Three new posts today.",
  });
  const watcher = job({ name: "Feed watch", prompt: "Summarise what is new", script: "fetch.sh" });
  const report = await executeJob(watcher, PLANNED, runPorts);
  assert.deepEqual(calls.scripts, ["fetch.sh"]);
  assert.equal(calls.asked.length, 1);
  const message = calls.asked[0].message;
  assert.ok(message.includes("Summarise what is new"), message);
  assert.ok(message.includes("3 new posts"), message);
  assert.ok(message.includes(SILENT_TOKEN), "the model is told how to stay silent");
  assert.deepEqual(report, {
    job_id: watcher.id,
    status: "ok",
    delivered: "telegram:-100123",
    error: null,
    file: `/cron/output/${watcher.id}/1.md`,
  });
  assert.equal(calls.delivered.length, 1);
  assert.ok(calls.delivered[0].text.endsWith("Three new posts today."));
  assert.deepEqual(outputs.runs, [{
    job_id: watcher.id,
    at: NOW,
    planned_at: PLANNED,
    status: "ok",
    delivered: "telegram:-100123",
    error: null,
    output: "Three new posts today.",
  }]);
});

Deno.test("a script-only job's output is the script's, with no model turn", async () => {
  const { calls, outputs, runPorts } = ports({ script: { ok: true, output: "disk 91% full" } });
  const check = job({ name: "Disk check", script: "df -h", scriptOnly: true });
  const report = await executeJob(check, PLANNED, runPorts);
  assert.equal(report.status, "ok");
  assert.deepEqual(calls.asked, [], "no model turn");
  assert.equal(outputs.runs[0].output, "disk 91% full");
  assert.ok(calls.delivered[0].text.endsWith("disk 91% full"));
});

Deno.test("a failing script is an error that is delivered, and the model is not asked", async () => {
  const { calls, outputs, runPorts } = ports({
    script: {
      ok: false,
      output: "curl: (6) could not resolve host",
      error: "it exited with code 6",
    },
  });
  const watcher = job({ name: "Feed watch", prompt: "Summarise", script: "curl feed" });
  const report = await executeJob(watcher, PLANNED, runPorts);
  assert.equal(report.status, "error");
  assert.equal(report.error, "the script failed: it exited with code 6");
  assert.equal(report.delivered, "telegram:-100123", "a failed run is never silent");
  assert.deepEqual(calls.asked, []);
  const text = calls.delivered[0].text;
  assert.ok(text.includes("The run failed: the script failed: it exited with code 6."), text);
  assert.ok(text.includes("could not resolve host"), "what the script printed goes along");
  assert.equal(outputs.runs[0].status, "error");

  // A script that cannot even start, and a model turn that fails, are errors too.
  const unstartable = ports({ script: new Error("sh not found") });
  const broken = await executeJob(watcher, PLANNED, unstartable.runPorts);
  assert.equal(broken.error, "the script could not run: sh not found");
  const modelDown = ports({ answer: new Error("the provider answered 503") });
  const failed = await executeJob(job({ prompt: "Brief me" }), PLANNED, modelDown.runPorts);
  assert.deepEqual([failed.status, failed.error], [
    "error",
    "the model turn failed: the provider answered 503",
  ]);
  assert.equal(modelDown.calls.delivered.length, 1);
});

Deno.test("a [SILENT] answer is saved but not delivered", async () => {
  for (const answer of [SILENT_TOKEN, "  [silent] nothing new"]) {
    const { calls, outputs, runPorts } = ports({ answer });
    const report = await executeJob(job({ prompt: "Anything new?" }), PLANNED, runPorts);
    assert.deepEqual([report.status, report.delivered], ["silent", "not delivered (silent)"]);
    assert.deepEqual(calls.delivered, []);
    assert.deepEqual([outputs.runs[0].status, outputs.runs[0].output], ["silent", answer]);
  }
  // A script-only job that prints the token stays silent too.
  const { calls, runPorts } = ports({ script: { ok: true, output: "[SILENT]" } });
  const quiet = job({ script: "check.sh", scriptOnly: true });
  assert.equal((await executeJob(quiet, PLANNED, runPorts)).status, "silent");
  assert.deepEqual(calls.delivered, []);
});

Deno.test("delivered output carries a header naming the job unless wrapping is off", async () => {
  const briefing = job({ name: "Morning briefing", prompt: "Brief me" });
  const wrapped = ports({ answer: "Sunny." });
  await executeJob(briefing, PLANNED, wrapped.runPorts);
  const text = wrapped.calls.delivered[0].text;
  assert.ok(text.startsWith("⏰ **Morning briefing**"), text);
  assert.ok(text.includes(briefing.id));
  assert.ok(text.endsWith("\n\nSunny."));
  assert.equal(wrapped.outputs.runs[0].output, "Sunny.", "the saved output has no header");

  const bare = ports({ answer: "Sunny.", wrapResponse: false });
  await executeJob(briefing, PLANNED, bare.runPorts);
  assert.equal(bare.calls.delivered[0].text, "Sunny.");
});

Deno.test("a local job only saves its output", async () => {
  const { calls, outputs, runPorts } = ports({ answer: "Kept here." });
  const report = await executeJob(job({ prompt: "Note", deliver: "local" }), PLANNED, runPorts);
  assert.deepEqual([report.status, report.delivered], ["ok", "local"]);
  assert.deepEqual(calls.delivered, []);
  assert.equal(outputs.runs[0].output, "Kept here.");
});

Deno.test("a failed delivery makes the run an error and the output is still saved", async () => {
  const { outputs, runPorts } = ports({
    answer: "The report.",
    deliveryFails: "Telegram answered 403: bot was blocked by the user",
  });
  const report = await executeJob(job({ prompt: "Report" }), PLANNED, runPorts);
  assert.equal(report.status, "error");
  assert.equal(
    report.error,
    "delivery to telegram:-100123 failed: Telegram answered 403: bot was blocked by the user",
  );
  assert.match(report.delivered, /^failed: Telegram answered 403/);
  assert.equal(outputs.runs.length, 1);
  assert.deepEqual([outputs.runs[0].status, outputs.runs[0].output], ["error", "The report."]);
  assert.ok(report.file !== null);
});

Deno.test("output that cannot be saved makes the run an error saying so", async () => {
  const { calls, outputs, runPorts } = ports({ answer: "Done." });
  outputs.failing = true;
  const report = await executeJob(job({ prompt: "Go" }), PLANNED, runPorts);
  assert.equal(report.status, "error");
  assert.equal(report.error, "its output could not be saved: the disk is full");
  assert.equal(report.file, null);
  assert.equal(calls.delivered.length, 1, "it was delivered before the save failed");
});

Deno.test("a job's skills lead the model's turn as /skill tokens", async () => {
  const { calls, runPorts } = ports();
  await executeJob(
    job({ prompt: "Do it", skills: ["inbox-triage", "weather"] }),
    PLANNED,
    runPorts,
  );
  assert.match(calls.asked[0].message, /^\/inbox-triage \/weather \[Scheduled run of the job /);
  // Skills alone: the model is told to follow them.
  const alone = ports();
  await executeJob(job({ skills: ["digest"] }), PLANNED, alone.runPorts);
  assert.match(alone.calls.asked[0].message, /^\/digest \[Scheduled run/);
  assert.ok(alone.calls.asked[0].message.endsWith("Follow the loaded skills."));
  // No skills: no leading slash.
  const none = ports();
  await executeJob(job({ prompt: "Plain" }), PLANNED, none.runPorts);
  assert.match(none.calls.asked[0].message, /^\[Scheduled run of the job /);
});

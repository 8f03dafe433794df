/**
 * `/cron` and `/blueprint` in a conversation over a profile's real agent
 * runtime (real files, the scripted model server over HTTP): jobs made from
 * a chat land in the profile's `cron/jobs.json` and deliver back to the chat
 * the conversation serves; `/blueprint <name>` shows its notice and runs its
 * fill request as the user's turn; a scheduled run's own runtime schedules
 * nothing.
 */

import assert from "node:assert/strict";
import { Conversation, type ConversationResult } from "../../../core/agent/conversation.ts";
import { createProfile, type ProfilePaths } from "../../../adapters/home/mod.ts";
import { openAgentRuntime } from "../../../adapters/runtime/agent_runtime.ts";
import { openCronFiles } from "../../../adapters/cron/outputs.ts";
import {
  type ModelServer,
  type ScriptedReply,
  startModelServer,
} from "../../fakes/model_server.ts";
import { configureModel } from "../../e2e/_herald.ts";
import { type TempDir, tempDir } from "../../_helpers.ts";

interface Setup extends AsyncDisposable {
  paths: ProfilePaths;
  model: ModelServer;
  open(options?: { origin?: string; automations?: false }): Promise<Conversation>;
}

async function setup(replies: ScriptedReply[] = []): Promise<Setup> {
  const root: TempDir = await tempDir();
  const model = await startModelServer({ replies });
  const paths = await createProfile(root.path, "work", { bundledSkills: false });
  await configureModel(paths.home, model.openaiBaseUrl);
  await Deno.writeTextFile(
    paths.config,
    (await Deno.readTextFile(paths.config)) + "timezone: Europe/Berlin\n",
  );
  return {
    paths,
    model,
    async open(options = {}) {
      const runtime = await openAgentRuntime(paths, {
        safeMode: false,
        source: "test",
        cwd: root.path,
        env: { PATH: Deno.env.get("PATH") },
        approvals: {},
        ...(options.automations === false ? { automations: false } : {}),
        onWarning: (file, message) => assert.fail(`${file}: ${message}`),
      });
      return await Conversation.open({
        runtime,
        ...(options.origin ? { origin: options.origin } : {}),
      });
    },
    async [Symbol.asyncDispose]() {
      await model.close();
      await root[Symbol.asyncDispose]();
    },
  };
}

function replyText(result: ConversationResult): string {
  assert.equal(result.kind, "reply", JSON.stringify(result));
  return (result as { text: string }).text;
}

Deno.test("/cron creates, lists and pauses the profile's jobs without reaching the model", async () => {
  await using s = await setup();
  const conversation = await s.open();
  const created = replyText(
    await conversation.input('/cron create "weekdays at 08:30" Summarise my inbox'),
  );
  const [job] = await openCronFiles(s.paths.cron).jobs.list();
  assert.ok(job, "the job is stored in cron/jobs.json");
  assert.match(created, new RegExp(job.id));
  assert.deepEqual(job.schedule, {
    kind: "cron",
    text: "weekdays at 08:30",
    expression: "30 8 * * 1-5",
  });
  assert.equal(job.time_zone, "Europe/Berlin", "the zone comes from config `timezone`");
  assert.equal(job.deliver, "local", "a terminal has no chat to deliver back to");
  assert.match(replyText(await conversation.input("/cron list")), /Summarise my inbox/);
  replyText(await conversation.input(`/cron pause ${job.id}`));
  assert.equal((await openCronFiles(s.paths.cron).jobs.list())[0].state, "paused");
  assert.equal(s.model.requests.length, 0, "slash commands never reach the model");
  await conversation.close();
});

Deno.test("a bad schedule in /cron answers with the schedule quoted and creates nothing", async () => {
  await using s = await setup();
  const conversation = await s.open();
  const text = replyText(await conversation.input('/cron create "every blue moon" hi'));
  assert.match(text, /"every blue moon"/);
  assert.deepEqual(await openCronFiles(s.paths.cron).jobs.list(), []);
  await conversation.close();
});

Deno.test("/bp with slot values creates the job at once; made in a chat, it delivers back there", async () => {
  await using s = await setup();
  const conversation = await s.open({ origin: "telegram:4242" });
  const text = replyText(await conversation.input("/bp morning-brief time=07:15"));
  const [job] = await openCronFiles(s.paths.cron).jobs.list();
  assert.ok(job, text);
  assert.equal(job.schedule.kind, "cron");
  assert.equal((job.schedule as { expression: string }).expression, "15 7 * * *");
  assert.equal(job.deliver, "origin");
  assert.equal(job.origin, "telegram:4242");
  assert.match(text, new RegExp(job.id));
  await conversation.close();
});

Deno.test("/blueprint <name> shows its notice, then its fill request runs as the user's turn", async () => {
  await using s = await setup([{ text: "What time would you like your briefing?" }]);
  const conversation = await s.open();
  const notices: string[] = [];
  const result = await conversation.input("/blueprint weekly review", {
    onNotice: (text) => notices.push(text),
  });
  assert.equal(result.kind, "turn");
  const turn = result as Extract<ConversationResult, { kind: "turn" }>;
  assert.equal(turn.result.response, "What time would you like your briefing?");
  assert.equal(notices.length, 1);
  assert.equal(turn.notice, notices[0]);
  const sent = JSON.stringify(s.model.requests[0].body);
  assert.match(sent, /weekly-review/, "the fill request names the blueprint's key");
  assert.match(sent, /one question at a time/i);
  assert.deepEqual(await openCronFiles(s.paths.cron).jobs.list(), [], "nothing is created yet");
  await conversation.close();
});

Deno.test("a runtime without automations (a scheduled run) answers /cron and /bp without scheduling", async () => {
  await using s = await setup();
  const conversation = await s.open({ automations: false });
  assert.match(replyText(await conversation.input("/cron list")), /cannot/i);
  assert.match(replyText(await conversation.input("/bp morning-brief time=07:00")), /cannot/i);
  assert.deepEqual(await openCronFiles(s.paths.cron).jobs.list(), []);
  await conversation.close();
});

Deno.test("the cronjob tool makes a job in a chat deliver back to it; a script it schedules needs approval", async () => {
  await using s = await setup([
    {
      toolCalls: [{
        name: "cronjob",
        arguments: { action: "create", schedule: "in 2h", prompt: "Remind me to call Ann" },
      }],
    },
    { text: "I will remind you in two hours." },
    {
      toolCalls: [{
        name: "cronjob",
        arguments: { action: "create", schedule: "every 1h", script: "curl -s example.com" },
      }],
    },
    { text: "That needs your approval." },
  ]);
  const conversation = await s.open({ origin: "telegram:4242" });
  await conversation.input("remind me to call Ann in two hours");
  const jobs = await openCronFiles(s.paths.cron).jobs.list();
  assert.equal(jobs.length, 1);
  assert.equal(jobs[0].deliver, "origin");
  assert.equal(jobs[0].origin, "telegram:4242");
  assert.equal(jobs[0].schedule.kind, "once");

  await conversation.input("and check example.com every hour with curl");
  assert.equal((await openCronFiles(s.paths.cron).jobs.list()).length, 1, "no approval, no job");
  const toolResult = JSON.stringify(s.model.requests[3].body);
  assert.match(toolResult, /not approved/);
  await conversation.close();
});

Deno.test("a script cannot be scheduled from a chat with /cron", async () => {
  await using s = await setup();
  const conversation = await s.open({ origin: "telegram:4242" });
  const text = replyText(
    await conversation.input('/cron create "every 1h" --script "echo hi" --script-only'),
  );
  assert.match(text, /Scripts cannot be scheduled from a chat/);
  assert.deepEqual(await openCronFiles(s.paths.cron).jobs.list(), []);
  await conversation.close();
});

/**
 * One run of a scheduled job, from its script to its delivery: the script
 * runs first (its output feeds the prompt, or is the output of a
 * script-only job), then the model answers the prompt with the job's
 * skills loaded, the output is saved under `cron/output/<job>/`, and it is
 * delivered unless the answer is the silence token or the job delivers
 * locally. A failed run is always delivered (a skipped run is never
 * silent), and a delivery that fails makes the run an error with the
 * output still saved. Pure: the script, the model, the files and the
 * platforms come in as {@link RunPorts}.
 *
 * @module
 */

import { errorText } from "../errors.ts";
import type { JobOutputs, RunReport, RunStatus } from "./automations.ts";
import type { JobRecord } from "./jobs.ts";

/** A final answer that starts with this is saved but not delivered. */
export const SILENT_TOKEN = "[SILENT]";

/** How a job's script ended. */
export interface ScriptResult {
  ok: boolean;
  /** What it printed (stdout, then stderr), capped by the adapter. */
  output: string;
  /** Why it failed: its exit code, a timeout. */
  error?: string;
}

/** What a run needs from the outside. */
export interface RunPorts {
  now(): number;
  /** Runs the job's script (the adapter bounds its time and output). */
  runScript(script: string): Promise<ScriptResult>;
  /**
   * Runs one model turn for the job with `message` (leading `/<skill>`
   * tokens load skills) and returns the final answer.
   */
  ask(job: JobRecord, message: string): Promise<string>;
  /** Sends `text` to `target` (`telegram`, `telegram:<chat>[:<thread>]`); rejects when it cannot. */
  deliver(target: string, text: string): Promise<void>;
  readonly outputs: JobOutputs;
  /** Put a header naming the job above delivered output (config `cron.wrap_response`). */
  readonly wrapResponse: boolean;
}

/** Where `job` delivers, or null when it keeps its output local. */
export function deliveryTarget(job: JobRecord): string | null {
  if (job.deliver === "local") return null;
  if (job.deliver === "origin") return job.origin;
  return job.deliver;
}

/** Whether a final answer asks to stay silent. */
export function isSilent(answer: string): boolean {
  return answer.trimStart().toUpperCase().startsWith(SILENT_TOKEN);
}

/** The delivered text: a header naming the job above the output, unless wrapping is off. */
export function wrapOutput(job: JobRecord, output: string, wrap: boolean): string {
  if (!wrap) return output;
  return `⏰ **${job.name}** (scheduled job ${job.id})\n\n${output}`;
}

/**
 * The user turn of a job's model run: its skills as leading `/<skill>`
 * tokens, a note that nobody watches the run and how to stay silent, the
 * prompt, and the script's output when there is one.
 */
export function jobMessage(job: JobRecord, scriptOutput: string | null): string {
  const skills = job.skills.map((skill) => `/${skill}`).join(" ");
  const parts = [
    `${skills}${skills === "" ? "" : " "}[Scheduled run of the job "${job.name}" (${job.id}). ` +
    "Nobody is watching this conversation: do the work and answer with the result to deliver. " +
    `When there is nothing worth reporting, answer exactly ${SILENT_TOKEN}.]`,
  ];
  if (job.prompt !== null) parts.push(job.prompt);
  else if (job.skills.length > 0) parts.push("Follow the loaded skills.");
  if (scriptOutput !== null) {
    parts.push(`The job's script printed:\n\`\`\`\n${scriptOutput}\n\`\`\``);
  }
  return parts.join("\n\n");
}

/**
 * Runs `job` (planned at `plannedAt`) through `ports`: script, model turn,
 * saved output, delivery. Never rejects for the job's own failure: the
 * report says how it went and the output file records it.
 */
export async function executeJob(
  job: JobRecord,
  plannedAt: number,
  ports: RunPorts,
): Promise<RunReport> {
  const at = ports.now();
  let status: RunStatus = "ok";
  let output = "";
  let error: string | null = null;
  let scriptOutput: string | null = null;
  if (job.script !== null) {
    try {
      const result = await ports.runScript(job.script);
      scriptOutput = result.output;
      if (!result.ok) {
        status = "error";
        error = `the script failed: ${result.error ?? "it exited with an error"}`;
      }
    } catch (failure) {
      status = "error";
      error = `the script could not run: ${errorText(failure)}`;
    }
  }
  if (status === "ok" && job.script_only) {
    output = scriptOutput ?? "";
    if (isSilent(output)) status = "silent";
  } else if (status === "ok") {
    try {
      output = await ports.ask(job, jobMessage(job, scriptOutput));
      if (isSilent(output)) status = "silent";
    } catch (failure) {
      status = "error";
      error = `the model turn failed: ${errorText(failure)}`;
    }
  }
  if (status === "error") {
    output = [`The run failed: ${error}.`, scriptOutput === null ? "" : scriptOutput]
      .filter((part) => part !== "").join("\n\n");
  }
  const target = deliveryTarget(job);
  let delivered = "local";
  if (target !== null && status !== "silent") {
    try {
      await ports.deliver(target, wrapOutput(job, output, ports.wrapResponse));
      delivered = target;
    } catch (failure) {
      delivered = `failed: ${errorText(failure)}`;
      if (status === "ok") {
        status = "error";
        error = `delivery to ${target} failed: ${errorText(failure)}`;
      }
    }
  } else if (status === "silent") {
    delivered = "not delivered (silent)";
  }
  let file: string | null = null;
  try {
    file = await ports.outputs.save({
      job_id: job.id,
      at,
      planned_at: plannedAt,
      status,
      delivered,
      error,
      output,
    });
  } catch (failure) {
    const saving = `its output could not be saved: ${errorText(failure)}`;
    error = error === null ? saving : `${error}; ${saving}`;
    if (status !== "error") status = "error";
  }
  return { job_id: job.id, status, delivered, error, file };
}

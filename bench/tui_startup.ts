/**
 * Interactive start-up through a real pseudo-terminal: the time from
 * spawning `herald chat` until its prompt (a screen line starting with "›")
 * is drawn, side by side with `herald --version` (until its line is drawn)
 * through the same pty and emulator path, taken in alternation in one run;
 * and until the status line names the model (the runtime loaded behind the
 * prompt and the conversation is open).
 *
 * The chat runs with a fresh home whose model points at the scripted model
 * server on 127.0.0.1 (tests/fakes/model_server.ts), so nothing waits on the
 * network; starting the chat makes no model request.
 *
 * @module
 */

import { join } from "node:path";
import { PtyScreen } from "../tests/tui/mod.ts";
import { startModelServer } from "../tests/fakes/model_server.ts";
import { versionLine } from "../cli/version.ts";
import { type StartupSample, summariseTimes } from "./cli_startup.ts";

/** One measured command (the CLI start-up bench's shape). */
export type TuiStartupSample = StartupSample;

/** The result of one comparison. */
export interface TuiStartupResult {
  chat: TuiStartupSample;
  /** Until the status line names the model: the runtime and conversation are open. */
  ready: TuiStartupSample;
  version: TuiStartupSample;
  /** Median of the chat prompt minus median of `--version`, in milliseconds. */
  differenceMs: number;
}

/** The chat's prompt line, as the emulator shows it (trailing spaces trimmed). */
const PROMPT_LINE = /^›( |$)/m;
/** The status line once the conversation is open: it names the model. */
const READY_LINE = "custom/test-model";
/** Generous: a failed start shows the screen instead of hanging the bench. */
const TIMEOUT_MS = 60_000;

/** Spawns `herald <args>` in a new pty and returns the milliseconds until `drawn` is on screen. */
async function timeToScreen(
  args: string[],
  drawn: string | RegExp,
  home: string,
  cwd: string,
): Promise<number> {
  const started = performance.now();
  await using screen = PtyScreen.spawn({
    cwd,
    env: { HOME: home, HERALD_HOME: join(home, ".herald") },
    args,
  });
  await screen.waitFor(drawn, TIMEOUT_MS);
  return performance.now() - started;
}

/**
 * Measures `herald chat` up to its prompt and `herald --version` up to its
 * line, `runs` times each, alternating, after two warm-up runs of each.
 */
export async function benchTuiStartup(runs = 15): Promise<TuiStartupResult> {
  const home = await Deno.makeTempDir({ prefix: "herald-bench-tui-" });
  await using model = await startModelServer();
  try {
    await Deno.mkdir(join(home, ".herald"));
    await Deno.writeTextFile(
      join(home, ".herald", "config.yaml"),
      `model:\n  provider: custom\n  base_url: ${model.openaiBaseUrl}\n  default: test-model\n`,
    );
    const cwd = join(home, "project");
    await Deno.mkdir(cwd);
    const chat = () => timeToScreen(["chat"], PROMPT_LINE, home, cwd);
    const ready = () => timeToScreen(["chat"], READY_LINE, home, cwd);
    const version = () => timeToScreen(["--version"], versionLine(), home, cwd);
    for (let i = 0; i < 2; i++) {
      await chat();
      await version();
    }
    const chatTimes: number[] = [];
    const readyTimes: number[] = [];
    const versionTimes: number[] = [];
    for (let i = 0; i < runs; i++) {
      chatTimes.push(await chat());
      versionTimes.push(await version());
      readyTimes.push(await ready());
    }
    if (model.requests.length > 0) {
      throw new Error(`Starting the chat made ${model.requests.length} model request(s)`);
    }
    const command = "deno run --allow-all cli/main.ts";
    const chatSample = summariseTimes("herald chat, prompt drawn", `${command} chat`, chatTimes);
    const versionSample = summariseTimes(
      "herald --version, line drawn",
      `${command} --version`,
      versionTimes,
    );
    return {
      chat: chatSample,
      ready: summariseTimes("herald chat, model in the status line", `${command} chat`, readyTimes),
      version: versionSample,
      differenceMs: chatSample.medianMs - versionSample.medianMs,
    };
  } finally {
    await Deno.remove(home, { recursive: true }).catch(() => {});
  }
}

if (import.meta.main) {
  const result = await benchTuiStartup(Number(Deno.env.get("BENCH_TUI_RUNS") ?? "15"));
  console.log(JSON.stringify(result, null, 2));
}

/**
 * `herald gateway run` as a subprocess for the end-to-end tests (and the
 * gateway bench): started, waited for until its state file says running,
 * stopped with SIGTERM or killed with SIGKILL.
 *
 * @module
 */

import { join } from "node:path";
import { gatewayFiles } from "../../adapters/channels/gateway_files.ts";
import { collectOutput, REPO_ROOT } from "../_helpers.ts";
import { FAKE_TELEGRAM_TOKEN } from "../fakes/telegram_api.ts";
import { configureModel } from "./_herald.ts";

const MAIN = join(REPO_ROOT, "cli", "main.ts");
/** A guard against hanging forever, not a timing under test. */
export const WAIT_MS = 60_000;

const delay = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Polls `check` until it returns a value. */
export async function until<T>(what: string, check: () => Promise<T | undefined>): Promise<T> {
  const deadline = Date.now() + WAIT_MS;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`gave up waiting for ${what}`);
    await delay(50);
  }
}

/** A `herald gateway run` subprocess. */
export interface GatewayRun extends AsyncDisposable {
  child: Deno.ChildProcess;
  /** Sends SIGTERM and waits: the exit code and everything it printed. */
  stop(): Promise<{ code: number; stdout: string; stderr: string }>;
  /** Sends SIGKILL (a crash: nothing runs on the way out) and waits for the process to end. */
  kill(): Promise<void>;
  /** What it printed on standard error so far. */
  stderr(): string;
  /** What it printed on standard output (its log) so far. */
  stdout(): string;
}

/** Starts `herald [global] gateway run` and waits until its state file says running. */
export async function runGateway(options: {
  root: string;
  profileHome: string;
  global?: string[];
  env?: Record<string, string>;
}): Promise<GatewayRun> {
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", "--allow-all", "--quiet", MAIN, ...(options.global ?? []), "gateway", "run"],
    cwd: options.root,
    env: { NO_COLOR: "1", HERALD_HOME: options.root, ...options.env },
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const output = collectOutput(child);
  const pumped = output.ended;
  let exited = false;
  const status = child.status.then((s) => {
    exited = true;
    return s;
  });
  const files = gatewayFiles(options.profileHome);
  await until("the gateway to run", async () => {
    if (exited) {
      await pumped;
      throw new Error(`the gateway exited early:\n${output.stdout()}\n${output.stderr()}`);
    }
    const state = await files.readState();
    return state?.pid === child.pid && state.status === "running" ? state : undefined;
  });
  const stop = async () => {
    if (!exited) child.kill("SIGTERM");
    const { code } = await status;
    await pumped;
    return { code, stdout: output.stdout(), stderr: output.stderr() };
  };
  const kill = async () => {
    if (!exited) child.kill("SIGKILL");
    await status;
    await pumped;
  };
  return {
    child,
    stop,
    kill,
    stderr: output.stderr,
    stdout: output.stdout,
    [Symbol.asyncDispose]: async () => void await stop(),
  };
}

/**
 * Makes `root` a profile home whose model is the scripted server at
 * `modelBaseUrl` and whose gateway runs Telegram with the fake's token,
 * `allowed` (Telegram user ids) on the allowlist.
 */
export async function telegramHome(
  root: string,
  modelBaseUrl: string,
  allowed: readonly number[],
): Promise<void> {
  await configureModel(root, modelBaseUrl, "platforms:\n  telegram:\n    enabled: true\n");
  await Deno.writeTextFile(
    join(root, ".env"),
    `TELEGRAM_BOT_TOKEN=${FAKE_TELEGRAM_TOKEN}\nTELEGRAM_ALLOWED_USERS=${allowed.join(",")}\n`,
  );
}

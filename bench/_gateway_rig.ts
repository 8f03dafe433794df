/**
 * The rig of the gateway load benches (bench/_gateway_load.ts): a real
 * `herald gateway run` from source with its own home, Telegram enabled
 * against the fake Bot API (tests/fakes/telegram_api.ts) and the model
 * against the scripted model server (tests/fakes/model_server.ts), both in
 * this process on 127.0.0.1; a watcher of what the bot sent; and the memory
 * probe (bench/_gateway_probe.ts) preloaded into the process on request.
 *
 * @module
 */

import { leanV8Flags } from "../adapters/process/lean_memory.ts";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { gatewayFiles } from "../adapters/channels/gateway_files.ts";
import { type ModelServer, startModelServer } from "../tests/fakes/model_server.ts";
import {
  FAKE_TELEGRAM_TOKEN,
  type FakeBot,
  type FakeTelegram,
  startFakeTelegram,
} from "../tests/fakes/telegram_api.ts";
import type { ProbeReading } from "./_gateway_probe.ts";

const ROOT = fileURLToPath(new URL("../", import.meta.url));
const MAIN = join(ROOT, "cli", "main.ts");
const PROBE = join(ROOT, "bench", "_gateway_probe.ts");
/** How long any one wait may last before the bench gives up (a hang guard, not a timing). */
const GIVE_UP_MS = 300_000;

/** config.yaml of a bench profile: the model at `baseUrl`, and `platforms` (YAML lines) as given. */
export function benchConfig(baseUrl: string, platforms: string): string {
  return `model:\n  provider: custom\n  base_url: ${baseUrl}\n  default: bench-model\n` +
    `platforms:\n${platforms}`;
}

/** Resolves after `ms`. */
export const delay = (ms: number): Promise<unknown> =>
  new Promise((resolve) => setTimeout(resolve, ms));

/** A running `herald gateway run`. */
export interface GatewayProcess extends AsyncDisposable {
  child: Deno.ChildProcess;
  /** The end of what it printed (both streams), for error messages. */
  output(): string;
}

/** The model, the fake Telegram API and a gateway home wired to both. */
export interface Rig extends AsyncDisposable {
  model: ModelServer;
  telegram: FakeTelegram;
  bot: FakeBot;
  gateway: GatewayProcess;
  watcher: SentWatcher;
  /** Where the memory probe writes its readings, when it runs. */
  probeFile?: string;
}

/**
 * Starts the fakes, writes a home whose Telegram allows `users`, starts the
 * gateway (with the memory probe when `probe`) and waits until Telegram is
 * connected.
 */
export async function startRig(users: number[], probe = false): Promise<Rig> {
  const home = await Deno.makeTempDir({ prefix: "herald-bench-" });
  const model = await startModelServer();
  const telegram = await startFakeTelegram();
  const bot = telegram.bot();
  await Deno.writeTextFile(
    join(home, "config.yaml"),
    benchConfig(model.openaiBaseUrl, "  telegram:\n    enabled: true\n"),
  );
  await Deno.writeTextFile(
    join(home, ".env"),
    `TELEGRAM_BOT_TOKEN=${FAKE_TELEGRAM_TOKEN}\nTELEGRAM_ALLOWED_USERS=${users.join(",")}\n`,
    { mode: 0o600 },
  );
  let gateway: GatewayProcess | undefined;
  const watcher = new SentWatcher(bot);
  const probeFile = probe ? join(home, "probe.jsonl") : undefined;
  const close = async () => {
    watcher.stop();
    await gateway?.[Symbol.asyncDispose]();
    await telegram.close();
    await model.close();
    await Deno.remove(home, { recursive: true });
  };
  try {
    gateway = await startGatewayProcess(home, { TELEGRAM_API_BASE: telegram.baseUrl }, probeFile);
  } catch (error) {
    await close();
    throw error;
  }
  return {
    model,
    telegram,
    bot,
    gateway,
    watcher,
    ...(probeFile === undefined ? {} : { probeFile }),
    [Symbol.asyncDispose]: close,
  };
}

/** Starts `herald gateway run` with `HERALD_HOME=home` and waits until Telegram is connected. */
async function startGatewayProcess(
  home: string,
  env: Record<string, string>,
  probeFile?: string,
): Promise<GatewayProcess> {
  const probing = probeFile === undefined ? [] : ["--v8-flags=--expose-gc", `--preload=${PROBE}`];
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", "--allow-all", "--quiet", ...probing, MAIN, "gateway", "run"],
    cwd: home,
    env: {
      NO_COLOR: "1",
      HERALD_HOME: home,
      // As `herald gateway start` and the service units run it (adapters/process/lean_memory.ts).
      DENO_V8_FLAGS: leanV8Flags(Deno.env.get("DENO_V8_FLAGS")),
      ...env,
      ...(probeFile === undefined ? {} : { HERALD_BENCH_PROBE_FILE: probeFile }),
    },
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  let printed = "";
  const pump = async (stream: ReadableStream<Uint8Array>) => {
    for await (const text of stream.pipeThrough(new TextDecoderStream())) {
      printed = (printed + text).slice(-8000);
    }
  };
  const pumped = Promise.all([pump(child.stdout), pump(child.stderr)]);
  let exited = false;
  const status = child.status.then((s) => {
    exited = true;
    return s;
  });
  const stop = async () => {
    if (!exited) child.kill("SIGTERM");
    await status;
    await pumped;
  };
  const files = gatewayFiles(home);
  const deadline = Date.now() + GIVE_UP_MS;
  for (;;) {
    if (exited) {
      await pumped;
      throw new Error(`herald gateway run exited before it connected:\n${printed}`);
    }
    const state = await files.readState();
    const telegram = state?.platforms.find((platform) => platform.platform === "telegram");
    if (state?.pid === child.pid && state.status === "running" && telegram?.state === "connected") {
      break;
    }
    if (Date.now() > deadline) {
      await stop();
      throw new Error(`herald gateway run did not connect to Telegram:\n${printed}`);
    }
    await delay(50);
  }
  return { child, output: () => printed, [Symbol.asyncDispose]: stop };
}

/**
 * Follows the fake bot's sent messages with one cursor (the fake's own
 * `waitForSent` scans every message for every waiter, too slow for 10,000).
 */
export class SentWatcher {
  readonly #bot: FakeBot;
  readonly #texts = new Map<number, string[]>();
  readonly #waiters = new Set<() => void>();
  #cursor = 0;
  readonly #timer: ReturnType<typeof setInterval>;

  constructor(bot: FakeBot) {
    this.#bot = bot;
    this.#timer = setInterval(() => this.#scan(), 2);
  }

  /** The texts sent to `chat` so far, in order. */
  texts(chat: number): string[] {
    return this.#texts.get(chat) ?? [];
  }

  /** Resolves once `chat` has had `count` messages; rejects after {@link GIVE_UP_MS}. */
  until(chat: number, count: number, why: () => string): Promise<void> {
    return this.#until(() => this.texts(chat).length >= count, why);
  }

  /** Resolves once every chat of `chats` has had `count` messages. */
  all(chats: number[], count: number, why: () => string): Promise<void> {
    return this.#until(() => chats.every((chat) => this.texts(chat).length >= count), why);
  }

  /** Stops following. */
  stop(): void {
    clearInterval(this.#timer);
  }

  #until(done: () => boolean, why: () => string): Promise<void> {
    if (done()) return Promise.resolve();
    return new Promise((resolve, reject) => {
      const check = () => {
        if (!done()) return;
        clearTimeout(timer);
        this.#waiters.delete(check);
        resolve();
      };
      const timer = setTimeout(() => {
        this.#waiters.delete(check);
        reject(new Error(`gave up after ${GIVE_UP_MS / 1000} s waiting for ${why()}`));
      }, GIVE_UP_MS);
      this.#waiters.add(check);
    });
  }

  #scan(): void {
    const sent = this.#bot.sent;
    if (this.#cursor === sent.length) return;
    for (; this.#cursor < sent.length; this.#cursor++) {
      const message = sent[this.#cursor];
      const texts = this.#texts.get(message.chatId) ?? [];
      texts.push(message.text ?? message.caption ?? `(${message.method})`);
      this.#texts.set(message.chatId, texts);
    }
    for (const check of [...this.#waiters]) check();
  }
}

/** Has the probe of `rig` read the process's memory, and returns the reading. */
export async function probeNow(rig: Rig): Promise<ProbeReading> {
  const file = rig.probeFile!;
  const lines = async () =>
    (await Deno.readTextFile(file).catch(() => "")).split("\n").filter((line) => line !== "");
  const before = (await lines()).length;
  Deno.kill(rig.gateway.child.pid, "SIGUSR1");
  const deadline = Date.now() + GIVE_UP_MS;
  for (;;) {
    const now = await lines();
    if (now.length > before) return JSON.parse(now[now.length - 1]) as ProbeReading;
    if (Date.now() > deadline) throw new Error("the memory probe did not answer");
    await delay(20);
  }
}

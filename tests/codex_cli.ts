/**
 * The real Codex CLI for end-to-end tests: {@link codexBinary} installs the
 * pinned `@openai/codex` from npm into `<repo>/.cache/` once (safe when
 * several test processes ask at the same time), and {@link codexHome} makes a
 * throwaway `CODEX_HOME` whose config.toml points codex at a fake
 * Responses-API model (tests/fakes/responses_model.ts) on 127.0.0.1.
 *
 * @example
 * ```ts
 * await using model = await startResponsesModel();
 * await using home = await codexHome({ baseUrl: model.baseUrl });
 * const codex = await codexBinary();
 * new Deno.Command(codex, { args: ["app-server"], env: home.env });
 * ```
 *
 * @module
 */

import { join } from "node:path";
import { spawnProcessGroup } from "../adapters/process/mod.ts";
import { REPO_ROOT } from "./_helpers.ts";

/** The codex version every test runs against. */
export const CODEX_VERSION = "0.169.0";

/** What `codex --version` prints for {@link CODEX_VERSION}. */
const VERSION_LINE = `codex-cli ${CODEX_VERSION}`;

/** Folder the pinned codex is installed into. */
export const CODEX_CACHE_DIR: string = join(REPO_ROOT, ".cache", `codex-${CODEX_VERSION}`);

const BIN = join("node_modules", ".bin", "codex");

let pending: Promise<string> | undefined;

/**
 * Absolute path of the codex {@link CODEX_VERSION} executable, installed with
 * npm into {@link CODEX_CACHE_DIR} when missing (about 400 MB, a few seconds
 * with a warm npm cache). Several processes may call it at once: each
 * installs into its own temporary sibling folder and renames it into place;
 * whoever loses the race removes its copy and uses the winner's.
 *
 * @throws Error when npm fails or the installed codex does not report the pinned version.
 */
export function codexBinary(): Promise<string> {
  pending ??= locate().catch((error) => {
    pending = undefined;
    throw error;
  });
  return pending;
}

async function locate(): Promise<string> {
  const binary = join(CODEX_CACHE_DIR, BIN);
  if (await exists(CODEX_CACHE_DIR)) {
    if (await versionProblem(binary) === undefined) return binary;
    // A broken install (for example a deleted binary): move it aside atomically, then replace it.
    const broken = `${CODEX_CACHE_DIR}.broken-${crypto.randomUUID()}`;
    await Deno.rename(CODEX_CACHE_DIR, broken).catch(() => {});
    await Deno.remove(broken, { recursive: true }).catch(() => {});
  }
  await Deno.mkdir(join(REPO_ROOT, ".cache"), { recursive: true });
  const staging = `${CODEX_CACHE_DIR}.partial-${crypto.randomUUID()}`;
  try {
    await Deno.mkdir(staging);
    await npmInstall(staging);
    const problem = await versionProblem(join(staging, BIN));
    if (problem) throw new Error(`The freshly installed codex is unusable: ${problem}`);
    try {
      await Deno.rename(staging, CODEX_CACHE_DIR);
    } catch {
      // Another process won the race (the target exists and is not empty): use its copy.
    }
  } finally {
    await Deno.remove(staging, { recursive: true }).catch(() => {});
  }
  const problem = await versionProblem(binary);
  if (problem) {
    throw new Error(`${problem}. Delete ${CODEX_CACHE_DIR} and run the tests again.`);
  }
  return binary;
}

async function npmInstall(prefix: string): Promise<void> {
  const output = await new Deno.Command("npm", {
    args: [
      "install",
      "--no-save",
      "--no-audit",
      "--no-fund",
      "--loglevel=error",
      "--prefix",
      prefix,
      `@openai/codex@${CODEX_VERSION}`,
    ],
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).output().catch((error) => {
    throw new Error(`Could not run npm to install @openai/codex (is Node.js installed?): ${error}`);
  });
  if (!output.success) {
    const stderr = new TextDecoder().decode(output.stderr).trim();
    throw new Error(
      `npm install @openai/codex@${CODEX_VERSION} failed (exit ${output.code}); ` +
        `check the network and the npm registry setting.\n${stderr}`,
    );
  }
}

/** Why `binary` is not the pinned codex, or undefined when it is. */
async function versionProblem(binary: string): Promise<string | undefined> {
  try {
    const output = await new Deno.Command(binary, {
      args: ["--version"],
      stdin: "null",
      stdout: "piped",
      stderr: "null",
    }).output();
    const printed = new TextDecoder().decode(output.stdout).trim();
    return printed === VERSION_LINE
      ? undefined
      : `${binary} --version printed "${printed}", expected "${VERSION_LINE}"`;
  } catch (error) {
    return `${binary} could not be run: ${error}`;
  }
}

async function exists(path: string): Promise<boolean> {
  try {
    await Deno.stat(path);
    return true;
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return false;
    throw error;
  }
}

/** Options for {@link codexHome}. */
export interface CodexHomeOptions {
  /** The fake model's Responses base URL, ending in `/v1` (codex appends `/responses`). */
  baseUrl: string;
  /** TOML placed among the top-level keys, e.g. `approval_policy = "untrusted"`. */
  topLevel?: string;
  /** TOML appended at the end of config.toml; start it with a table header such as `[mcp_servers.x]`. */
  extra?: string;
}

/** A temporary CODEX_HOME, removed on dispose. */
export interface CodexHome extends AsyncDisposable {
  /** Absolute path of the folder (holds config.toml). */
  readonly path: string;
  /** Environment for the codex process: `CODEX_HOME` and the fake key in `OPENAI_API_KEY`. */
  readonly env: Record<string, string>;
}

/** The key the fake provider sends as `Authorization: Bearer ...`. */
export const FAKE_OPENAI_KEY = "sk-herald-fake";

/**
 * Creates a temporary CODEX_HOME whose config.toml sends every model call to
 * the fake model at `baseUrl`, with retries off (failures are immediate),
 * update checks and analytics off.
 *
 * @example
 * ```ts
 * await using home = await codexHome({ baseUrl: model.baseUrl, extra: "[features]\nx = true\n" });
 * ```
 */
export async function codexHome(options: CodexHomeOptions): Promise<CodexHome> {
  const path = await Deno.makeTempDir({ prefix: "herald-codex-home-" });
  const lines = [
    `model = "fake-model"`,
    `model_provider = "fake"`,
    `check_for_update_on_startup = false`,
    ...(options.topLevel ? [options.topLevel.trimEnd()] : []),
    ``,
    `[model_providers.fake]`,
    `name = "Fake local provider"`,
    `base_url = ${JSON.stringify(options.baseUrl)}`,
    `env_key = "OPENAI_API_KEY"`,
    `wire_api = "responses"`,
    `request_max_retries = 0`,
    `stream_max_retries = 0`,
    ``,
    `[analytics]`,
    `enabled = false`,
    ``,
    ...(options.extra ? [options.extra.trimEnd(), ``] : []),
  ];
  await Deno.writeTextFile(join(path, "config.toml"), lines.join("\n"));
  return {
    path,
    env: { CODEX_HOME: path, OPENAI_API_KEY: FAKE_OPENAI_KEY },
    async [Symbol.asyncDispose]() {
      await Deno.remove(path, { recursive: true }).catch(() => {});
    },
  };
}

/** A JSON-RPC message as codex app-server writes it (no `"jsonrpc"` member). */
export interface WireMessage {
  id?: number | string;
  method?: string;
  params?: Record<string, unknown>;
  result?: unknown;
  error?: { code: number; message: string };
}

/** Answers one of Codex's server requests: a result, or undefined for a -32601 error. */
export type BareAnswer = (request: WireMessage) => unknown;

/** A bare JSON-lines client of one `codex app-server` (no Herald code in between). */
export interface BareAppServer extends AsyncDisposable {
  /** Calls `method`; resolves to its result, rejects with `<code> <message>` on an error. */
  request(method: string, params: unknown): Promise<unknown>;
  /** The first notification or server request (already seen or still to come) that matches. */
  waitFor(match: (message: WireMessage) => boolean): Promise<WireMessage>;
  /** Every notification and server request read so far. */
  readonly seen: WireMessage[];
  close(): Promise<void>;
}

/**
 * Starts `codex app-server` at `program` as a process group (stderr
 * dropped) and does the handshake. Server requests are answered by
 * `answer` (default: -32601). The baseline against which Herald's client
 * is measured, and a way to ask Codex what it made of a config.
 *
 * @example
 * ```ts
 * await using codex = await startBareAppServer(await codexBinary(), home.env, cwd);
 * const started = await codex.request("thread/start", { cwd });
 * ```
 */
export async function startBareAppServer(
  program: string,
  env: Record<string, string>,
  cwd: string,
  answer: BareAnswer = () => undefined,
): Promise<BareAppServer> {
  const group = spawnProcessGroup(program, {
    args: ["app-server"],
    env,
    clearEnv: true,
    cwd,
    stdin: "piped",
    stdout: "piped",
    stderr: "null",
  });
  const writer = group.child.stdin.getWriter();
  const encoder = new TextEncoder();
  const send = (message: WireMessage) =>
    writer.write(encoder.encode(`${JSON.stringify(message)}\n`));
  const pending = new Map<number, PromiseWithResolvers<unknown>>();
  const seen: WireMessage[] = [];
  const waiters: { match: (m: WireMessage) => boolean; resolve: (m: WireMessage) => void }[] = [];
  let nextId = 1;
  const dispatch = (message: WireMessage) => {
    if (message.id !== undefined && message.method === undefined) {
      const call = pending.get(message.id as number);
      pending.delete(message.id as number);
      if (message.error) call?.reject(new Error(`${message.error.code} ${message.error.message}`));
      else call?.resolve(message.result);
      return;
    }
    seen.push(message);
    if (message.id !== undefined) {
      const result = answer(message);
      void send(
        result === undefined
          ? { id: message.id, error: { code: -32601, message: `unhandled ${message.method}` } }
          : { id: message.id, result },
      );
    }
    for (const waiter of [...waiters]) {
      if (waiter.match(message)) {
        waiters.splice(waiters.indexOf(waiter), 1);
        waiter.resolve(message);
      }
    }
  };
  const reading = (async () => {
    let buffer = "";
    for await (const chunk of group.child.stdout.pipeThrough(new TextDecoderStream())) {
      buffer += chunk;
      let end;
      while ((end = buffer.indexOf("\n")) >= 0) {
        const line = buffer.slice(0, end).trim();
        buffer = buffer.slice(end + 1);
        if (line) dispatch(JSON.parse(line));
      }
    }
  })();
  const request = (method: string, params: unknown): Promise<unknown> => {
    const id = nextId++;
    const call = Promise.withResolvers<unknown>();
    pending.set(id, call);
    void send({ id, method, params: params as Record<string, unknown> });
    return call.promise;
  };
  const close = async () => {
    await writer.close().catch(() => {});
    await group.terminate({ graceMs: 2_000 });
    await reading.catch(() => {});
  };
  try {
    await request("initialize", {
      clientInfo: { name: "herald_test", title: null, version: "0.0.0" },
      capabilities: { experimentalApi: false },
    });
    await send({ method: "initialized" });
  } catch (error) {
    await close();
    throw error;
  }
  return {
    request,
    waitFor(match) {
      const found = seen.find(match);
      if (found) return Promise.resolve(found);
      const { promise, resolve } = Promise.withResolvers<WireMessage>();
      waiters.push({ match, resolve });
      return promise;
    },
    seen,
    close,
    [Symbol.asyncDispose]: close,
  };
}

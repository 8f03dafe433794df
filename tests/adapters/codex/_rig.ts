/**
 * A Codex session over the real `codex app-server` (tests/codex_cli.ts) and
 * the scripted Responses model, with a real state database, scripted
 * approval answers and every event kept. Closing stops the app-server and
 * removes the folders.
 */

import { join } from "node:path";
import type { AgentEvent } from "../../../core/agent/turn_runtime.ts";
import type { AppServerConnection } from "../../../core/codex/app_server.ts";
import { CodexSession, type CodexSessionOptions } from "../../../core/agent/codex_session.ts";
import type { SessionStore } from "../../../core/sessions/store.ts";
import type { ApprovalChoice, ApprovalRequest } from "../../../core/tools/types.ts";
import { appServerLauncher } from "../../../adapters/codex/app_server.ts";
import { openStateStore } from "../../../adapters/sqlite/mod.ts";
import { codexBinary, type CodexHome, codexHome, type CodexHomeOptions } from "../../codex_cli.ts";
import { tempDir } from "../../_helpers.ts";
import {
  type ResponsesModel,
  type ResponsesModelOptions,
  startResponsesModel,
} from "../../fakes/responses_model.ts";

/** Options of {@link codexRig}. */
export interface RigOptions {
  /** Answers to approval questions, in order; "deny" once they run out. */
  choices?: ApprovalChoice[];
  home?: Omit<CodexHomeOptions, "baseUrl">;
  model?: ResponsesModelOptions;
  /** Extra arguments of `codex app-server` (`--enable request_permissions_tool`). */
  args?: string[];
  session?: Partial<CodexSessionOptions>;
}

/** What a test drives and inspects. */
export interface CodexRig extends AsyncDisposable {
  session: CodexSession;
  store: SessionStore;
  model: ResponsesModel;
  home: CodexHome;
  /** The working folder of the thread. */
  work: string;
  asked: ApprovalRequest[];
  events: AgentEvent[];
  /** The protocol both ways, as `in <text>` / `out <text>` chunks. */
  wire: string[];
  /** The app-servers started so far. */
  connections: AppServerConnection[];
  /** Options the session was made with (for a resumed one). */
  options: CodexSessionOptions;
  /** `send` with the events kept. */
  send(text: string, signal?: AbortSignal): ReturnType<CodexSession["send"]>;
}

/** A Codex session in fresh folders, against a fresh fake model. */
export async function codexRig(options: RigOptions = {}): Promise<CodexRig> {
  const program = await codexBinary();
  const model = await startResponsesModel(options.model);
  const home = await codexHome({ baseUrl: model.baseUrl, ...options.home });
  const dir = await tempDir("herald-codex-session-");
  const work = join(dir.path, "work");
  await Deno.mkdir(work);
  const store = openStateStore(join(dir.path, "state.db"));
  const asked: ApprovalRequest[] = [];
  const events: AgentEvent[] = [];
  const choices = [...(options.choices ?? [])];
  const connections: AppServerConnection[] = [];
  const wire: string[] = [];
  const launch = appServerLauncher({
    command: program,
    args: options.args,
    baseEnv: { PATH: Deno.env.get("PATH") ?? "/usr/bin:/bin", HOME: dir.path },
    env: home.env,
    cwd: work,
    trace: (direction, text) => wire.push(`${direction} ${text}`),
  });
  const threads = new Map<string, string>();
  const sessionOptions: CodexSessionOptions = {
    store,
    source: "test",
    cwd: work,
    launch: async (handler) => {
      const connection = await launch(handler);
      connections.push(connection);
      return connection;
    },
    approve: (request) => {
      asked.push(request);
      return Promise.resolve(choices.shift() ?? "deny");
    },
    threads: {
      get: (id) => Promise.resolve(threads.get(id)),
      set: (id, thread) => {
        threads.set(id, thread);
        return Promise.resolve();
      },
    },
    toolServer: "herald",
    turnTimeoutMs: 60_000,
    clientVersion: "test",
    ...options.session,
  };
  const session = CodexSession.start(sessionOptions);
  return {
    session,
    store,
    model,
    home,
    work,
    asked,
    events,
    wire,
    connections,
    options: sessionOptions,
    send: (text, signal) => session.send(text, { signal, onEvent: (event) => events.push(event) }),
    async [Symbol.asyncDispose]() {
      await session.close();
      for (const connection of connections) await connection.close();
      store.close();
      await model.close();
      await home[Symbol.asyncDispose]();
      await dir[Symbol.asyncDispose]();
    },
  };
}

/** The stored messages of the rig's session, as role and content/tool lines. */
export function storedLines(rig: CodexRig): string[] {
  const id = rig.session.id;
  if (!id) return [];
  return rig.store.getMessages(id).map((message) => {
    if (message.role === "tool") return `tool ${message.toolName}: ${message.content}`;
    const calls = (message.toolCalls ?? []) as { name: string }[];
    return `${message.role}: ${message.content ?? ""}${
      calls.length ? ` [calls ${calls.map((call) => call.name).join(", ")}]` : ""
    }`;
  });
}

/** The JSON-RPC messages one way (`in`: from Codex) in order, parsed from the traced chunks. */
export function wireMessages(
  wire: readonly string[],
  direction: "in" | "out",
): Record<string, unknown>[] {
  const text = wire.filter((chunk) => chunk.startsWith(`${direction} `))
    .map((chunk) => chunk.slice(direction.length + 1)).join("");
  return text.split("\n").filter((line) => line.trim() !== "").map((line) => JSON.parse(line));
}

/** The answer Herald sent to Codex's server request `method` (the first one), and its params. */
export function answerTo(
  wire: readonly string[],
  method: string,
): { params: Record<string, unknown>; answer: Record<string, unknown> | undefined } | undefined {
  const request = wireMessages(wire, "in").find((message) =>
    message.method === method && "id" in message
  );
  if (!request) return undefined;
  const answer = wireMessages(wire, "out").find((message) =>
    message.id === request.id && !("method" in message)
  );
  return { params: request.params as Record<string, unknown>, answer };
}

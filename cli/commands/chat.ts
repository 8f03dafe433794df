/**
 * `herald chat`: the terminal conversation. Interactive on a terminal,
 * one turn per line when input is piped, or one question with `-q`.
 *
 * @module
 */

import type { Command } from "commander";
import type { AgentEvent, AgentSession, TurnResult } from "../../core/agent/session.ts";
import { HeraldError } from "../../core/errors.ts";
import {
  createSlashRegistry,
  parseSlashInput,
  runCatalogCommand,
} from "../../core/commands/mod.ts";
import { VERSION } from "../../core/version.ts";
import { configAlwaysStore } from "../../adapters/home/mod.ts";
import type { CliContext } from "../context.ts";
import { type Output, OutputClosedError, printJson } from "../io.ts";
import { terminalApprovalPolicy } from "../chat/approval.ts";
import { LineReader } from "../chat/lines.ts";
import type { ChatRuntime } from "../chat/runtime.ts";
import { importLazily } from "../../adapters/lazy.ts";

interface ChatOptions {
  query?: string;
  json?: boolean;
  resume?: string;
  model?: string;
  provider?: string;
  baseUrl?: string;
  source: string;
  safeMode?: boolean;
}

function preview(text: string, max = 80): string {
  const line = text.replace(/\s+/g, " ").trim();
  return line.length > max ? `${line.slice(0, max - 3)}...` : line;
}

/** Shows turn progress: streamed text on stdout (unless quiet), tool activity on stderr. */
class TurnDisplay {
  streamed = "";
  constructor(readonly io: Output, readonly streamText: boolean) {}

  onEvent = (event: AgentEvent): void => {
    switch (event.type) {
      case "model_call":
        if (this.streamed && !this.streamed.endsWith("\n") && this.streamText) this.io.out("\n");
        this.streamed = "";
        break;
      case "text":
        this.streamed += event.delta;
        if (this.streamText) this.io.out(event.delta);
        break;
      case "tool_start": {
        if (this.streamText && this.streamed && !this.streamed.endsWith("\n")) this.io.out("\n");
        this.streamed = "";
        let args = event.call.arguments;
        try {
          const parsed = JSON.parse(args);
          args = typeof parsed?.command === "string" ? parsed.command : parsed?.path ?? args;
        } catch {
          // Show the raw text.
        }
        this.io.err(`  > ${event.call.name} ${preview(String(args))}\n`);
        break;
      }
      case "tool_end":
        this.io.err(
          `  ${event.ok ? "ok" : "failed"} ${event.call.name}` +
            `${event.ok ? "" : `: ${preview(event.summary, 160)}`} (${
              Math.round(event.durationMs)
            } ms)\n`,
        );
        break;
    }
  };

  /** Prints what the final answer adds to the streamed text (the footer, plugin changes). */
  finish(result: TurnResult): void {
    if (!this.streamText) return;
    if (result.response.startsWith(this.streamed)) {
      this.io.out(result.response.slice(this.streamed.length));
    } else {
      this.io.out(`${this.streamed ? "\n" : ""}${result.response}`);
    }
    if (result.response !== "" || this.streamed !== "") this.io.out("\n");
  }
}

async function runTurn(
  c: CliContext,
  session: AgentSession,
  text: string,
  display: TurnDisplay,
): Promise<TurnResult> {
  const controller = new AbortController();
  const interrupt = () => controller.abort();
  if (c.signals) Deno.addSignalListener("SIGINT", interrupt);
  try {
    const result = await session.send(text, {
      signal: controller.signal,
      onEvent: display.onEvent,
    });
    display.finish(result);
    if (result.aborted) c.io.err("(interrupted)\n");
    return result;
  } finally {
    if (c.signals) Deno.removeSignalListener("SIGINT", interrupt);
  }
}

/**
 * For `-q "/<bundle-or-skill> text"`: the message the bundle or skill sends.
 * Any other text, built-in commands included, is sent as typed.
 */
async function expandSkillQuery(runtime: ChatRuntime, query: string): Promise<string> {
  const input = parseSlashInput(query);
  if (!input || createSlashRegistry().find(input.name)) return query;
  const outcome = await runCatalogCommand(runtime.catalog, input.name, input.args);
  return outcome?.kind === "send" ? outcome.message : query;
}

async function conversation(
  c: CliContext,
  runtime: ChatRuntime,
  lines: LineReader,
  first: AgentSession,
): Promise<boolean> {
  const registry = createSlashRegistry({ catalog: runtime.catalog });
  let session = first;
  let deleteOnExit = false;
  let failed = false;
  if (c.interactive) {
    c.io.err(
      `Herald ${VERSION} · ${session.client.provider}/${session.client.model} · ` +
        "/help for commands, /exit to leave\n",
    );
    // Scan skills and bundles now, so a broken file is reported before the first prompt.
    await runtime.catalog.snapshot().catch(() => {});
  }
  for (;;) {
    if (c.interactive) c.io.out("› ");
    const line = await lines.next();
    if (line === null) break;
    if (line.trim() === "") continue;
    const outcome = await registry.dispatch(line, {
      sessionId: session.id,
      model: session.client.model,
      provider: session.client.provider,
    });
    let message: string | undefined = line;
    if (outcome) {
      message = undefined;
      if (outcome.kind === "reply") c.io.out(`${outcome.text}\n`);
      else if (outcome.kind === "exit") {
        deleteOnExit = outcome.deleteSession;
        break;
      } else if (outcome.kind === "new_session") {
        const client = session.client;
        session = runtime.start();
        session.setClient(client);
        c.io.out(`${outcome.text}\n`);
      } else if (outcome.kind === "set_model") {
        session.setClient(runtime.withModel(outcome.model));
        c.io.out(`${outcome.text}\n`);
      } else {
        message = outcome.message;
      }
    }
    if (message === undefined) continue;
    try {
      await runTurn(c, session, message, new TurnDisplay(c.io, true));
    } catch (error) {
      // Nobody reads the answers any more: end the run (cli/errors.ts exits 0 quietly).
      if (error instanceof OutputClosedError) throw error;
      failed = true;
      c.io.err(`herald: ${(error as Error).message}\n`);
    }
  }
  if (deleteOnExit) {
    const id = session.id;
    await session.deleteStored();
    if (id) c.io.err(`Deleted session ${id}.\n`);
  } else if (session.id && c.interactive) {
    c.io.err(`Session ${session.id} saved; continue with: herald chat --resume ${session.id}\n`);
  }
  return !failed;
}

/** Adds `chat` to `program`. */
export function registerChat(program: Command, ctx: () => CliContext): void {
  program.command("chat")
    .description(
      "talk to the agent (interactive, piped one turn per line, or one question with -q)",
    )
    .option("-q, --query <prompt>", "ask one question, print only the final answer, and exit")
    .option("--json", "with -q: print the session id, response and tool calls as JSON")
    .option("-r, --resume <id>", "continue a stored session")
    .option("-m, --model <name>", "model name for this run")
    .option("--provider <id>", "provider for this run (openai, openrouter, anthropic, custom, ...)")
    .option("--base-url <url>", "endpoint for this run")
    .option("--source <name>", "surface name stored with new sessions", "cli")
    .action(async (_options: ChatOptions, command: Command) => {
      const options = command.optsWithGlobals() as ChatOptions;
      const c = ctx();
      const oneShot = options.query !== undefined;
      const lines = oneShot ? undefined : new LineReader(c.input());
      const paths = await c.home();
      const safeMode = options.safeMode ?? false;
      const approvals = terminalApprovalPolicy({
        io: c.io,
        ask: c.interactive && !oneShot ? lines : undefined,
        store: configAlwaysStore(paths.config),
        safeMode,
      });
      // Loaded here through a variable (Deno pre-loads literal dynamic imports), so other
      // commands, the dashboard above all, do not carry the agent runtime.
      const { openChatRuntime } = await importLazily<typeof import("../chat/runtime.ts")>(
        "cli/chat/runtime.ts",
      );
      const runtime = await openChatRuntime(c, {
        safeMode,
        model: options.model,
        provider: options.provider,
        baseUrl: options.baseUrl,
        source: options.source,
        cwd: Deno.cwd(),
        approve: approvals.decide,
      });
      approvals.allow(runtime.config.approvals.allow);
      try {
        const session = options.resume ? runtime.resume(options.resume) : runtime.start();
        if (oneShot) {
          const query = await expandSkillQuery(runtime, options.query!);
          const result = await runTurn(c, session, query, new TurnDisplay(c.io, false));
          if (options.json) {
            printJson(c.io, {
              session_id: result.sessionId,
              response: result.response,
              tool_calls: result.toolCalls,
              aborted: result.aborted,
            });
          } else {
            c.io.out(`${result.response}\n`);
          }
        } else if (!(await conversation(c, runtime, lines!, session))) {
          throw new HeraldError(
            "chat_turn_failed",
            "state",
            "one or more turns failed (see the messages above)",
          );
        }
      } finally {
        runtime.close();
        await lines?.close();
      }
    });
}

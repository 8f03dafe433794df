/**
 * `herald chat`: the terminal conversation. Interactive on a terminal,
 * one turn per line when input is piped, or one question with `-q`.
 *
 * @module
 */

import type { Command } from "commander";
import {
  type ClosedConversation,
  Conversation,
  type ConversationResult,
} from "../../core/agent/conversation.ts";
import type { AgentEvent, SendOptions, TurnResult } from "../../core/agent/turn_runtime.ts";
import { turnView } from "../../core/agent/turn_view.ts";
import { HeraldError } from "../../core/errors.ts";
import { VERSION } from "../../core/version.ts";
import { openAgentRuntimeLazily } from "../../adapters/runtime/lazy_agent_runtime.ts";
import type { CliContext } from "../context.ts";
import { type Output, OutputClosedError, printJson } from "../io.ts";
import { terminalApprovals } from "../chat/approval.ts";
import { LineReader } from "../chat/lines.ts";
import { importLazily } from "../../adapters/lazy.ts";
import { continueTarget } from "../../core/usecases/sessions.ts";
import { toolFailure } from "../tui/tool_result.ts";
import { chatRuntimeOptions } from "../chat/runtime_options.ts";
import { YOLO_NOTICE } from "../../core/tools/approval_policy.ts";

interface ChatOptions {
  query?: string;
  json?: boolean;
  resume?: string;
  model?: string;
  provider?: string;
  baseUrl?: string;
  source: string;
  safeMode?: boolean;
  yolo?: boolean;
  continue?: boolean;
  plain?: boolean;
  /** False with `--no-color`. */
  color?: boolean;
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
        this.#endLine();
        break;
      case "text":
        this.streamed += event.delta;
        if (this.streamText) this.io.out(event.delta);
        break;
      case "tool_start": {
        this.#endLine();
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
      case "tool_end": {
        const failure = toolFailure(event);
        this.io.err(
          `  ${failure === null ? "ok" : "failed"} ${event.call.name}` +
            `${failure === null ? "" : `: ${preview(failure, 160)}`} (${
              Math.round(event.durationMs)
            } ms)\n`,
        );
        break;
      }
      case "compressed":
      case "notice": {
        this.#endLine();
        const warning = event.type === "notice" && event.level === "warning";
        this.io.err(`herald: ${warning ? "warning: " : ""}${event.message}\n`);
        break;
      }
    }
  };

  /** Ends the streamed text's line (when it did not end one) before other output; starts anew. */
  #endLine(): void {
    if (this.streamText && this.streamed && !this.streamed.endsWith("\n")) this.io.out("\n");
    this.streamed = "";
  }

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

/**
 * Runs `work` (one line of input or one question) with Ctrl-C interrupting
 * the conversation's turn, and shows the turn's progress on `display`.
 */
async function withInterrupt<T>(
  c: CliContext,
  conversation: Conversation,
  work: (options: SendOptions) => Promise<T>,
  display: TurnDisplay,
): Promise<T> {
  const interrupt = () => void conversation.interrupt();
  if (c.signals) Deno.addSignalListener("SIGINT", interrupt);
  try {
    return await work({ onEvent: display.onEvent });
  } finally {
    if (c.signals) Deno.removeSignalListener("SIGINT", interrupt);
  }
}

function showTurn(c: CliContext, display: TurnDisplay, result: TurnResult): void {
  display.finish(result);
  if (result.aborted) c.io.err("(interrupted)\n");
}

/** The interactive or piped conversation; false when a turn failed. */
async function converse(
  c: CliContext,
  conversation: Conversation,
  lines: LineReader,
): Promise<boolean> {
  let exit: ClosedConversation | undefined;
  let failed = false;
  if (c.interactive) {
    c.io.err(
      `Herald ${VERSION} · ${conversation.provider}/${conversation.model} · ` +
        "/help for commands, /exit to leave\n",
    );
    // Scan skills and bundles now, so a broken file is reported before the first prompt.
    await conversation.catalog?.snapshot().catch(() => {});
  }
  for (;;) {
    if (c.interactive) c.io.out("› ");
    const line = await lines.next();
    if (line === null) break;
    if (line.trim() === "") continue;
    const display = new TurnDisplay(c.io, true);
    let result: ConversationResult;
    try {
      result = await withInterrupt(
        c,
        conversation,
        (o) => conversation.input(line, { ...o, onNotice: (text) => c.io.out(`${text}\n`) }),
        display,
      );
    } catch (error) {
      // Nobody reads the answers any more: end the run (cli/errors.ts exits 0 quietly).
      if (error instanceof OutputClosedError) throw error;
      failed = true;
      c.io.err(`herald: ${(error as Error).message}\n`);
      continue;
    }
    if (result.kind === "turn") showTurn(c, display, result.result);
    else if (result.kind === "exit") {
      exit = result;
      break;
    } else c.io.out(`${result.text}\n`);
  }
  const sessionId = exit ? exit.sessionId : conversation.sessionId;
  if (exit?.deleted) c.io.err(`Deleted session ${exit.sessionId}.\n`);
  else if (sessionId && c.interactive) {
    c.io.err(`Session ${sessionId} saved; continue with: herald chat --resume ${sessionId}\n`);
  }
  return !failed;
}

/** Where `herald chat` starts: a new session, a stored one, or the picker. */
interface StartPoint {
  resume?: string;
  /** Open the session picker first (`herald resume` without an id). */
  pick?: boolean;
}

/** True when the interactive chat draws its terminal UI (both ends are a terminal). */
function wantsTui(c: CliContext, options: ChatOptions): boolean {
  return c.interactive && c.signals && !options.plain && Deno.stdout.isTerminal();
}

/** The interactive chat in the terminal UI (cli/tui/launch.ts, loaded only here). */
async function chatInTui(c: CliContext, options: ChatOptions, start: StartPoint): Promise<void> {
  // A missing profile is reported before the screen is taken.
  await c.paths();
  const launch = await importLazily<typeof import("../tui/launch.ts")>("cli/tui/launch.ts");
  const result = await launch.runInteractiveChat({
    env: c.env,
    profile: c.profileSource === "flag" ? c.profile : undefined,
    options,
    start: { resume: start.resume, pick: start.pick, continueHere: options.continue },
    input: c.input(),
  });
  c.io.err(launch.farewell(result));
  if (result.startFailed) {
    throw new HeraldError("chat_not_started", "state", "the chat could not start (see above)");
  }
  if (result.failed) throw turnFailed();
}

function turnFailed(): HeraldError {
  return new HeraldError(
    "chat_turn_failed",
    "state",
    "one or more turns failed (see the messages above)",
  );
}

/** `herald chat` and `herald resume`: one question, the terminal UI, or the plain line loop. */
async function chat(c: CliContext, options: ChatOptions, start: StartPoint): Promise<void> {
  const oneShot = options.query !== undefined;
  if (!oneShot && wantsTui(c, options)) return await chatInTui(c, options, start);
  if (options.continue) {
    start = { resume: await continueTarget(await c.profileContext(), Deno.cwd()) };
  }
  if (start.pick) {
    throw new HeraldError(
      "session_id_required",
      "usage",
      "Without a terminal there is no picker: give the session id (`herald resume <id>`; " +
        "list them with `herald sessions list`)",
    );
  }
  const lines = oneShot ? undefined : new LineReader(c.input());
  try {
    const runtime = await openAgentRuntimeLazily(await c.paths(), {
      ...chatRuntimeOptions(options, c.env, oneShot),
      approvals: terminalApprovals(c.io, c.interactive && !oneShot ? lines : undefined),
      onWarning: (file, message) => c.io.err(`herald: warning: ${file}: ${message}\n`),
    });
    if (runtime.approvals.yolo) c.io.err(`herald: ${YOLO_NOTICE}\n`);
    const conversation = await Conversation.open({ runtime, resume: start.resume });
    try {
      if (oneShot) {
        const display = new TurnDisplay(c.io, false);
        const result = await withInterrupt(
          c,
          conversation,
          (o) => conversation.ask(options.query!, o),
          display,
        );
        showTurn(c, display, result);
        if (options.json) {
          printJson(c.io, { ...turnView(result), stopped: result.stopped?.code ?? null });
        } else {
          c.io.out(`${result.response}\n`);
        }
      } else if (!(await converse(c, conversation, lines!))) {
        throw turnFailed();
      }
    } finally {
      await conversation.close();
    }
  } finally {
    await lines?.close();
  }
}

/** The options `chat` and `resume` share. */
function chatOptions(command: Command): Command {
  return command
    .option("-m, --model <name>", "model name for this run")
    .option("--provider <id>", "provider for this run (openai, openrouter, anthropic, custom, ...)")
    .option("--base-url <url>", "endpoint for this run")
    .option("--source <name>", "surface name stored with new sessions", "cli")
    .option(
      "--yolo",
      "run dangerous commands without asking (hardline commands and approvals.deny are still refused)",
    )
    .option("--plain", "a plain line prompt instead of the terminal UI")
    .option("--no-color", "no colours (NO_COLOR=1 does the same)");
}

/** Adds `chat` and `resume` to `program`. */
export function registerChat(program: Command, ctx: () => CliContext): void {
  chatOptions(
    program.command("chat")
      .description(
        "talk to the agent (interactive, piped one turn per line, or one question with -q)",
      )
      .argument("[prompt...]", "ask this one question (the same as -q)")
      .option("-q, --query <prompt>", "ask one question, print only the final answer, and exit")
      .option("--json", "with -q: print the session id, response and tool calls as JSON")
      .option("-r, --resume <id>", "continue a stored session")
      .option("-c, --continue", "continue the last session started in this folder"),
  ).action(async (prompt: string[], _options: ChatOptions, command: Command) => {
    const options = command.optsWithGlobals() as ChatOptions;
    if (prompt.length > 0) {
      if (options.query !== undefined) {
        throw new HeraldError(
          "prompt_twice",
          "usage",
          'Give the question once: either `herald chat "..."` or `herald chat -q "..."`',
        );
      }
      options.query = prompt.join(" ");
    }
    await chat(ctx(), options, { resume: options.resume });
  });

  chatOptions(
    program.command("resume [session]")
      .description("continue a stored session; without an id, pick one from the recent sessions"),
  ).action(async (session: string | undefined, _options: ChatOptions, command: Command) => {
    const options = command.optsWithGlobals() as ChatOptions;
    await chat(ctx(), options, session ? { resume: session } : { pick: true });
  });
}

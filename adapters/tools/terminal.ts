/**
 * The `terminal` tool: runs a shell command in the session's working
 * directory and returns its exit code and output. Core's `judgeCommand`
 * (core/tools/command_guard.ts) decides whether a command is refused, needs
 * the user's approval first, or runs. The command runs in its own process
 * group, so a timeout or an interrupt ends everything it started, not only
 * the shell. Its environment is the allowlist of
 * adapters/process/child_env.ts plus the profile's `terminal.env_passthrough`
 * names, never Herald's whole environment.
 *
 * @module
 */

import { z } from "zod";
import { judgeCommand } from "../../core/tools/command_guard.ts";
import { defineTypedTool, ToolError, type TypedTool } from "../../core/tools/types.ts";
import {
  childEnvironment,
  type ProcessGroup,
  type SignalSender,
  spawnProcessGroup,
} from "../process/mod.ts";
import { resolveToolPath, userHome } from "./_paths.ts";

/** Seconds a command may run when the model gives no timeout. */
export const TERMINAL_DEFAULT_TIMEOUT_S = 180;
/** The longest timeout the model may ask for, in seconds. */
export const TERMINAL_MAX_TIMEOUT_S = 600;
/** Characters kept of stdout and of stderr, each (the first 40% and the last 60%). */
export const TERMINAL_MAX_OUTPUT_CHARS = 50_000;

/** Options of {@link createTerminalTool}. */
export interface TerminalOptions {
  /** Characters kept of each output stream (default {@link TERMINAL_MAX_OUTPUT_CHARS}). */
  maxOutputChars?: number;
  /** Milliseconds between SIGTERM and SIGKILL when a command is stopped (default 2000). */
  killGraceMs?: number;
  /**
   * Milliseconds to keep reading output after the shell exits, for background
   * processes that still hold its pipes (default 500). They keep running; their
   * later output is not captured.
   */
  drainMs?: number;
  /** Variables set for every command, over the allowlisted ones. */
  env?: Record<string, string>;
  /** Herald's environment, which the allowlist picks from (default: `Deno.env` at each command). */
  baseEnv?: Readonly<Record<string, string | undefined>>;
  /** Names passed on besides the allowlist: the profile's `terminal.env_passthrough`. */
  envPassthrough?: readonly string[];
  /**
   * Where passthrough names are looked up (default: `baseEnv`); a profile
   * passes its credentials (its `.env`, then the environment).
   */
  envLookup?: (name: string) => string | undefined;
  /** How signals reach the command's process group (default `Deno.kill`); tests record them. */
  kill?: SignalSender;
  /** Folder that `~` in `workdir` expands to; defaults to the user's home. */
  homeDir?: string;
  /** The profile's `approvals.deny` patterns: matching commands are refused, never asked. */
  denyPatterns?: readonly string[];
}

/** Result of the `terminal` tool. A non-zero exit code is a normal result. */
export interface TerminalResult {
  exit_code: number;
  stdout: string;
  stderr: string;
  timed_out: boolean;
  duration_ms: number;
}

const terminalArgs = z.object({
  command: z.string().min(1).describe("Shell command line, run with bash -c (sh -c without bash)."),
  timeout: z.number().int().min(1).max(TERMINAL_MAX_TIMEOUT_S).optional().describe(
    `Seconds before the command and everything it started are killed (default ${TERMINAL_DEFAULT_TIMEOUT_S}, max ${TERMINAL_MAX_TIMEOUT_S}).`,
  ),
  workdir: z.string().optional().describe(
    "Folder to run in, relative to the session's working directory (default: that directory).",
  ),
});

/** Arguments of the `terminal` tool. */
export type TerminalArgs = z.infer<typeof terminalArgs>;

/**
 * Creates the `terminal` tool.
 *
 * @example
 * ```ts
 * const terminal = createTerminalTool();
 * await terminal.run({ command: "ls -la" }, ctx);
 * // { exit_code: 0, stdout: "...", stderr: "", timed_out: false, duration_ms: 4 }
 * ```
 */
export function createTerminalTool(
  options: TerminalOptions = {},
): TypedTool<TerminalArgs, TerminalResult> {
  const maxChars = options.maxOutputChars ?? TERMINAL_MAX_OUTPUT_CHARS;
  const graceMs = options.killGraceMs ?? 2000;
  const drainMs = options.drainMs ?? 500;

  return defineTypedTool({
    name: "terminal",
    description:
      "Run a shell command in the working directory and return exit_code, stdout and stderr. " +
      "stdin is closed, so use non-interactive flags (-y, --no-pager). " +
      `The command is killed after \`timeout\` seconds (default ${TERMINAL_DEFAULT_TIMEOUT_S}). ` +
      "Destructive commands (recursive deletes, force pushes, disk writes ...) ask the user first. " +
      `Each stream keeps the first and last parts of its output, ${
        maxChars.toLocaleString("en-US")
      } characters in all.`,
    schema: terminalArgs,
    async run(args, context): Promise<TerminalResult> {
      if (context.signal.aborted) throw interrupted(0);
      const cwd = args.workdir === undefined
        ? context.cwd
        : resolveToolPath(args.workdir, context.cwd, options.homeDir ?? userHome());
      await checkDirectory(cwd);

      const verdict = judgeCommand(args.command, options.denyPatterns ?? []);
      if (verdict.kind === "refuse") throw new ToolError(verdict.code, verdict.reason);
      if (verdict.kind === "ask") {
        const approved = await context.approve({
          tool: "terminal",
          command: args.command,
          reason: verdict.reason,
          ruleKey: verdict.ruleKey,
        });
        if (!approved) {
          throw new ToolError(
            "denied",
            `The command was not approved: ${verdict.reason}. Ask the user or use a safer command.`,
          );
        }
      }
      if (context.signal.aborted) throw interrupted(0);

      const started = performance.now();
      const base = options.baseEnv ?? Deno.env.toObject();
      const env = childEnvironment(base, {
        passthrough: options.envPassthrough,
        lookup: options.envLookup,
        extra: options.env,
      });
      const group = spawnShell(args.command, cwd, env);
      const { child } = group;
      const stdout = pump(child.stdout, new HeadTail(maxChars));
      const stderr = pump(child.stderr, new HeadTail(maxChars));

      let timedOut = false;
      let stopping: Promise<void> | undefined;
      const stop = () => {
        // Once the shell has exited, what it left running is not ours to signal.
        if (group.exited()) return;
        stopping ??= group.terminate({ graceMs, kill: options.kill });
      };
      const timeoutMs = (args.timeout ?? TERMINAL_DEFAULT_TIMEOUT_S) * 1000;
      const timer = setTimeout(() => {
        timedOut = true;
        stop();
      }, timeoutMs);
      context.signal.addEventListener("abort", stop, { once: true });

      let status: Deno.CommandStatus;
      try {
        status = await group.status;
        clearTimeout(timer);
        if (stopping) await stopping;
        if (!(await settlesWithin(Promise.all([stdout.done, stderr.done]), drainMs))) {
          await Promise.all([stdout.cancel(), stderr.cancel()]);
        }
        if (stopping) await stopping;
      } finally {
        clearTimeout(timer);
        context.signal.removeEventListener("abort", stop);
      }

      const durationMs = Math.round(performance.now() - started);
      if (context.signal.aborted && !timedOut) throw interrupted(durationMs);
      return {
        exit_code: status.code,
        stdout: stdout.sink.text(),
        stderr: stderr.sink.text(),
        timed_out: timedOut,
        duration_ms: durationMs,
      };
    },
  });
}

function interrupted(durationMs: number): ToolError {
  return new ToolError(
    "interrupted",
    `The command was interrupted by the user after ${
      (durationMs / 1000).toFixed(1)
    }s and was stopped`,
  );
}

async function checkDirectory(path: string): Promise<void> {
  try {
    if (!(await Deno.stat(path)).isDirectory) {
      throw new ToolError("not_a_directory", `Working directory "${path}" is not a directory`);
    }
  } catch (error) {
    if (error instanceof ToolError) throw error;
    if (error instanceof Deno.errors.NotFound) {
      throw new ToolError("not_found", `Working directory "${path}" does not exist`);
    }
    throw new ToolError(
      "not_found",
      `Working directory "${path}" cannot be used: ${
        error instanceof Error ? error.message : error
      }`,
    );
  }
}

/** Spawns `bash -c command` (or `sh -c` where bash is missing) at the head of its own process tree. */
function spawnShell(command: string, cwd: string, env: Record<string, string>): ProcessGroup {
  const spawn = (shell: string) =>
    spawnProcessGroup(shell, {
      args: ["-c", command],
      cwd,
      env,
      clearEnv: true,
      stdin: "null",
      stdout: "piped",
      stderr: "piped",
    });
  try {
    return spawn("bash");
  } catch (error) {
    if (!(error instanceof Deno.errors.NotFound)) throw error;
    return spawn("sh");
  }
}

/** Resolves true when `promise` settles within `ms`, false otherwise. */
async function settlesWithin(promise: Promise<unknown>, ms: number): Promise<boolean> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<false>((resolve) => (timer = setTimeout(() => resolve(false), ms)));
  try {
    return await Promise.race([promise.then(() => true, () => true), late]);
  } finally {
    clearTimeout(timer);
  }
}

/** Reads a byte stream into `sink` as text until it ends or is cancelled. */
function pump(
  stream: ReadableStream<Uint8Array>,
  sink: HeadTail,
): { sink: HeadTail; done: Promise<void>; cancel(): Promise<void> } {
  const reader = stream.getReader();
  const decoder = new TextDecoder();
  const done = (async () => {
    try {
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        sink.push(decoder.decode(value, { stream: true }));
      }
      sink.push(decoder.decode());
    } catch {
      // The stream failed or was cancelled; keep what was read.
    }
  })();
  return {
    sink,
    done,
    async cancel() {
      await reader.cancel().catch(() => {});
      await done;
    },
  };
}

/**
 * Keeps the first 40% and the last 60% of a long text in bounded memory,
 * counting what falls in between.
 */
export class HeadTail {
  #head = "";
  #tail = "";
  #total = 0;
  readonly #headMax: number;
  readonly #tailMax: number;

  /** Creates a buffer that keeps at most `maxChars` characters (plus a marker). */
  constructor(maxChars: number) {
    this.#headMax = Math.floor(maxChars * 0.4);
    this.#tailMax = maxChars - this.#headMax;
  }

  /** Appends text. */
  push(text: string): void {
    this.#total += text.length;
    if (this.#head.length < this.#headMax) {
      const room = this.#headMax - this.#head.length;
      this.#head += text.slice(0, room);
      text = text.slice(room);
    }
    if (text === "") return;
    this.#tail += text;
    if (this.#tail.length > this.#tailMax * 2) this.#tail = this.#tail.slice(-this.#tailMax);
  }

  /** The kept text, with a marker saying how much was cut from the middle. */
  text(): string {
    if (this.#total <= this.#headMax + this.#tailMax) return this.#head + this.#tail;
    const tail = this.#tail.slice(-this.#tailMax);
    const omitted = this.#total - this.#head.length - tail.length;
    return `${this.#head}\n\n[... output truncated: ${
      omitted.toLocaleString("en-US")
    } characters omitted ...]\n\n${tail}`;
  }
}

/**
 * The tool contract: a named action with zod-validated arguments and a
 * JSON result. Core declares it; tools that touch the outside world are
 * implemented in adapters/tools and registered by the caller.
 *
 * @module
 */

import type { z } from "zod";

/** A user's answer to an approval request. */
export type ApprovalChoice = "once" | "session" | "always" | "deny";

/** A dangerous action waiting for the user's decision. */
export interface ApprovalRequest {
  /** The tool asking, e.g. `terminal`. */
  tool: string;
  /** The exact command or action. */
  command: string;
  /** Why it was flagged, e.g. `recursive delete`. */
  reason: string;
  /** A stable key for "session"/"always" approvals (the matched rule). */
  ruleKey: string;
}

/**
 * Decides approval requests (interactive prompt, policy, or deny-all for
 * non-interactive runs). `signal` is the turn's: once it is aborted the
 * answer no longer matters, and a handler should withdraw its question and
 * deny.
 */
export type ApprovalHandler = (
  request: ApprovalRequest,
  options: { signal: AbortSignal },
) => Promise<ApprovalChoice>;

/**
 * What a call shows the user beside its result; never sent to the model.
 * Surfaces get it on the call's `tool_end` when the call succeeded.
 */
export interface ToolDisplay {
  /**
   * write_file: the file's text before the write (null: the file was new),
   * read by the tool once the write guard allowed the write.
   */
  before?: string | null;
}

/** What a running tool can see of its session. */
export interface ToolContext {
  sessionId: string;
  /** Working directory for relative paths and commands. */
  cwd: string;
  /** The profile home (memories live under it). */
  home: string;
  signal: AbortSignal;
  /**
   * The chat the turn serves as a delivery target (`telegram:<chat>`), when
   * it is one (a gateway conversation): what the agent schedules there
   * delivers back to it.
   */
  origin?: string;
  /** Asks for approval of a dangerous action; resolves to the decision. */
  approve(request: Omit<ApprovalRequest, "ruleKey"> & { ruleKey?: string }): Promise<boolean>;
  /**
   * Hands the surfaces something to show beside the result (the registry
   * sets it for each call; the last call of it wins). Absent: nobody shows it.
   */
  display?(display: ToolDisplay): void;
}

/** Lint outcome of a written file: the syntax tier. */
export interface LintResult {
  status: "ok" | "error" | "skipped";
  output: string;
}

/** A tool: name, description, argument schema and the function that runs it. */
export interface Tool<Args = unknown> {
  name: string;
  description: string;
  /** zod schema of the arguments; also rendered as the JSON Schema sent to the model. */
  schema: z.ZodType<Args>;
  /**
   * The JSON Schema sent to the model instead of the one rendered from
   * `schema`: for tools whose schema comes from elsewhere (an MCP server's
   * `inputSchema`), checked by their owner rather than by zod.
   */
  parameters?: Record<string, unknown>;
  /** Runs the tool. The returned value is sent to the model as JSON. Throw for a failure. */
  run(args: Args, context: ToolContext): Promise<unknown>;
  /**
   * For file tools: the path this call mutates, so the turn can track failed
   * writes (the file-mutation verifier). Absent for tools that write no file.
   */
  mutatedPath?(args: Args, context: ToolContext): string;
  /** True for tools that change nothing; their calls run in parallel with anything. */
  readOnly?: boolean;
}

/** A tool failure the model should read (bad path, not found, not unique ...). */
export class ToolError extends Error {
  /** Creates the error with a machine-readable `code` and a message for the model. */
  constructor(readonly code: string, message: string) {
    super(message);
    this.name = "ToolError";
  }
}

/** Declares a tool with its argument type inferred from the schema. */
export function defineTool<S extends z.ZodType>(
  tool: Omit<Tool<z.infer<S>>, "schema"> & { schema: S },
): Tool<z.infer<S>> {
  return tool as Tool<z.infer<S>>;
}

/** A tool whose `run` resolves to `Result`, so callers and tests get typed results. */
export type TypedTool<Args, Result> = Omit<Tool<Args>, "run"> & {
  run(args: Args, context: ToolContext): Promise<Result>;
};

/** {@link defineTool} keeping the result type of `run`; the registry still sees a plain {@link Tool}. */
export function defineTypedTool<S extends z.ZodType, Result>(
  tool: Omit<Tool<z.infer<S>>, "schema" | "run"> & {
    schema: S;
    run(args: z.infer<S>, context: ToolContext): Promise<Result>;
  },
): TypedTool<z.infer<S>, Result> {
  return defineTool(tool) as TypedTool<z.infer<S>, Result>;
}

/**
 * The tool registry: the fixed, ordered set of tools a session offers, their
 * JSON Schemas for the model, and validated execution of one call.
 *
 * @module
 */

import { z } from "zod";
import type { ToolCall, ToolSpec } from "../models/types.ts";
import { type Tool, type ToolContext, type ToolDisplay, ToolError } from "./types.ts";

/**
 * The outcome of one tool call; `content` is what the model receives,
 * `display` what the tool gave the surfaces to show beside it.
 */
export type ToolOutcome =
  | { ok: true; result: unknown; content: string; mutatedPath?: string; display?: ToolDisplay }
  | { ok: false; code: string; message: string; content: string; mutatedPath?: string };

function jsonSchemaOf(schema: z.ZodType): Record<string, unknown> {
  const { $schema: _ignored, ...rest } = z.toJSONSchema(schema, { io: "input" }) as Record<
    string,
    unknown
  >;
  return rest;
}

function failure(code: string, message: string, mutatedPath?: string): ToolOutcome {
  return {
    ok: false,
    code,
    message,
    content: JSON.stringify({ error: message, code }),
    mutatedPath,
  };
}

/** An ordered set of tools. The order is part of the prompt prefix, so it never changes. */
export class ToolRegistry {
  readonly #tools: Map<string, Tool>;
  readonly #specs: ToolSpec[];

  /** Registers `tools` in the given order; duplicate names are a programming error. */
  constructor(tools: readonly Tool[]) {
    this.#tools = new Map();
    for (const tool of tools) {
      if (this.#tools.has(tool.name)) throw new TypeError(`Tool "${tool.name}" registered twice`);
      this.#tools.set(tool.name, tool as Tool);
    }
    this.#specs = tools.map((tool) => ({
      name: tool.name,
      description: tool.description,
      parameters: tool.parameters ?? jsonSchemaOf(tool.schema as z.ZodType),
    }));
  }

  /** The tool definitions sent to the model, always the same array in the same order. */
  specs(): readonly ToolSpec[] {
    return this.#specs;
  }

  /** The tool called `name`, if registered. */
  get(name: string): Tool | undefined {
    return this.#tools.get(name);
  }

  /**
   * Where a call may run: calls with the same lane run one after another,
   * different lanes run in parallel. Read-only tools get a lane of their own;
   * file tools share a lane per path; other tools one lane per tool.
   */
  lane(call: ToolCall, context: ToolContext, index: number): string {
    const tool = this.#tools.get(call.name);
    if (!tool || tool.readOnly) return `#${index}`;
    const path = this.mutatedPath(call, context);
    return path ? `path:${path}` : `tool:${tool.name}`;
  }

  #parse(tool: Tool, call: ToolCall): { ok: true; args: unknown } | { ok: false; message: string } {
    let raw: unknown;
    try {
      raw = call.arguments.trim() === "" ? {} : JSON.parse(call.arguments);
    } catch (error) {
      return { ok: false, message: `arguments are not valid JSON: ${(error as Error).message}` };
    }
    const parsed = (tool.schema as z.ZodType).safeParse(raw);
    if (!parsed.success) {
      const issues = parsed.error.issues.map((issue) =>
        `${issue.path.join(".") || "(arguments)"}: ${issue.message}`
      );
      return { ok: false, message: `invalid arguments for ${tool.name}: ${issues.join("; ")}` };
    }
    return { ok: true, args: parsed.data };
  }

  /**
   * The path a call is about to change (its tool's `mutatedPath`), or
   * undefined for a call that changes no file, names no tool, or whose
   * arguments do not parse (the call then fails without writing).
   */
  mutatedPath(call: ToolCall, context: ToolContext): string | undefined {
    const tool = this.#tools.get(call.name);
    if (!tool?.mutatedPath) return undefined;
    const parsed = this.#parse(tool, call);
    return parsed.ok ? tool.mutatedPath(parsed.args, context) : undefined;
  }

  /** Validates the arguments and runs the call; never throws for a tool's own failure. */
  async execute(call: ToolCall, context: ToolContext): Promise<ToolOutcome> {
    const tool = this.#tools.get(call.name);
    if (!tool) {
      return failure(
        "unknown_tool",
        `No tool named "${call.name}"; use one of: ${[...this.#tools.keys()].join(", ")}`,
      );
    }
    const parsed = this.#parse(tool, call);
    if (!parsed.ok) return failure("invalid_arguments", parsed.message);
    const mutatedPath = tool.mutatedPath?.(parsed.args, context);
    let display: ToolDisplay | undefined;
    try {
      const result = await tool.run(parsed.args, {
        ...context,
        display: (shown) => display = shown,
      });
      return {
        ok: true,
        result,
        content: JSON.stringify(result ?? null),
        mutatedPath,
        ...(display ? { display } : {}),
      };
    } catch (error) {
      if (context.signal.aborted) {
        return failure("interrupted", "interrupted by the user", mutatedPath);
      }
      if (error instanceof ToolError) return failure(error.code, error.message, mutatedPath);
      return failure(
        "tool_failed",
        `${tool.name} failed: ${(error as Error)?.message ?? error}`,
        mutatedPath,
      );
    }
  }
}

/**
 * Tools whose `run` result type is known, so callers and tests get typed
 * results while the registry still sees a plain {@link Tool}.
 *
 * @module
 */

import type { z } from "zod";
import { defineTool, type Tool, type ToolContext } from "../../core/tools/types.ts";

/** A tool whose `run` resolves to `Result`. */
export type TypedTool<Args, Result> = Omit<Tool<Args>, "run"> & {
  run(args: Args, context: ToolContext): Promise<Result>;
};

/** {@link defineTool} keeping the result type of `run`. */
export function defineTypedTool<S extends z.ZodType, Result>(
  tool: Omit<Tool<z.infer<S>>, "schema" | "run"> & {
    schema: S;
    run(args: z.infer<S>, context: ToolContext): Promise<Result>;
  },
): TypedTool<z.infer<S>, Result> {
  return defineTool(tool) as TypedTool<z.infer<S>, Result>;
}

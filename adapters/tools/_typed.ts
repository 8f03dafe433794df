/**
 * Tools whose `run` result type is known. They are defined beside
 * {@link defineTool} in core/tools/types.ts (adapters/skills uses them too);
 * this re-export serves the tool modules of this folder.
 *
 * @module
 */

export { defineTypedTool, type TypedTool } from "../../core/tools/types.ts";

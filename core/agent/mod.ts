/**
 * The agent: system prompt, turn loop, file-mutation verifier, plugin hooks.
 *
 * @module
 */

export * from "./prompt.ts";
export * from "./session.ts";
export * from "./verifier.ts";
export * from "./hooks.ts";
export type { SessionFiles, TranscriptEntry } from "../sessions/files.ts";
export * from "./history.ts";

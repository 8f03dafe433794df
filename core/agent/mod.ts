/**
 * The agent: system prompt, turn loop, context compression, loop guard,
 * file-mutation verifier, plugin hooks,
 * the turn-runtime port, the conversation object and the approval policy of
 * a profile's sessions.
 *
 * @module
 */

export * from "./prompt.ts";
export * from "./session.ts";
export * from "./turn_runtime.ts";
export * from "./conversation.ts";
export * from "./approvals.ts";
export * from "./session_config.ts";
export * from "./verifier.ts";
export * from "./hooks.ts";
export type { SessionFiles, TranscriptEntry } from "../sessions/files.ts";
export * from "./history.ts";
export * from "./compression.ts";
export * from "./loop_guard.ts";

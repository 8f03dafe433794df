/**
 * Checkpoints on disk: the content store behind core's `CheckpointStore`
 * (core/agent/checkpoints.ts).
 *
 * @module
 */

export * from "./file_store.ts";

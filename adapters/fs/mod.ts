/**
 * File-system primitives every adapter shares: atomic file replacement,
 * per-file locks held across processes, and reading what may not be there.
 *
 * @module
 */

export * from "./atomic.ts";
export * from "./read.ts";
export * from "./file_lock.ts";

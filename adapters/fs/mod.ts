/**
 * File-system primitives every adapter shares: atomic file replacement and
 * per-file locks held across processes.
 *
 * @module
 */

export * from "./atomic.ts";
export * from "./file_lock.ts";

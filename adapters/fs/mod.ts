/**
 * File-system primitives every adapter shares: atomic file replacement,
 * per-file locks held across processes, reading what may not be there, and
 * changing a text file under its lock.
 *
 * @module
 */

export * from "./atomic.ts";
export * from "./read.ts";
export * from "./file_lock.ts";
export * from "./text_file.ts";

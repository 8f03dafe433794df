/**
 * Pseudo-terminals: a program behind a pty, and ending its whole session
 * (through adapters/process/kill_tree.ts).
 *
 * @module
 */

export * from "./pty.ts";

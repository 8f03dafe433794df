/**
 * Pseudo-terminals: a program behind a pty, and ending its whole session.
 *
 * @module
 */

export * from "./pty.ts";

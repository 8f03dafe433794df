/**
 * Child processes: the environment they start with, starting a program at
 * the head of its own process tree, ending a whole tree, and the command
 * that runs Herald itself (from source or a compiled binary).
 *
 * @module
 */

export * from "./child_env.ts";
export * from "./herald_command.ts";
export * from "./kill_tree.ts";
export * from "./spawn_group.ts";
export * from "./stderr_tail.ts";
export * from "./stdio_server.ts";

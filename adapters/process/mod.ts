/**
 * Child processes: the environment they start with, starting a program at
 * the head of its own process tree, and ending a whole tree.
 *
 * @module
 */

export * from "./child_env.ts";
export * from "./kill_tree.ts";
export * from "./spawn_group.ts";

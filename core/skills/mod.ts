/**
 * Skills and skill bundles: file formats, the catalog contract, the
 * invocation messages and slash autocomplete. Pure; the files are found
 * and read by adapters/skills.
 *
 * @module
 */

export * from "./skill.ts";
export * from "./bundles.ts";
export * from "./catalog.ts";
export * from "./messages.ts";
export * from "./complete.ts";
export * from "./errors.ts";
export * from "./summary.ts";

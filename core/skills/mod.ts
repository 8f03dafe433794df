/**
 * Skills and skill bundles: file formats, the catalog contract, the
 * invocation messages, slash autocomplete and the JSON views. Pure; the files are found
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
export * from "./library.ts";
export * from "./views.ts";

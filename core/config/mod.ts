/**
 * Configuration: the schema, reading, editing and secret routing. Pure
 * functions over text; adapters/home does the file I/O.
 *
 * @module
 */

export * from "./schema.ts";
export * from "./load.ts";
export * from "./edit.ts";
export * from "./values.ts";
export * from "./secrets.ts";
export * from "./redact.ts";
export { knownKeyPaths } from "./_walk.ts";
export * from "./env_text.ts";
export * from "./limits.ts";
export * from "./text_version.ts";
export * from "./provider_check.ts";
export * from "./json_schema.ts";

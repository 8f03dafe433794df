/**
 * Pure helpers of the language-server diagnostics: matching, filtering and
 * formatting diagnostics, and which server handles which file.
 *
 * @module
 */

export * from "./diagnostics.ts";
export * from "./servers.ts";

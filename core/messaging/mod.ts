/**
 * Messaging platforms: the catalog and the configuration check.
 *
 * @module
 */

export * from "./platforms.ts";

/**
 * MCP servers: the config entries and the built-in catalog. The client that
 * talks to a server lives outside core.
 *
 * @module
 */

export * from "./servers.ts";
export * from "./catalog.ts";

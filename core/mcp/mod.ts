/**
 * MCP servers: the config entries, the built-in catalog and how their tools
 * are named for the model. The client that talks to a server lives outside
 * core (adapters/mcp).
 *
 * @module
 */

export * from "./servers.ts";
export * from "./catalog.ts";
export * from "./tools.ts";

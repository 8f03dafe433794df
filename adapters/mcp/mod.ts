/**
 * MCP servers from the outside: checking that one answers the `initialize`
 * handshake, over stdio or Streamable HTTP.
 *
 * @module
 */

export * from "./probe.ts";

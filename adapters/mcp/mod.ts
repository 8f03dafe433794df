/**
 * MCP servers from the outside: checking that one answers the `initialize`
 * handshake, over stdio or Streamable HTTP, and the Streamable HTTP
 * transport as a port of the JSON-RPC peer.
 *
 * @module
 */

export * from "./http_port.ts";
export * from "./probe.ts";

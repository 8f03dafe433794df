/**
 * Framings of the JSON-RPC peer (core/rpc/) over byte streams such as a
 * child process's stdio: newline-delimited JSON (Codex app-server, MCP
 * stdio) and `Content-Length` headers (language servers).
 *
 * @module
 */

export * from "./connection.ts";
export * from "./content_length.ts";
export * from "./ndjson.ts";

/**
 * The dashboard's WebSocket endpoints: the JSON-RPC gateway behind
 * `/api/ws` and the pseudo-terminal bridge behind `/api/pty`.
 *
 * @module
 */

export * from "./jsonrpc.ts";
export * from "./limits.ts";
export * from "./live.ts";
export * from "./approvals.ts";
export * from "./gateway.ts";
export * from "./pty_bridge.ts";
export * from "./pty_launch.ts";
export * from "./upgrade.ts";

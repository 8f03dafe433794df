/**
 * The gateway's JSON-RPC methods, one handler map per domain; the gateway
 * (server/ws/gateway.ts) merges them for each connection.
 *
 * @module
 */

export { approvalMethods } from "./approval.ts";
export { commandMethods } from "./commands.ts";
export { eventMethods } from "./events.ts";
export { closeSession, sessionMethods } from "./session.ts";
export { setupMethods } from "./setup.ts";

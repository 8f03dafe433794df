/**
 * JSON-RPC 2.0: the vocabulary (ids, messages, error codes, methods checked
 * by zod), the serving of one incoming message, and the peer that both
 * serves and calls over any framing.
 *
 * @module
 */

export * from "./errors.ts";
export * from "./limits.ts";
export * from "./peer.ts";
export * from "./protocol.ts";
export * from "./serve.ts";

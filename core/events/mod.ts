/**
 * The typed event bus: session, message, tool and approval events defined
 * once with zod schemas (`schema.ts`), published by the conversation object
 * and subscribed to by any surface (`bus.ts`).
 *
 * @module
 */

export * from "./schema.ts";
export * from "./bus.ts";

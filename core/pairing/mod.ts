/**
 * Pairing: the store's port ({@link PairingStore}) and the rules of its
 * codes. The gateway decides who needs a code (core/channels/access.ts);
 * the owner lists, approves and revokes through core/usecases/pairing.ts.
 *
 * @module
 */

export * from "./codes.ts";
export type * from "./store.ts";

/**
 * The ports the gateway keeps its promises through: the delivery ledger
 * (every reply is an obligation until the platform confirms it) and the
 * pairing store (who may talk to the bot without being on an allowlist).
 * adapters/sqlite implements the ledger in the profile's state.db and
 * adapters/channels the pairing store in the profile's home.
 *
 * @module
 */

import type { ChatAddress, OutboundReply } from "./contract.ts";

/** Where an obligation stands. */
export type ObligationStatus = "pending" | "sending" | "delivered" | "failed";

/** A reply the gateway owes a chat. */
export interface Obligation {
  id: number;
  to: ChatAddress;
  reply: OutboundReply;
  /** The inbound message's reply context, when it is plain JSON (LINE's reply token is). */
  context?: unknown;
  /** The session the reply belongs to. */
  sessionId?: string;
  status: ObligationStatus;
  attempts: number;
  /** ms since the epoch. */
  createdAt: number;
  updatedAt: number;
  lastError?: string;
}

/** What {@link DeliveryLedger.record} stores. */
export interface NewObligation {
  to: ChatAddress;
  reply: OutboundReply;
  context?: unknown;
  sessionId?: string;
}

/**
 * The delivery ledger. A reply is recorded before it is sent, marked
 * `sending` right before the platform is called and `delivered` once it
 * confirmed. After a crash, what is still `pending` was never sent and what
 * is `sending` may have been: both are sent again, the second marked as a
 * possible duplicate. Safe with two processes on the same database.
 */
export interface DeliveryLedger {
  /** Records an obligation (`pending`) and returns it. */
  record(obligation: NewObligation): Obligation | Promise<Obligation>;
  /** Marks `id` as being sent and counts the attempt. */
  markSending(id: number): void | Promise<void>;
  /** Marks `id` delivered with the platform's message ids. */
  markDelivered(id: number, messageIds: readonly string[]): void | Promise<void>;
  /**
   * Records a failed attempt: back to `pending` to be tried again, or
   * `failed` for good with `final`.
   */
  markFailed(id: number, error: string, final: boolean): void | Promise<void>;
  /**
   * Obligations of `platform` that are not delivered, created after
   * `since` (ms), with fewer than `maxAttempts` attempts, oldest first.
   */
  unfinished(
    platform: string,
    since: number,
    maxAttempts: number,
  ): Obligation[] | Promise<Obligation[]>;
  /** Removes delivered and failed obligations last changed before `before` (ms); returns how many. */
  prune(before: number): number | Promise<number>;
}

// The pairing store's port lives in core/pairing/ (below core/channels and
// core/usecases, so the profile context can offer it without an import cycle).
export type { PairedUser, PairingList, PairingRequest, PairingStore } from "../pairing/store.ts";

/**
 * The ports the gateway keeps its promises through: the inbound journal
 * (every allowed message is written down before the platform is told it
 * arrived, until it is answered), the delivery ledger (every reply is an
 * obligation until the platform confirms it) and the pairing store (who may
 * talk to the bot without being on an allowlist). adapters/sqlite
 * implements the journal and the ledger in the profile's state.db and
 * adapters/channels the pairing store in the profile's home.
 *
 * @module
 */

import type { ChatAddress, ChatKind, InboundAttachment, OutboundReply } from "./contract.ts";

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
  /**
   * The {@link InboundJournal} entry this reply answers: it is settled in
   * the same transaction, so after a crash the message is either still
   * owed an answer or its answer is owed delivery, never both, never neither.
   */
  settles?: number;
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

/** An inbound message as the journal keeps it: plain data (an attachment's bytes are not kept). */
export interface JournaledMessage {
  chat: ChatAddress;
  chatKind: ChatKind;
  userId: string;
  userName?: string;
  text: string;
  /** What came with the message; its bytes cannot be fetched again after a restart. */
  attachments: Pick<InboundAttachment, "kind" | "name" | "mimeType" | "size">[];
  messageId?: string;
  /** The reply context when it is plain JSON (LINE's reply token is). */
  replyContext?: unknown;
  receivedAt: number;
}

/** A message the journal holds: taken in, not answered yet. */
export interface JournalEntry {
  id: number;
  message: JournaledMessage;
  /** When it was written down (ms since the epoch). */
  createdAt: number;
}

/**
 * The inbound journal. An allowed message is recorded before the channel
 * confirms it to the platform (Telegram's offset, LINE's 200) and settled
 * when it is answered (in the ledger's transaction: see
 * {@link NewObligation.settles}), refused or stopped by the user. What a
 * crash or a stop leaves unsettled is answered at the next start, so a
 * message the platform will not send again is never lost.
 */
export interface InboundJournal {
  /**
   * Records a message taken in and returns its entry id; null when the
   * same message (platform, chat and `messageId`) was taken in before,
   * answered or not, within the journal's memory (a platform sending it
   * again after a crash).
   */
  record(message: JournaledMessage): number | null | Promise<number | null>;
  /**
   * The message needs nothing more (answered without a reply, refused,
   * stopped). Idempotent. Its id stays known for a day, so it is not
   * taken in twice.
   */
  settle(id: number): void | Promise<void>;
  /** The unsettled messages of `platform`, oldest first. */
  unsettled(platform: string): JournalEntry[] | Promise<JournalEntry[]>;
  /**
   * Settles and returns every unsettled entry written before `before` (ms),
   * of any platform (one no longer enabled too), oldest first, and forgets
   * the settled ones from before then.
   */
  expire(before: number): JournalEntry[] | Promise<JournalEntry[]>;
}

// The pairing store's port lives in core/pairing/ (below core/channels and
// core/usecases, so the profile context can offer it without an import cycle).
export type { PairedUser, PairingList, PairingRequest, PairingStore } from "../pairing/store.ts";

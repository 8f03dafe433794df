/**
 * The pairing store's port: who asked the profile's bots for a pairing code
 * and who is paired. Re-exported by core/channels/ports.ts (the gateway's
 * ports); it lives here, importing nothing, so core/usecases can offer it
 * on the profile context without an import cycle.
 * adapters/channels/pairing_store.ts implements it in the profile's home.
 *
 * @module
 */

/** A person who asked to pair: the code they were given, and who they are. */
export interface PairingRequest {
  platform: string;
  userId: string;
  userName?: string;
  /** The chat the code was sent to. */
  chatId: string;
  code: string;
  /** ms since the epoch. */
  requestedAt: number;
  expiresAt: number;
}

/** A person allowed by pairing. */
export interface PairedUser {
  platform: string;
  userId: string;
  userName?: string;
  /** ms since the epoch. */
  approvedAt: number;
}

/** What `herald pairing list` shows. */
export interface PairingList {
  pending: PairingRequest[];
  approved: PairedUser[];
}

/**
 * The profile's pairing store. Writes are atomic and locked, so the
 * gateway and `herald pairing` (or the dashboard) can change it at once.
 */
export interface PairingStore {
  /**
   * The code for `user` on `platform`: the one already pending for them
   * (until it expires), else a new one. Null when too many requests are
   * pending (the store bounds them), so a flood of strangers cannot grow it.
   */
  request(
    request: Omit<PairingRequest, "code" | "requestedAt" | "expiresAt">,
    now: number,
  ): Promise<PairingRequest | null>;
  /** Whether `userId` on `platform` is paired. */
  isPaired(platform: string, userId: string): Promise<boolean>;
  /** Pending requests (not expired at `now`) and paired users. */
  list(now: number): Promise<PairingList>;
  /**
   * Approves the pending request with `code` (case-insensitive); with
   * `platform`, only a request from that platform (a code read out for a
   * LINE user does not approve a Telegram stranger).
   *
   * @throws HeraldError `pairing_code_unknown` when no pending request (of `platform`) has it
   *   (or it expired).
   */
  approve(code: string, now: number, platform?: string): Promise<PairedUser>;
  /**
   * Revokes `userId` on `platform` (a paired user or a pending request).
   * Returns whether there was one.
   */
  revoke(platform: string, userId: string): Promise<boolean>;
}

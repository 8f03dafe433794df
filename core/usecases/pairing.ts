/**
 * Pairing, as the profile's owner does it: list who asked for a code and
 * who is paired, approve a code, revoke a person. `herald pairing` and the
 * dashboard both call these, over the profile's pairing store
 * ({@link ProfileContext.pairing}). The views are what `--json` prints and
 * the dashboard answers with (snake_case, times in ms since the epoch).
 *
 * @module
 */

import {
  normalizePairingCode,
  type PairedUser,
  PAIRING_CODE_ALPHABET,
  PAIRING_CODE_LENGTH,
  type PairingRequest,
} from "../pairing/mod.ts";
import { HeraldError } from "../errors.ts";
import type { ProfileContext } from "./ports.ts";

/** A pending pairing request, as listed. */
export interface PairingRequestView {
  platform: string;
  user_id: string;
  user_name: string | null;
  /** The chat the code was sent to. */
  chat_id: string;
  code: string;
  requested_at: number;
  expires_at: number;
}

/** A person allowed by pairing, as listed. */
export interface PairedUserView {
  platform: string;
  user_id: string;
  user_name: string | null;
  approved_at: number;
}

/** What `herald pairing list --json` prints. */
export interface PairingListView {
  profile: string;
  pending: PairingRequestView[];
  approved: PairedUserView[];
}

/** What `herald pairing revoke --json` prints. */
export interface PairingRevokeView {
  platform: string;
  user_id: string;
  revoked: true;
}

function requestView(request: PairingRequest): PairingRequestView {
  return {
    platform: request.platform,
    user_id: request.userId,
    user_name: request.userName ?? null,
    chat_id: request.chatId,
    code: request.code,
    requested_at: request.requestedAt,
    expires_at: request.expiresAt,
  };
}

function userView(user: PairedUser): PairedUserView {
  return {
    platform: user.platform,
    user_id: user.userId,
    user_name: user.userName ?? null,
    approved_at: user.approvedAt,
  };
}

const CODE_SHAPE = new RegExp(`^[${PAIRING_CODE_ALPHABET}]{${PAIRING_CODE_LENGTH}}$`);

/** The pending requests (not expired at `now`) and the paired people of `profile`. */
export async function listPairing(
  profile: ProfileContext,
  now: number = Date.now(),
): Promise<PairingListView> {
  const list = await profile.pairing().list(now);
  return {
    profile: profile.name,
    pending: list.pending.map(requestView),
    approved: list.approved.map(userView),
  };
}

/**
 * Approves the pending request with `code` (any case; spaces and dashes
 * ignored): its sender may talk to the bot from now on. With
 * `options.platform`, only a request from that platform is approved (checked
 * in the store's one locked change).
 *
 * @throws HeraldError `pairing_code_invalid` (usage) for text that cannot be a code,
 *   `pairing_code_unknown` (not_found) when no pending request has it; both say how many are pending.
 */
export async function approvePairing(
  profile: ProfileContext,
  code: string,
  now: number = Date.now(),
  options: { platform?: string } = {},
): Promise<PairedUserView> {
  const store = profile.pairing();
  if (!CODE_SHAPE.test(normalizePairingCode(code))) {
    const pending = (await store.list(now)).pending.length;
    throw new HeraldError(
      "pairing_code_invalid",
      "usage",
      `"${code}" is not a pairing code: a code is ${PAIRING_CODE_LENGTH} letters and digits ` +
        `such as ABCD2345; ${pendingText(pending)}`,
      { details: { code, pending } },
    );
  }
  return userView(await store.approve(code, now, options.platform));
}

/**
 * Revokes `<platform>:<user_id>`: a paired person (or a pending request)
 * of that platform. A person named in an allowlist stays allowed.
 *
 * @throws HeraldError `pairing_target_invalid` (usage) for a target without both parts,
 *   `pairing_user_unknown` (not_found) when the store has nobody by that id.
 */
export async function revokePairing(
  profile: ProfileContext,
  target: string,
): Promise<PairingRevokeView> {
  const colon = target.indexOf(":");
  const platform = colon < 0 ? "" : target.slice(0, colon).trim().toLowerCase();
  const userId = colon < 0 ? "" : target.slice(colon + 1).trim();
  if (platform === "" || userId === "") {
    throw new HeraldError(
      "pairing_target_invalid",
      "usage",
      `"${target}" does not name a person: give <platform>:<user_id>, such as telegram:123456789 ` +
        "(see `herald pairing list`)",
      { details: { target } },
    );
  }
  if (!(await profile.pairing().revoke(platform, userId))) {
    throw new HeraldError(
      "pairing_user_unknown",
      "not_found",
      `Nobody is paired or waiting as ${platform}:${userId} in profile "${profile.name}"; ` +
        "see `herald pairing list` (people named in an allowlist are removed from the " +
        "allowlist itself)",
      { details: { platform, user_id: userId } },
    );
  }
  return { platform, user_id: userId, revoked: true };
}

function pendingText(pending: number): string {
  if (pending === 0) return "no pairing request is pending";
  return `${pending} pairing request${pending === 1 ? " is" : "s are"} pending ` +
    "(see `herald pairing list`)";
}

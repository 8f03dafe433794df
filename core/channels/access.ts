/**
 * Who may talk to the bot. The gateway denies by default: a person is
 * allowed when an allowlist names them or when the profile's owner approved
 * their pairing code; a group or room is allowed when its chat id is
 * listed. An explicit allow-all switch exists for development.
 *
 * Where the lists come from, for platform `telegram` (the id upper-cased,
 * anything but letters and digits turned into `_`):
 *
 * - people: `TELEGRAM_ALLOWED_USERS`, `platforms.telegram.allowed_users`
 *   in config.yaml, and `GATEWAY_ALLOWED_USERS` (every platform);
 * - groups: `TELEGRAM_ALLOWED_GROUPS` (Telegram group chat ids, LINE `C...`
 *   ids) and `platforms.telegram.allowed_groups`;
 * - rooms: `LINE_ALLOWED_ROOMS` (LINE `R...` ids) and `platforms.line.allowed_rooms`;
 * - allow-all: `TELEGRAM_ALLOW_ALL_USERS` or `GATEWAY_ALLOW_ALL_USERS` set
 *   to `true`, `1` or `yes`.
 *
 * A list is ids separated by commas or spaces; ids are compared exactly
 * (LINE ids are case-sensitive).
 *
 * Groups and rooms, as in the original's LINE plugin: the group is what the
 * owner allows, so once its id is listed any member may talk to the bot
 * there; an unlisted group is denied even for a listed person (nobody
 * decided that the group's other members may read the answers), and no
 * pairing code is ever posted into a group.
 *
 * The pairing rules (code alphabet, length, lifetime, the bound on pending
 * requests) are core/pairing/codes.ts.
 *
 * @module
 */

import type { EnvLookup } from "../config/load.ts";
import { platformEnvPrefix } from "../messaging/platforms.ts";
import { DEFAULT_PROFILE } from "../profiles/names.ts";
import type { InboundMessage } from "./contract.ts";
import type { PairingStore } from "./ports.ts";

/** Who may talk to the bot on one platform. */
export interface AccessPolicy {
  /** The platform id (`telegram`, `line`, ...). */
  platform: string;
  /** Everyone may talk (the development switch). */
  allowAll: boolean;
  /** The variable that switched {@link allowAll} on, for the start-up warning. */
  allowAllFrom?: string;
  /** Sender ids allowed in any direct chat. */
  users: ReadonlySet<string>;
  /** Group chat ids whose members may talk. */
  groups: ReadonlySet<string>;
  /** Room chat ids (LINE rooms) whose members may talk. */
  rooms: ReadonlySet<string>;
}

/** What the gateway does with a message: answer it, send a pairing code, or ignore it. */
export type AccessDecision = "allowed" | "pair" | "denied";

const TRUE_WORDS = new Set(["true", "1", "yes"]);

export { platformEnvPrefix };

/** The ids of a comma- or space-separated list, without empty entries. */
export function parseIdList(text: string | undefined): string[] {
  if (text === undefined) return [];
  return text.split(/[\s,]+/).filter((id) => id !== "");
}

/** The ids of a config list (strings or numbers, as YAML gives Telegram ids), or a list text. */
function settingIds(value: unknown): string[] {
  if (typeof value === "string") return parseIdList(value);
  if (typeof value === "number" && Number.isFinite(value)) return [String(value)];
  if (!Array.isArray(value)) return [];
  return value.flatMap(settingIds);
}

function switchedOn(value: string | undefined): boolean {
  return value !== undefined && TRUE_WORDS.has(value.trim().toLowerCase());
}

/**
 * The access policy of `platform`, from the profile's credentials lookup
 * (its `.env`, then the process environment) and `platforms.<id>` of
 * config.yaml.
 *
 * @example
 * ```ts
 * const env = { TELEGRAM_ALLOWED_USERS: "111, 222" };
 * const policy = accessPolicy("telegram", (name) => env[name], { allowed_users: ["333"] });
 * [...policy.users]; // ["111", "222", "333"]
 * ```
 */
export function accessPolicy(
  platform: string,
  env: EnvLookup,
  settings: Readonly<Record<string, unknown>>,
): AccessPolicy {
  const prefix = platformEnvPrefix(platform);
  const users = new Set([
    ...parseIdList(env(`${prefix}_ALLOWED_USERS`)),
    ...settingIds(settings.allowed_users),
    ...parseIdList(env("GATEWAY_ALLOWED_USERS")),
  ]);
  const groups = new Set([
    ...parseIdList(env(`${prefix}_ALLOWED_GROUPS`)),
    ...settingIds(settings.allowed_groups),
  ]);
  const rooms = new Set([
    ...parseIdList(env(`${prefix}_ALLOWED_ROOMS`)),
    ...settingIds(settings.allowed_rooms),
  ]);
  const allowAllFrom = [`${prefix}_ALLOW_ALL_USERS`, "GATEWAY_ALLOW_ALL_USERS"]
    .find((name) => switchedOn(env(name)));
  return {
    platform,
    allowAll: allowAllFrom !== undefined,
    ...(allowAllFrom === undefined ? {} : { allowAllFrom }),
    users,
    groups,
    rooms,
  };
}

/**
 * What the gateway prints at start about a policy, or undefined when there
 * is nothing to warn about (an allowlist is set, allow-all is off).
 */
export function accessWarning(policy: AccessPolicy): string | undefined {
  const prefix = platformEnvPrefix(policy.platform);
  if (policy.allowAll) {
    return `${policy.platform}: ${policy.allowAllFrom ?? `${prefix}_ALLOW_ALL_USERS`} is on, ` +
      "so anyone who finds the bot can use it (and the agent's tools); use it only for " +
      "development and turn it off before sharing the bot";
  }
  if (policy.users.size > 0 || policy.groups.size > 0 || policy.rooms.size > 0) return undefined;
  return `${policy.platform}: no allowlist is set, so everyone is denied until listed or paired: ` +
    `put user ids in ${prefix}_ALLOWED_USERS (or platforms.${policy.platform}.allowed_users), ` +
    "or let people message the bot directly and approve the code they get with " +
    "`herald pairing approve <code>`";
}

/**
 * Decides what to do with `message`. Direct chats: allowed when allow-all
 * is on, the sender is listed or paired; otherwise `pair` (the gateway
 * sends a pairing code). Groups and rooms: allowed when allow-all is on or
 * the chat id is listed (then any member may talk); otherwise `denied`.
 */
export async function decideAccess(
  message: InboundMessage,
  policy: AccessPolicy,
  pairing: PairingStore,
): Promise<AccessDecision> {
  if (policy.allowAll) return "allowed";
  switch (message.chatKind) {
    case "group":
      return policy.groups.has(message.chat.chatId) ? "allowed" : "denied";
    case "room":
      return policy.rooms.has(message.chat.chatId) ? "allowed" : "denied";
    case "direct":
      if (policy.users.has(message.userId)) return "allowed";
      return await pairing.isPaired(message.chat.platform, message.userId) ? "allowed" : "pair";
  }
}

/**
 * What an unknown person is told in a direct chat: their code, and how the
 * bot's owner approves it (naming the profile when it is not the default).
 */
export function pairingCodeMessage(code: string, profile: string): string {
  const option = profile === DEFAULT_PROFILE ? "" : ` -p ${profile}`;
  return `I don't know you yet. Your pairing code is ${code} (valid for 1 hour).\n` +
    `Ask the owner of this bot to approve it with: herald pairing approve ${code}${option}`;
}

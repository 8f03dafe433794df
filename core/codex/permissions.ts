/**
 * Herald's permission levels (`codex.permissions`) as Codex settings, and
 * Herald's approval choices as Codex's approval decisions.
 *
 * Codex 0.169.0 refuses `approval_policy = "untrusted"` in config.toml
 * ("no longer supported; remove this setting") and then does not start, so
 * the managed block asks for approval with the `:read-only` profile and
 * `on-request`; a runtime that wants every command to ask passes
 * {@link threadApprovalPolicy} with `thread/start`, where `untrusted` is
 * still accepted.
 *
 * @module
 */

import type { ApprovalChoice } from "../tools/types.ts";
import type { TomlEntry, UserSettings } from "./config_toml.ts";

/** Herald's permission levels for Codex (`codex.permissions`). */
export type CodexPermissionLevel = "auto" | "approval-required" | "unrestricted";

/** Codex's built-in permission profile for each level (the names carry a leading colon). */
export const PERMISSION_PROFILES: Readonly<Record<CodexPermissionLevel, string>> = {
  auto: ":workspace",
  "approval-required": ":read-only",
  unrestricted: ":danger-full-access",
};

/** The approval policy written for each level (absent: Codex's default for the profile). */
const CONFIG_APPROVAL: Readonly<Record<CodexPermissionLevel, string | undefined>> = {
  auto: undefined,
  "approval-required": "on-request",
  unrestricted: undefined,
};

/** What the permission part of the managed block holds. */
export interface PermissionSettings {
  entries: TomlEntry[];
  /** Keys left out because the user sets them outside the block (their choice is kept). */
  kept: string[];
  /** One line each, fit for the user. */
  notes: string[];
}

/**
 * The managed block's permission lines for `level`, leaving out any key
 * the user already sets outside the block.
 *
 * @example
 * ```ts
 * permissionSettings("auto", userSettings("")).entries;
 * // [{ key: ["default_permissions"], value: ":workspace" }]
 * ```
 */
export function permissionSettings(
  level: CodexPermissionLevel,
  user: UserSettings,
): PermissionSettings {
  const wanted: TomlEntry[] = [{ key: ["default_permissions"], value: PERMISSION_PROFILES[level] }];
  const approval = CONFIG_APPROVAL[level];
  if (approval) wanted.push({ key: ["approval_policy"], value: approval });
  const result: PermissionSettings = { entries: [], kept: [], notes: [] };
  for (const entry of wanted) {
    const key = entry.key[0];
    if (user.rootKeys.has(key)) {
      result.kept.push(key);
      result.notes.push(
        `kept your own ${key} in config.toml; Herald's "${level}" level would set ${
          JSON.stringify(entry.value)
        }`,
      );
    } else {
      result.entries.push(entry);
    }
  }
  return result;
}

/**
 * The approval policy a runtime passes with `thread/start` for `level`:
 * `untrusted` (every command asks) for approval-required, else `undefined`
 * (the permission profile's own policy).
 */
export function threadApprovalPolicy(level: CodexPermissionLevel): "untrusted" | undefined {
  return level === "approval-required" ? "untrusted" : undefined;
}

/** Codex's answer to an approval request. */
export type CodexApprovalDecision = "accept" | "acceptForSession" | "decline" | "cancel";

/**
 * Herald's approval choice as Codex's decision: once → accept, session or
 * always → acceptForSession, deny or anything else → decline (fail closed).
 *
 * @example
 * ```ts
 * approvalDecision("session"); // "acceptForSession"
 * approvalDecision("deny");    // "decline"
 * ```
 */
export function approvalDecision(
  choice: ApprovalChoice | string | null | undefined,
): CodexApprovalDecision {
  if (choice === "once") return "accept";
  if (choice === "session" || choice === "always") return "acceptForSession";
  return "decline";
}

/**
 * The approval policy of a profile's sessions, made in one place for every
 * surface: the profile's `approvals.allow` rules pass, "always" answers are
 * saved to that list through the profile's config port (under its locks),
 * safe mode saves nothing, and the surface supplies only how to ask a human
 * (core/tools/approval_policy.ts).
 *
 * @module
 */

import { appendConfigListValue } from "../config/mod.ts";
import {
  ALLOW_LIST_KEY,
  type AlwaysStore,
  ApprovalPolicy,
  type ApprovalSurface,
} from "../tools/approval_policy.ts";
import type { ConfigFiles } from "../usecases/ports.ts";

export { ALLOW_LIST_KEY } from "../tools/approval_policy.ts";

/**
 * Saves "always" answers to `approvals.allow` of the profile whose config
 * is `files`, re-reading it under its lock so a concurrent edit is kept.
 */
export function allowListStore(files: ConfigFiles): AlwaysStore {
  return {
    async add(ruleKey) {
      await files.updateConfig((text) => ({
        text: appendConfigListValue(text, files.configPath, ALLOW_LIST_KEY, ruleKey),
      }));
    },
  };
}

/** Options of {@link profileApprovalPolicy}. */
export interface ProfileApprovalOptions {
  /** How the surface asks a human and tells them what was decided without them. */
  surface: ApprovalSurface;
  /** Safe mode: "always" holds for this run only and nothing is written. */
  safeMode: boolean;
  /** The profile's `approvals.allow` rules. */
  allowed: Iterable<string>;
  /** Yolo mode (`--yolo` or `approvals.mode: yolo`): what is asked about passes unasked. */
  yolo?: boolean;
  /** Seconds a question waits (`approvals.timeout`); the surface's own `timeoutMs` wins. */
  timeoutSeconds?: number;
}

/**
 * The approval policy of one run (a terminal chat, a dashboard session, a
 * channel's conversation) of the profile whose config is `files`.
 *
 * @example
 * ```ts
 * const policy = profileApprovalPolicy(profile.files, {
 *   surface: { ask: askOnTerminal, onNotice: print },
 *   safeMode: false,
 *   allowed: config.approvals.allow,
 * });
 * ```
 */
export function profileApprovalPolicy(
  files: ConfigFiles,
  options: ProfileApprovalOptions,
): ApprovalPolicy {
  const timeoutMs = options.surface.timeoutMs ??
    (options.timeoutSeconds === undefined ? undefined : options.timeoutSeconds * 1000);
  return new ApprovalPolicy({
    ...options.surface,
    timeoutMs,
    store: allowListStore(files),
    safeMode: options.safeMode,
    allowed: options.allowed,
    yolo: options.yolo,
  });
}

/**
 * The {@link AlwaysStore} port over a profile's config.yaml: a rule approved
 * "always" is appended to `approvals.allow` under the config lock, so an
 * edit another process made a moment ago is kept.
 *
 * @module
 */

import { appendConfigListValue } from "../../core/config/mod.ts";
import type { AlwaysStore } from "../../core/tools/approval_policy.ts";
import { updateConfigText } from "./config_file.ts";

/**
 * Saves "always" approvals to `approvals.allow` in the config.yaml at `configPath`.
 *
 * @example
 * ```ts
 * const policy = new ApprovalPolicy({ store: configAlwaysStore(paths.config), safeMode: false });
 * ```
 */
export function configAlwaysStore(configPath: string): AlwaysStore {
  return {
    async add(ruleKey) {
      await updateConfigText(configPath, (text) => ({
        text: appendConfigListValue(text, configPath, "approvals.allow", ruleKey),
      }));
    },
  };
}

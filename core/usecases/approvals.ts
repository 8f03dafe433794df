/**
 * What a profile allows and refuses: its approval settings and, for
 * `--rules`, the dangerous-command rules with their classes.
 *
 * @module
 */

import type { ConfigWarning } from "../config/mod.ts";
import { DANGER_RULES, type DangerRule } from "../tools/dangerous.ts";
import { loadWrittenConfig } from "./config.ts";
import type { ProfileContext } from "./ports.ts";

/** The approval settings of a profile (`herald approvals list --json`). */
export interface ApprovalsView {
  profile: string;
  file: string;
  /** `ask` or `yolo`. */
  mode: "ask" | "yolo";
  /** Seconds a question waits before it is denied. */
  timeout_seconds: number;
  /** Rule keys approved "always". */
  allow: string[];
  /** Command patterns refused outright. */
  deny: string[];
  warnings: ConfigWarning[];
}

/** One rule of the table, as `herald approvals list --rules --json` prints it. */
export interface DangerRuleView {
  rule: string;
  class: DangerRule["class"];
  /** True when a rule key also names the command's targets (`rm_recursive:build`). */
  scoped: boolean;
  description: string;
  example: string;
}

/**
 * The profile's approval settings, as config.yaml says them (defaults filled in).
 *
 * @throws ConfigParseError when config.yaml is not YAML.
 */
export async function listApprovals(profile: ProfileContext): Promise<ApprovalsView> {
  const { config, warnings } = await loadWrittenConfig(profile);
  return {
    profile: profile.name,
    file: profile.files.configPath,
    mode: config.approvals.mode,
    timeout_seconds: config.approvals.timeout,
    allow: config.approvals.allow,
    deny: config.approvals.deny,
    warnings,
  };
}

/** Every dangerous-command rule: what it catches, whether it is hardline, an example. */
export function listDangerRules(): DangerRuleView[] {
  return DANGER_RULES.map((rule) => ({ ...rule }));
}

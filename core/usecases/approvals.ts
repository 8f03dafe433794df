/**
 * What a profile allows and refuses: its approval settings, the
 * dangerous-command rules with their classes (`--rules`), and adding or
 * removing a rule key of `approvals.allow` (`herald approvals allow|remove`).
 *
 * @module
 */

import YAML from "yaml";
import {
  appendConfigListValue,
  type ConfigWarning,
  parseConfigDocument,
  resolveConfigKey,
} from "../config/mod.ts";
import { HeraldError } from "../errors.ts";
import {
  DANGER_RULES,
  type DangerRule,
  detectDangerousCommand,
  scoped,
} from "../tools/dangerous.ts";
import { loadWrittenConfig } from "./config.ts";
import type { ProfileContext } from "./ports.ts";
import { ALLOW_LIST_KEY } from "../tools/approval_policy.ts";

/** The rule of the file tools' writes outside the working directory; its keys name the folder. */
const WRITE_OUTSIDE_WORKDIR = "write_outside_workdir";

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

/** The rule names an allow entry may start with, as the usage error lists them. */
function allowableForms(): string[] {
  const forms = DANGER_RULES.filter((rule) => rule.class === "approval")
    .map((rule) => rule.scoped ? `${rule.rule}:<targets>` : rule.rule);
  return [...new Set(forms), `${WRITE_OUTSIDE_WORKDIR}:<absolute folder>`];
}

function badRule(rule: string, reason: string): HeraldError {
  return new HeraldError(
    "approval_rule_invalid",
    "usage",
    `Cannot allow ${JSON.stringify(rule)}: ${reason}`,
    { details: { rule } },
  );
}

function isAbsolute(path: string): boolean {
  return path.startsWith("/") || /^[A-Za-z]:[\\/]/.test(path) || path.startsWith("\\\\");
}

/**
 * `rule` as a key an approval can cover: an approval rule of the
 * dangerous-command table (`git_reset_hard`, or a scoped one with its
 * targets, `rm_recursive:build`), or `write_outside_workdir:<absolute
 * folder>`. A scoped rule without targets is refused: it would cover only
 * the command with no target at all (`rm -r` alone), not every one. It
 * comes back trimmed, its targets written the way the rules write them
 * (`rm_recursive:./build/` is `rm_recursive:build`), so the entry matches
 * what is asked.
 *
 * @example
 * ```ts
 * checkAllowRule(" rm_recursive:build "); // "rm_recursive:build"
 * checkAllowRule("rm_recursive");         // throws: give the target (rm_recursive:<dir>)
 * checkAllowRule("rm_root");              // throws: refused outright, no approval covers it
 * ```
 *
 * @throws HeraldError (usage, `approval_rule_invalid`) naming the valid forms.
 */
export function checkAllowRule(rule: string): string {
  const key = rule.trim();
  const colon = key.indexOf(":");
  const name = colon === -1 ? key : key.slice(0, colon);
  const targets = colon === -1 ? "" : key.slice(colon + 1).trim();
  if (name === WRITE_OUTSIDE_WORKDIR) {
    if (!isAbsolute(targets)) {
      throw badRule(
        key,
        `${WRITE_OUTSIDE_WORKDIR} needs the absolute folder it may write to ` +
          `(${WRITE_OUTSIDE_WORKDIR}:/tmp)`,
      );
    }
    // The write guard names the folder without a trailing separator.
    return `${WRITE_OUTSIDE_WORKDIR}:${targets.replace(/(.)[\\/]+$/, "$1")}`;
  }
  const rules = DANGER_RULES.filter((candidate) => candidate.rule === name);
  const approval = rules.find((candidate) => candidate.class === "approval");
  if (!approval) {
    const reason = rules.length > 0
      ? `${name} is refused outright (hardline); no approval covers it`
      : `there is no rule named ${JSON.stringify(name)}`;
    throw badRule(key, `${reason}. Valid rules: ${allowableForms().join(", ")}`);
  }
  if (!approval.scoped) {
    if (colon === -1) return key;
    throw badRule(key, `${name} takes no targets; allow "${name}" alone`);
  }
  // Targets as the command rules write them: no leading "./", no trailing "/".
  const normal = scoped(name, targets.split(/\s+/));
  if (normal === name) {
    const example = detectDangerousCommand(approval.example)?.ruleKey ?? `${name}:build`;
    throw badRule(
      key,
      `give the target it covers after "${name}:", as ${name}:<${targetWord(name)}> ` +
        `(for example ${example}); "${name}" alone would cover only a command with no target`,
    );
  }
  return normal;
}

/** What a scoped rule's targets are, for the usage message. */
function targetWord(rule: string): string {
  if (rule === "git_push_force") return "remote> <branch";
  if (rule === "mkfs") return "image";
  return "dir";
}

/** What {@link allowApprovalRule} or {@link removeApprovalRule} did (`--json`). */
export interface ApprovalRuleChange {
  profile: string;
  file: string;
  rule: string;
  /** False when nothing changed (allowing a rule already in the list). */
  changed: boolean;
}

/**
 * Adds `rule` (checked by {@link checkAllowRule}) to `approvals.allow` in
 * config.yaml, under the file's lock as an "always" answer saves it, keeping
 * comments and the rest of the file. A rule already there is left as it is.
 *
 * @throws HeraldError (usage) for a rule key no approval covers.
 * @throws ConfigParseError when config.yaml is not YAML (nothing is written).
 */
export async function allowApprovalRule(
  profile: ProfileContext,
  rule: string,
): Promise<ApprovalRuleChange> {
  const key = checkAllowRule(rule);
  const file = profile.files.configPath;
  const change = await profile.files.updateConfig((current) => {
    const text = appendConfigListValue(current, file, ALLOW_LIST_KEY, key);
    return { text: text === current ? null : text };
  });
  return {
    profile: profile.name,
    file,
    rule: key,
    changed: change !== null && change.text !== null,
  };
}

/**
 * Removes `rule` from `approvals.allow` in config.yaml, under the file's
 * lock, keeping comments and the rest of the file. The rule is read as
 * {@link allowApprovalRule} reads it (`rm_recursive:./build/` removes
 * `rm_recursive:build`); an entry that is not there so written is looked
 * up as typed, so any entry can be removed, including an old one no rule
 * would match.
 *
 * @throws HeraldError (not_found, `approval_rule_absent`) when the list does not have it.
 * @throws ConfigParseError when config.yaml is not YAML (nothing is written).
 */
export async function removeApprovalRule(
  profile: ProfileContext,
  rule: string,
): Promise<ApprovalRuleChange> {
  const typed = rule.trim();
  const keys = [normalAllowRule(typed), typed];
  let key = typed;
  const file = profile.files.configPath;
  await profile.files.updateConfig((current) => {
    const doc = parseConfigDocument(current, file);
    const list = doc.getIn(resolveConfigKey(ALLOW_LIST_KEY));
    let index = -1;
    for (const candidate of YAML.isSeq(list) ? keys : []) {
      index = (list as YAML.YAMLSeq).items.findIndex((item) =>
        YAML.isScalar(item) && item.value === candidate
      );
      if (index !== -1) {
        key = candidate;
        break;
      }
    }
    if (index === -1) {
      throw new HeraldError(
        "approval_rule_absent",
        "not_found",
        `${
          JSON.stringify(key)
        } is not in ${ALLOW_LIST_KEY} of profile "${profile.name}" (${file}); ` +
          "see `herald approvals list`",
        { details: { rule: key, file } },
      );
    }
    (list as YAML.YAMLSeq).delete(index);
    return { text: doc.toString() };
  });
  return { profile: profile.name, file, rule: key, changed: true };
}

/** `rule` as {@link checkAllowRule} writes it, or as typed when no approval covers it. */
function normalAllowRule(rule: string): string {
  try {
    return checkAllowRule(rule);
  } catch (error) {
    if (error instanceof HeraldError && error.code === "approval_rule_invalid") return rule;
    throw error;
  }
}

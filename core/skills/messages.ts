/**
 * The user messages a skill or bundle invocation sends. The system prompt is
 * never touched: an invocation becomes a fresh user turn holding the skill
 * content and the user's text, so provider prompt caches keep hitting.
 *
 * @module
 */

import type { SkillBundle } from "./bundles.ts";
import type { SkillDocument } from "./skill.ts";

const MAX_LISTED_FILES = 25;

/** A skill that could not be read at invocation time. */
export interface SkillLoadFailure {
  ref: string;
  message: string;
}

function skillBlock(doc: SkillDocument, activation: string): string {
  const { skill } = doc;
  const parts = [activation, doc.body.trim()];
  const notes = [
    `[Skill directory: ${skill.dir}. Resolve relative paths in this skill against it, and run its scripts by absolute path.]`,
  ];
  if (doc.files.length > 0) {
    const shown = doc.files.slice(0, MAX_LISTED_FILES);
    const more = doc.files.length - shown.length;
    notes.push(
      `[Supporting files: ${shown.join(", ")}${more > 0 ? ` and ${more} more` : ""}. ` +
        `Read one with skill_view (name "${skill.slug}", file_path as listed).]`,
    );
  }
  parts.push(notes.join("\n"));
  return parts.filter(Boolean).join("\n\n");
}

function userPart(userText: string): string[] {
  const text = userText.trim();
  return text ? [`User request: ${text}`] : [];
}

/**
 * The user message for `/<skill> [text]`.
 *
 * @example
 * ```ts
 * const message = buildSkillMessage(doc, "review the last commit");
 * ```
 */
export function buildSkillMessage(doc: SkillDocument, userText: string): string {
  const header =
    `[The user invoked the skill "${doc.skill.name}" (/${doc.skill.slug}). Follow its instructions below for this request.]`;
  return [skillBlock(doc, header), ...userPart(userText)].join("\n\n") + "\n";
}

/**
 * The one user message for several skills typed together
 * (`/<skill> /<skill> [text]`): a header naming them in order, one block
 * per skill in that order, then the user's text. A single document makes
 * the same message as {@link buildSkillMessage}.
 *
 * @example
 * ```ts
 * const message = buildSkillsMessage([reviewDoc, testDoc], "fix issue #1");
 * ```
 */
export function buildSkillsMessage(docs: readonly SkillDocument[], userText: string): string {
  if (docs.length === 1) return buildSkillMessage(docs[0], userText);
  const names = docs.map((doc) => `"${doc.skill.name}" (/${doc.skill.slug})`).join(", ");
  const header =
    `[The user invoked ${docs.length} skills together, in this order: ${names}. Follow the instructions of each below for this request.]`;
  const blocks = docs.map((doc, i) =>
    `=== Skill ${i + 1} of ${docs.length}: ${doc.skill.name} (/${doc.skill.slug}) ===\n` +
    skillBlock(doc, `[Loaded with the other skills the user invoked in this message.]`)
  );
  return [header, ...blocks, ...userPart(userText)].join("\n\n") + "\n";
}

/** What {@link buildBundleMessage} reports besides the loaded skills. */
export interface BundleNotes {
  missing: readonly string[];
  unavailable: readonly string[];
  failed: readonly SkillLoadFailure[];
}

/**
 * The one combined user message for `/<bundle> [text]`: a header naming
 * what was loaded and skipped, the bundle instruction, the user's text, then
 * one block per skill.
 */
export function buildBundleMessage(
  bundle: Pick<SkillBundle, "name" | "slug" | "instruction">,
  docs: readonly SkillDocument[],
  notes: BundleNotes,
  userText: string,
): string {
  const count = docs.length;
  const summary = [
    `[The user invoked the skill bundle "${bundle.name}" (/${bundle.slug}), loading ${count} skill${
      count === 1 ? "" : "s"
    } together. Treat every skill below as active guidance for this request.]`,
    "",
    `Bundle: ${bundle.name}`,
    `Skills loaded: ${docs.map((doc) => doc.skill.slug).join(", ") || "none"}`,
  ];
  if (notes.missing.length > 0) {
    summary.push(`Skills missing (skipped): ${notes.missing.join(", ")}`);
  }
  if (notes.unavailable.length > 0) {
    summary.push(`Skills not available on this system (skipped): ${notes.unavailable.join(", ")}`);
  }
  if (notes.failed.length > 0) {
    summary.push(
      `Skills that failed to load (skipped): ${
        notes.failed.map((f) => `${f.ref}: ${f.message}`).join("; ")
      }`,
    );
  }
  const parts = [summary.join("\n")];
  if (bundle.instruction?.trim()) parts.push(`Bundle instruction:\n${bundle.instruction.trim()}`);
  parts.push(...userPart(userText));
  for (const doc of docs) {
    parts.push(
      `=== Skill: ${doc.skill.name} (/${doc.skill.slug}) ===\n` +
        skillBlock(doc, `[Loaded as part of the "${bundle.name}" skill bundle.]`),
    );
  }
  return parts.join("\n\n") + "\n";
}

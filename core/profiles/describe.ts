/**
 * Profile descriptions: the prompt sent to the `profile_describer`
 * auxiliary model (built from the profile's skills and model), the clean-up
 * of its answer, and the one rule for a description a person writes (the
 * CLI's `--description`/`--text` and the dashboard's bodies).
 *
 * @module
 */

import { HeraldError } from "../errors.ts";

/** The auxiliary slot that writes profile descriptions (`auxiliary.profile_describer`). */
export const PROFILE_DESCRIBER_TASK = "profile_describer";

/** Longest description stored, in characters: a model's answer is cut there, a person's refused. */
export const MAX_DESCRIPTION_LENGTH = 400;

/** Most skills listed in the prompt; a profile with more says how many were left out. */
export const MAX_PROMPT_SKILLS = 80;

const MAX_SKILL_DESCRIPTION = 200;

/** A skill as the describer sees it. */
export interface ProfileSkill {
  name: string;
  description: string;
}

/** What the describer is told about a profile. */
export interface DescriberInput {
  /** Profile name (`default` for the root home). */
  profile: string;
  /** Model name of the profile's main model, when one is set. */
  model?: string;
  /** Provider of the profile's main model, when one is set. */
  provider?: string;
  skills: readonly ProfileSkill[];
}

/** A model answer that held no description. */
export class EmptyDescriptionError extends HeraldError {
  /** Creates the error for profile `profile`. */
  constructor(readonly profile: string) {
    super(
      "description_empty",
      "state",
      `The ${PROFILE_DESCRIBER_TASK} model returned an empty description for profile ` +
        `"${profile}"; nothing was written. Try again, or set one with ` +
        `\`herald profile describe ${profile} --text "..."\``,
      { details: { profile } },
    );
  }
}

/** A description a person wrote that cannot be stored. */
export class DescriptionInvalidError extends HeraldError {
  /**
   * Creates the error with the `reason` that says what to fix. Its details
   * name the field at fault (`description`, so a form can show it there)
   * and the limit, with the length or the character refused.
   */
  constructor(readonly reason: string, details: { length?: number; character?: string } = {}) {
    super("description_invalid", "usage", reason, {
      details: { field: "description", limit: MAX_DESCRIPTION_LENGTH, ...details },
    });
  }
}

/** A control character (tab and line breaks are whitespace, handled before this is checked). */
const CONTROL = /\p{Cc}/u;

/**
 * A description a person wrote, as it is stored: trimmed, and each run of
 * whitespace (line breaks included) made one space, as a generated one is,
 * so every list shows it on one line. "" clears the description. Text
 * longer than {@link MAX_DESCRIPTION_LENGTH} is refused, never cut, and so
 * is a control character (an escape sequence would reach the terminal).
 *
 * @example
 * ```ts
 * parseUserDescription("  Reads mail.\n  Files it. ") // "Reads mail. Files it."
 * parseUserDescription("x".repeat(401))               // throws DescriptionInvalidError
 * ```
 *
 * @throws DescriptionInvalidError when it is too long or holds a control character.
 */
export function parseUserDescription(text: string): string {
  const description = oneLine(text);
  const control = CONTROL.exec(description);
  if (control) {
    const code = control[0].codePointAt(0)!.toString(16).toUpperCase().padStart(4, "0");
    throw new DescriptionInvalidError(
      `The description holds a control character (U+${code} at character ${
        control.index + 1
      }); remove it and write plain text`,
      { character: `U+${code}` },
    );
  }
  if (description.length > MAX_DESCRIPTION_LENGTH) {
    throw new DescriptionInvalidError(
      `The description is ${description.length} characters; the limit is ` +
        `${MAX_DESCRIPTION_LENGTH} (one or two sentences saying what the profile is for): shorten it`,
      { length: description.length },
    );
  }
  return description;
}

/**
 * The system and user prompts asking for a profile's description.
 *
 * @example
 * ```ts
 * const { system, prompt } = describerPrompt({
 *   profile: "coder",
 *   model: "gpt-test",
 *   skills: [{ name: "git", description: "Work with git repositories." }],
 * });
 * ```
 */
export function describerPrompt(input: DescriberInput): { system: string; prompt: string } {
  const system = "You write the description of an AI agent profile. An orchestrator reads " +
    "these descriptions to decide which profile should take a task, so say what kind of work " +
    "this profile is suited for. Answer with one or two plain sentences and nothing else: no " +
    "preamble, no quotes, no lists, no markdown.";
  const model = input.model
    ? `${input.model}${input.provider ? ` (provider ${input.provider})` : ""}`
    : "not set";
  const shown = input.skills.slice(0, MAX_PROMPT_SKILLS);
  const lines = shown.map((skill) =>
    `- ${skill.name}: ${clip(skill.description || "(no description)", MAX_SKILL_DESCRIPTION)}`
  );
  if (input.skills.length > shown.length) {
    lines.push(`- ... and ${input.skills.length - shown.length} more`);
  }
  const skills = input.skills.length === 0
    ? "Installed skills: none."
    : `Installed skills (${input.skills.length}):\n${lines.join("\n")}`;
  const prompt = `Profile name: ${input.profile}\nModel: ${model}\n${skills}\n\n` +
    "Write the profile's description in one or two sentences.";
  return { system, prompt };
}

/**
 * Cleans a model's answer into a stored description: reasoning blocks,
 * markdown emphasis, a "Description:" label and wrapping quotes removed,
 * whitespace collapsed, at most two sentences and
 * {@link MAX_DESCRIPTION_LENGTH} characters kept. Returns "" when nothing is left.
 *
 * @example
 * ```ts
 * normalizeDescription('"Writes code. Reviews it. Ships it."') // "Writes code. Reviews it."
 * ```
 */
export function normalizeDescription(answer: string): string {
  let text = answer
    .replace(/<think(?:ing)?>[\s\S]*?<\/think(?:ing)?>/gi, " ")
    .replace(/^\s*(?:#+|[-*>])\s+/gm, "")
    .replace(/\*\*|__|[*`]/g, "");
  text = oneLine(text)
    .replace(/^(?:profile\s+)?description\s*:\s*/i, "")
    .replace(/^["'“”‘’]+|["'“”‘’]+$/g, "")
    .trim();
  text = text.split(/(?<=[.!?])\s+/).slice(0, 2).join(" ");
  return clip(text, MAX_DESCRIPTION_LENGTH);
}

function oneLine(text: string): string {
  return text.replace(/\s+/g, " ").trim();
}

/** Cuts `text` to `max` characters at a word boundary, marking the cut with "…". */
function clip(text: string, max: number): string {
  if (text.length <= max) return text;
  const cut = text.slice(0, max - 1);
  const space = cut.lastIndexOf(" ");
  return (space > max / 2 ? cut.slice(0, space) : cut).replace(/[\s,;:]+$/, "") + "…";
}

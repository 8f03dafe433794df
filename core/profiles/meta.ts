/**
 * Profile metadata (`<profile home>/profile.yaml`): the description an
 * orchestrator reads to route work, and whether a model wrote it. Pure:
 * text in, values out; the file itself is read and written in adapters/home.
 *
 * @module
 */

import YAML from "yaml";
import { z } from "zod";
import { readYaml } from "../_util/yaml.ts";

/** The fields of `profile.yaml` Herald knows; other keys are kept as they are. */
export const ProfileMetaSchema = z.object({
  /** One or two sentences saying what the profile is for. */
  description: z.string().nullish().transform((value) => value ?? ""),
  /** True when the auxiliary model wrote the description, false when a person did. */
  description_auto: z.boolean().nullish().transform((value) => value ?? false),
});

/** Metadata of one profile, defaults filled in. */
export type ProfileMeta = z.infer<typeof ProfileMetaSchema>;

/** The fields a write may change; fields left out keep their value in the file. */
export type ProfileMetaPatch = Partial<ProfileMeta>;

/** What reading `profile.yaml` text gave: the metadata, and why it was ignored when it was. */
export interface ParsedProfileMeta {
  meta: ProfileMeta;
  /** Set when the text could not be used and {@link meta} holds the defaults. */
  problem?: string;
}

/** What reading a profile's `profile.yaml` file gave. */
export interface ProfileMetaRead {
  meta: ProfileMeta;
  /**
   * Set when the file exists but could not be used (the defaults are
   * returned); says what is wrong, naming the file. The file is left as is.
   */
  warning?: string;
}

/** Metadata of a profile that has none. */
export function emptyProfileMeta(): ProfileMeta {
  return { description: "", description_auto: false };
}

/**
 * True when a description was written by a person and must not be replaced
 * by a generated one unless overwriting is asked for.
 */
export function isUserAuthored(meta: ProfileMeta): boolean {
  return meta.description.trim() !== "" && !meta.description_auto;
}

/**
 * Reads `profile.yaml` text. Empty text is the defaults; text that is not
 * YAML, not a mapping, or has fields of the wrong type is also the defaults,
 * with a `problem` saying what is wrong. Never throws.
 *
 * @example
 * ```ts
 * parseProfileMeta("description: Reviews pull requests.\n").meta.description
 * // "Reviews pull requests."
 * parseProfileMeta("- a list\n").problem // "it is not a mapping of keys to values"
 * ```
 */
export function parseProfileMeta(text: string): ParsedProfileMeta {
  const document = readDocument(text);
  if ("problem" in document) return { meta: emptyProfileMeta(), problem: document.problem };
  const result = ProfileMetaSchema.safeParse(document.value ?? {});
  if (!result.success) {
    const issue = result.error.issues[0];
    const where = issue.path.join(".") || "file";
    return { meta: emptyProfileMeta(), problem: `${where}: ${issue.message}` };
  }
  return { meta: result.data };
}

/**
 * Returns `text` with the fields of `patch` set, keeping every other key and
 * comment. Text that {@link parseProfileMeta} would reject is replaced by a
 * fresh document holding only the patched fields. Descriptions are trimmed.
 *
 * @example
 * ```ts
 * applyProfileMeta("display_name: Coder\n", { description: " Writes code. ", description_auto: false });
 * // "display_name: Coder\ndescription: Writes code.\ndescription_auto: false\n"
 * ```
 */
export function applyProfileMeta(text: string, patch: ProfileMetaPatch): string {
  const usable = !("problem" in readDocument(text)) && parseProfileMeta(text).problem === undefined;
  const document = usable && text.trim() !== "" ? YAML.parseDocument(text) : new YAML.Document({});
  if (!YAML.isMap(document.contents)) document.contents = document.createNode({});
  if (patch.description !== undefined) document.set("description", patch.description.trim());
  if (patch.description_auto !== undefined) {
    document.set("description_auto", patch.description_auto);
  }
  return document.toString();
}

type DocumentRead = { value: Record<string, unknown> | null } | { problem: string };

function readDocument(text: string): DocumentRead {
  if (text.trim() === "") return { value: null };
  const read = readYaml(text);
  if (!read.ok) {
    const { line, column, reason } = read.problem;
    return { problem: `not valid YAML (${reason} at line ${line}, column ${column})` };
  }
  const value = read.value;
  if (value === null || value === undefined) return { value: null };
  if (typeof value !== "object" || Array.isArray(value)) {
    return { problem: "it is not a mapping of keys to values" };
  }
  return { value: value as Record<string, unknown> };
}

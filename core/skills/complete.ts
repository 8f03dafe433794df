/**
 * Slash-command autocomplete, shared by every surface: built-in commands,
 * bundles and skills in one list, each entry marked with its kind.
 *
 * @module
 */

import { isCommandSlug } from "./_slug.ts";
import { bundleLabel, type SkillBundle } from "./bundles.ts";
import type { SkillInfo } from "./skill.ts";

/** What a completion entry stands for. */
export type CompletionKind = "command" | "bundle" | "skill";

/** One autocomplete entry. */
export interface SlashCompletion {
  /** The command name without the slash. */
  name: string;
  /** For bundles `<description> (N skills)`; otherwise the command or skill description. */
  description: string;
  kind: CompletionKind;
  /** A glyph that tells the kinds apart in a menu. */
  marker: string;
}

/** The glyph shown beside each kind of entry; bundles and skills differ. */
export const COMPLETION_MARKERS: Readonly<Record<CompletionKind, string>> = Object.freeze({
  command: "›",
  bundle: "▣",
  skill: "◆",
});

/** Where completions come from. Only the built-in commands are required. */
export interface CompletionProviders {
  commands: readonly { name: string; aliases?: readonly string[]; description: string }[];
  /** Installed skills; defaults to none. */
  skills?: () => readonly Pick<SkillInfo, "slug" | "description">[];
  /** Installed bundles; defaults to none. */
  bundles?: () => readonly Pick<SkillBundle, "slug" | "description" | "skills">[];
}

/**
 * The entries whose name starts with `prefix` (with or without the slash;
 * `_` counts as `-`), sorted by name. A bundle hides a skill of the same
 * name, and a built-in command hides both.
 *
 * @example
 * ```ts
 * completeSlash("/rev", { commands: [], bundles: () => bundles });
 * // [{ name: "review", description: "Careful review (3 skills)", kind: "bundle", marker: "▣" }]
 * ```
 */
export function completeSlash(prefix: string, providers: CompletionProviders): SlashCompletion[] {
  const wanted = prefix.trim().replace(/^\//, "").toLowerCase().replaceAll("_", "-");
  const entries = new Map<string, SlashCompletion>();
  const add = (name: string, description: string, kind: CompletionKind) => {
    if (entries.has(name) || !name.startsWith(wanted)) return;
    entries.set(name, { name, description, kind, marker: COMPLETION_MARKERS[kind] });
  };
  for (const command of providers.commands) {
    for (const name of [command.name, ...(command.aliases ?? [])]) {
      add(name, command.description, "command");
    }
  }
  for (const bundle of providers.bundles?.() ?? []) {
    if (isCommandSlug(bundle.slug)) add(bundle.slug, bundleLabel(bundle), "bundle");
  }
  for (const skill of providers.skills?.() ?? []) {
    if (isCommandSlug(skill.slug)) add(skill.slug, skill.description, "skill");
  }
  return [...entries.values()].sort((a, b) => a.name < b.name ? -1 : a.name > b.name ? 1 : 0);
}

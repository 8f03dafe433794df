/**
 * Slugs: the command-line and slash-command form of skill and bundle names.
 *
 * @module
 */

/**
 * Turns a name into a slug: accents dropped, lowercase, spaces and
 * underscores become `-`, anything outside `[a-z0-9-]` is removed, repeated
 * hyphens collapse and leading or trailing ones are trimmed.
 *
 * @example
 * ```ts
 * slugify("Backend Dev"); // "backend-dev"
 * slugify("my_bundle"); // "my-bundle"
 * ```
 */
export function slugify(name: string): string {
  return name.normalize("NFKD").replace(/[\u0300-\u036f]/g, "").toLowerCase()
    .replace(/[\s_]+/g, "-")
    .replace(/[^a-z0-9-]/g, "")
    .replace(/-{2,}/g, "-")
    .replace(/^-+|-+$/g, "");
}

/** True when `/<slug>` can be typed as a slash command (it must start with a letter). */
export function isCommandSlug(slug: string): boolean {
  return /^[a-z][a-z0-9-]*$/.test(slug);
}

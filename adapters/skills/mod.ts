/**
 * Skills on disk: the catalog of a profile home (skills and bundles), bundle
 * files, the `skills_list` / `skill_view` tools, and the bundled skills
 * Herald ships with their seeding into each profile.
 *
 * @module
 */

export * from "./catalog.ts";
export * from "./seed.ts";
export * from "./tools.ts";
export * from "./bundle_files.ts";

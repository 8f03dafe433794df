/**
 * Skills on disk: the catalog of a profile home (skills and bundles), bundle
 * files, the `skills_list` / `skill_view` tools, the bundled skills Herald
 * ships with their seeding into each profile, and all of it as core's
 * skill library port.
 *
 * @module
 */

export * from "./catalog.ts";
export * from "./seed.ts";
export * from "./tools.ts";
export * from "./bundle_files.ts";
export * from "./library.ts";

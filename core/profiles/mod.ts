/**
 * Profiles: naming rules shared by every surface, the sticky default
 * (`active_profile`), `profile.yaml` metadata and generated descriptions.
 *
 * @module
 */

export * from "./names.ts";
export * from "./active.ts";
export * from "./meta.ts";
export * from "./describe.ts";
export * from "./errors.ts";

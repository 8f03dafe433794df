/**
 * Profiles: naming rules shared by every surface, the sticky default
 * (`active_profile`), `profile.yaml` metadata, generated descriptions and the
 * describe use case.
 *
 * @module
 */

export * from "./names.ts";
export * from "./active.ts";
export * from "./meta.ts";
export * from "./describe.ts";
export * from "./describe_profile.ts";
export * from "./errors.ts";

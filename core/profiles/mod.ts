/**
 * Profiles: naming rules shared by every surface, the sticky default
 * (`active_profile`), `profile.yaml` metadata, the describer prompt, the
 * messaging secrets a clone leaves behind, and the JSON views. The use cases are in core/usecases/profiles.ts.
 *
 * @module
 */

export * from "./names.ts";
export * from "./active.ts";
export * from "./meta.ts";
export * from "./describe.ts";
export * from "./views.ts";
export * from "./errors.ts";
export * from "./channels.ts";

/**
 * Profiles: naming rules shared by every surface.
 *
 * @module
 */

export * from "./names.ts";

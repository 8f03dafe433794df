/**
 * The on-disk home: layout, profile homes, config and `.env` files, atomic writes,
 * and the per-file lock every read-modify-write of a profile file runs under.
 *
 * @module
 */

export * from "./layout.ts";
export * from "./home.ts";
export * from "./env_file.ts";
export * from "./config_file.ts";
export * from "./session_files.ts";
export * from "./active_profile.ts";
export * from "./clone.ts";
export * from "./profile_meta.ts";
export * from "./profile_home.ts";
export * from "./profile_skills.ts";
export * from "./credentials.ts";

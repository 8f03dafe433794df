/**
 * Where Herald keeps state: the root home (`HERALD_HOME`, default
 * `~/.herald`, which is also the default profile) and named profiles under
 * `<root>/profiles/<name>/`, all with the same layout.
 *
 * @module
 */

import { dirname, join } from "node:path";
import { HomeError } from "../../core/errors.ts";
import { DEFAULT_PROFILE } from "../../core/profiles/names.ts";

/** Sub-directories every profile home has. */
export const PROFILE_DIRS: readonly string[] = [
  "skills",
  "skill-bundles",
  "memories",
  "cron",
  "logs",
  "sessions",
  "request-dumps",
];

/** The files and folders of one profile home. */
export interface ProfilePaths {
  /** Profile name; `default` for the root home. */
  name: string;
  home: string;
  config: string;
  env: string;
  profileYaml: string;
  stateDb: string;
  sessions: string;
  requestDumps: string;
  logs: string;
  skills: string;
  skillBundles: string;
  memories: string;
  cron: string;
}

/** Environment read to find the root home. */
export interface HomeEnv {
  HERALD_HOME?: string;
  HOME?: string;
  USERPROFILE?: string;
}

/**
 * The root home: `HERALD_HOME` when set, else `~/.herald`.
 *
 * @throws HomeError when neither `HERALD_HOME` nor a user home directory is known.
 */
export function resolveRoot(env: HomeEnv): string {
  if (env.HERALD_HOME && env.HERALD_HOME.trim() !== "") return env.HERALD_HOME;
  const userHome = env.HOME || env.USERPROFILE;
  if (!userHome) {
    throw new HomeError("~", "cannot find your home directory; set HOME or HERALD_HOME");
  }
  return join(userHome, ".herald");
}

/** The root home a profile's paths belong to (`<root>/profiles/<name>` → `<root>`). */
export function rootOf(paths: Pick<ProfilePaths, "name" | "home">): string {
  return paths.name === DEFAULT_PROFILE ? paths.home : dirname(dirname(paths.home));
}

/** Paths of profile `name` under `root` (`default` is the root itself). */
export function profilePaths(root: string, name: string): ProfilePaths {
  const home = name === DEFAULT_PROFILE ? root : join(root, "profiles", name);
  return {
    name,
    home,
    config: join(home, "config.yaml"),
    env: join(home, ".env"),
    profileYaml: join(home, "profile.yaml"),
    stateDb: join(home, "state.db"),
    sessions: join(home, "sessions"),
    requestDumps: join(home, "request-dumps"),
    logs: join(home, "logs"),
    skills: join(home, "skills"),
    skillBundles: join(home, "skill-bundles"),
    memories: join(home, "memories"),
    cron: join(home, "cron"),
  };
}

/** The shared kanban database at the root, used by every profile. */
export function kanbanDbPath(root: string): string {
  return join(root, "kanban.db");
}

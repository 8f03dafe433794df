/**
 * What every command receives: where to write, the environment, and the
 * selected profile, resolved lazily so that `--help` touches no disk.
 *
 * The profile is the one named with `-p`, else the sticky default in
 * `<root>/active_profile` (`herald profile use <name>`), else `default`.
 *
 * @module
 */

import { ProfileNotFoundError } from "../core/errors.ts";
import {
  DEFAULT_PROFILE,
  missingActiveProfile,
  parseProfileSelector,
} from "../core/profiles/mod.ts";
import type { ConfigWarning, ProcessEnv } from "../core/config/mod.ts";
import {
  activeProfilePath,
  ensureProfileHome,
  type ProfilePaths,
  readActiveProfileSync,
  requireProfile,
  resolveRoot,
} from "../adapters/home/mod.ts";
import type { ProfileContext } from "../core/usecases/ports.ts";
import { openProfileContext } from "../adapters/runtime/profile_context.ts";
import type { Output } from "./io.ts";

/** Shared state handed to every command. */
export interface CliContext {
  io: Output;
  env: ProcessEnv;
  /** The root home (`HERALD_HOME` or `~/.herald`). */
  root: string;
  /** The selected profile name: `-p`, else the sticky default, else `default`. */
  profile: string;
  /** Where {@link profile} came from: `-p`, `active_profile`, or neither. */
  profileSource: "flag" | "sticky" | "default";
  /** The profile `<root>/active_profile` names, when it names a valid one. */
  sticky?: string;
  /** Paths of the selected profile; throws ProfileNotFoundError for a missing named profile. */
  paths(): Promise<ProfilePaths>;
  /** Like {@link paths}, and creates whatever is missing of the home first. */
  home(): Promise<ProfilePaths>;
  /**
   * The selected profile as the use cases in core/usecases/ take it, wired
   * by adapters/runtime/profile_context.ts. Nothing is created here: the
   * context's writes make the home first.
   */
  profileContext(): Promise<ProfileContext>;
  /** Prints config warnings on standard error. */
  warn(file: string, warnings: readonly ConfigWarning[]): void;
  /** Standard input as bytes (taken only when a command reads it). */
  input(): ReadableStream<Uint8Array>;
  /** True when standard input is a terminal a person types at. */
  interactive: boolean;
  /** True in the real process: commands may install signal handlers. */
  signals: boolean;
}

/** How the program is connected to its process. */
export interface Terminal {
  input?: () => ReadableStream<Uint8Array>;
  interactive?: boolean;
  signals?: boolean;
}

function emptyInput(): ReadableStream<Uint8Array> {
  return new ReadableStream({ start: (controller) => controller.close() });
}

/** Builds the context for one run of the program. */
export function createContext(
  io: Output,
  env: ProcessEnv,
  profileInput: string | undefined,
  terminal: Terminal = {},
): CliContext {
  const flagged = profileInput === undefined ? undefined : parseProfileSelector(profileInput);
  const root = resolveRoot(env);
  let sticky: string | undefined;
  let stickyError: unknown;
  try {
    sticky = readActiveProfileSync(root);
  } catch (error) {
    stickyError = error;
  }
  const profileSource = flagged !== undefined
    ? "flag"
    : sticky !== undefined
    ? "sticky"
    : "default";
  const profile = flagged ?? sticky ?? DEFAULT_PROFILE;
  const paths = async () => {
    if (profileSource === "default" && stickyError !== undefined) throw stickyError;
    try {
      return await requireProfile(root, profile);
    } catch (error) {
      if (profileSource === "sticky" && error instanceof ProfileNotFoundError) {
        throw missingActiveProfile(activeProfilePath(root), profile);
      }
      throw error;
    }
  };
  return {
    io,
    env,
    root,
    profile,
    profileSource,
    sticky,
    paths,
    async home() {
      const resolved = await paths();
      await ensureProfileHome(resolved);
      return resolved;
    },
    async profileContext() {
      return openProfileContext(await paths(), env);
    },
    warn(file, warnings) {
      for (const warning of warnings) io.err(`herald: warning: ${file}: ${warning.message}\n`);
    },
    input: terminal.input ?? emptyInput,
    interactive: terminal.interactive ?? false,
    signals: terminal.signals ?? false,
  };
}

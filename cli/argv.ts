/**
 * Global options read before the command tree: `-p <name>` / `--profile
 * <name>` may appear anywhere on the command line.
 *
 * @module
 */

import { HeraldError } from "../core/errors.ts";

/** The command line with the profile selection taken out. */
export interface GlobalArgs {
  /** The profile named on the command line, as typed (not yet validated). */
  profile?: string;
  /** Everything else, in order. */
  rest: string[];
}

/**
 * Takes `-p X`, `-pX`, `--profile X` and `--profile=X` out of `argv`, in any
 * position before a `--` terminator. The last one given wins.
 *
 * @example
 * ```ts
 * extractGlobalArgs(["config", "show", "-p", "work"]) // { profile: "work", rest: ["config", "show"] }
 * ```
 */
export function extractGlobalArgs(argv: readonly string[]): GlobalArgs {
  const rest: string[] = [];
  let profile: string | undefined;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === "--") {
      rest.push(...argv.slice(i));
      break;
    }
    if (arg === "-p" || arg === "--profile") {
      const value = argv[i + 1];
      if (value === undefined || value === "--") {
        throw new HeraldError(
          "usage",
          "usage",
          `Option ${arg} needs a profile name, for example \`herald ${arg} work config show\``,
        );
      }
      profile = value;
      i++;
    } else if (arg.startsWith("--profile=")) {
      profile = arg.slice("--profile=".length);
    } else if (arg.startsWith("-p") && arg.length > 2 && !arg.startsWith("--")) {
      profile = arg.slice(2).replace(/^=/, "");
    } else {
      rest.push(arg);
    }
  }
  return { profile, rest };
}

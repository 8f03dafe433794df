/**
 * Reading and writing a profile's `profile.yaml`. Reading never fails: a
 * missing, unreadable or corrupt file is the defaults plus a warning. Writes
 * are atomic and change only the fields given.
 *
 * @module
 */

import {
  applyProfileMeta,
  emptyProfileMeta,
  parseProfileMeta,
  type ProfileMeta,
  type ProfileMetaPatch,
  type ProfileMetaRead,
} from "../../core/profiles/mod.ts";
import { updateTextFile } from "../fs/text_file.ts";

export type { ProfileMetaRead } from "../../core/profiles/mod.ts";

/**
 * Reads `profile.yaml` at `file`; a missing file is the defaults.
 *
 * @example
 * ```ts
 * const { meta, warning } = await readProfileMeta(paths.profileYaml);
 * if (warning) console.error(warning);
 * ```
 */
export async function readProfileMeta(file: string): Promise<ProfileMetaRead> {
  let text: string;
  try {
    text = await Deno.readTextFile(file);
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return { meta: emptyProfileMeta() };
    return { meta: emptyProfileMeta(), warning: unusable(file, (error as Error).message) };
  }
  const parsed = parseProfileMeta(text);
  return parsed.problem === undefined
    ? { meta: parsed.meta }
    : { meta: parsed.meta, warning: unusable(file, parsed.problem) };
}

/** Options of {@link updateProfileMeta}. */
export interface ProfileMetaUpdateOptions {
  /**
   * Decides, on the metadata read under the file's lock, to keep the file
   * as it is (a compare-and-set: true writes nothing).
   */
  keep?: (current: ProfileMeta) => boolean;
}

/** What {@link updateProfileMeta} did. */
export interface ProfileMetaUpdate {
  /** The metadata stored now. */
  meta: ProfileMeta;
  /** False when `keep` kept the file as it was. */
  written: boolean;
}

/**
 * Sets the fields of `patch` in `profile.yaml` at `file`, keeping every other
 * key (the file is re-read under its lock, so a concurrent change is kept),
 * and returns the metadata now stored. A corrupt file is replaced. With
 * `keep`, the file read under the lock is left alone when `keep` says so.
 *
 * @example
 * ```ts
 * const { written } = await updateProfileMeta(paths.profileYaml, { description: "Reads mail." }, {
 *   keep: (current) => current.description !== "",
 * });
 * ```
 */
export async function updateProfileMeta(
  file: string,
  patch: ProfileMetaPatch,
  options: ProfileMetaUpdateOptions = {},
): Promise<ProfileMetaUpdate> {
  let written = true;
  const updated = await updateTextFile(file, (text) => {
    if (options.keep?.(parseProfileMeta(text).meta)) {
      written = false;
      return null;
    }
    return applyProfileMeta(text, patch);
  }, {
    // A missing, unreadable or corrupt file is replaced; a directory in the
    // way makes the write fail with its own message.
    read: (path) => Deno.readTextFile(path).catch(() => ""),
    mode: 0o600,
  });
  return { meta: parseProfileMeta(updated).meta, written };
}

function unusable(file: string, reason: string): string {
  return `${file}: ${reason}; using no description (the file is left as is until you set one ` +
    "with `herald profile describe`)";
}

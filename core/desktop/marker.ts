/**
 * The bootstrap-complete marker `.herald-bootstrap-complete`: a small JSON
 * file in the install folder that says a staged install finished, and at
 * which commit. The installer's `complete` stage writes it, and so does the
 * desktop (adding `desktopVersion`). Its presence and validity is what tells
 * the desktop bootstrap resolver not to run the installer again.
 *
 * Readers accept markers written by later installers: extra fields are kept
 * and any `schemaVersion` of 1 or more is read. Anything malformed (bad
 * JSON, a byte-order mark, a short commit, a wrong type) means "bootstrap
 * needed", with the reason. Writers never put a byte-order mark in front.
 *
 * Pure: parsing and rendering only; adapters/install/marker.ts does the I/O.
 *
 * @module
 */

import { z } from "zod";

/** The marker's file name, in the install folder. */
export const MARKER_FILE = ".herald-bootstrap-complete";

/** The schema version this Herald writes. */
export const MARKER_SCHEMA_VERSION = 1;

/** The shortest commit id a marker may pin (an abbreviated git id). */
export const MARKER_MIN_COMMIT = 7;

/** The marker's fields; later installers may add more, which are kept as they are. */
export const markerSchema = z.looseObject({
  schemaVersion: z.number().int().min(1),
  pinnedCommit: z.string().min(MARKER_MIN_COMMIT).regex(/^[0-9a-f]+$/i, "not a git commit id"),
  pinnedBranch: z.string(),
  completedAt: z.iso.datetime({ offset: true }),
  desktopVersion: z.string().min(1).optional(),
});

/** A parsed marker (extra fields from later installers included). */
export type BootstrapMarker = z.infer<typeof markerSchema>;

/** The outcome of reading a marker's text. */
export type MarkerParse =
  | { ok: true; marker: BootstrapMarker }
  /** Malformed: bootstrap is needed; `reason` says why, for the user. */
  | { ok: false; reason: string };

/**
 * Parses a marker's text: a JSON object without a byte-order mark that fits
 * {@link markerSchema}.
 *
 * @example
 * ```ts
 * parseMarker('{"schemaVersion":1,"pinnedCommit":"3f2a9c1","pinnedBranch":"main",' +
 *   '"completedAt":"2026-01-02T03:04:05.000Z"}'); // { ok: true, marker: {...} }
 * parseMarker('{"schemaVersion":1,"pinnedCommit":"3f2a"}'); // { ok: false, reason: "..." }
 * ```
 */
export function parseMarker(text: string): MarkerParse {
  if (text.startsWith("\uFEFF")) {
    return { ok: false, reason: "it starts with a byte-order mark" };
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    return { ok: false, reason: `it is not JSON (${(error as Error).message})` };
  }
  const parsed = markerSchema.safeParse(value);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const where = issue.path.length > 0 ? issue.path.join(".") : "the file";
    return { ok: false, reason: `${where}: ${issue.message}` };
  }
  return { ok: true, marker: parsed.data };
}

/** What a new marker records. */
export interface NewMarker {
  pinnedCommit: string;
  pinnedBranch: string;
  /** When the install completed. */
  completedAt: Date;
  /** The desktop's version, when the desktop writes the marker. */
  desktopVersion?: string;
}

/**
 * A schema-version-1 marker for `facts`.
 *
 * @throws Error when the result would not parse back (a commit shorter than
 *   {@link MARKER_MIN_COMMIT} characters, an invalid date): a bug in the caller.
 */
export function newMarker(facts: NewMarker): BootstrapMarker {
  const marker: BootstrapMarker = {
    schemaVersion: MARKER_SCHEMA_VERSION,
    pinnedCommit: facts.pinnedCommit,
    pinnedBranch: facts.pinnedBranch,
    completedAt: facts.completedAt.toISOString(),
    ...(facts.desktopVersion ? { desktopVersion: facts.desktopVersion } : {}),
  };
  const check = markerSchema.safeParse(marker);
  if (!check.success) {
    throw new Error(
      `Refusing to write an invalid bootstrap marker: ${check.error.issues[0].message}`,
    );
  }
  return marker;
}

/**
 * The text of `marker`: pretty JSON and a final line break, never a
 * byte-order mark (encode it as plain UTF-8).
 */
export function renderMarker(marker: BootstrapMarker): string {
  return JSON.stringify(marker, null, 2) + "\n";
}

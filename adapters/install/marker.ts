/**
 * Reading and writing the bootstrap-complete marker
 * (`<install folder>/.herald-bootstrap-complete`, see core/desktop/marker.ts).
 * Writes are atomic (a temporary file renamed over the old one) and the
 * bytes are plain UTF-8 JSON with no byte-order mark.
 *
 * @module
 */

import { join } from "node:path";
import { writeFileAtomic } from "../fs/atomic.ts";
import { missing } from "../fs/read.ts";
import {
  type BootstrapMarker,
  MARKER_FILE,
  markerSchema,
  type NewMarker,
  newMarker,
  parseMarker,
  renderMarker,
} from "../../core/desktop/marker.ts";

/** The largest marker read; a bigger file is malformed (a marker is a few hundred bytes). */
const MARKER_MAX_BYTES = 64 * 1024;

/** What is at an install folder's marker path. */
export type MarkerState =
  | { state: "ok"; path: string; marker: BootstrapMarker }
  | { state: "missing"; path: string }
  /** Present but malformed: bootstrap is needed; `reason` says why. */
  | { state: "invalid"; path: string; reason: string };

/** The marker's path in `installDir`. */
export function markerPath(installDir: string): string {
  return join(installDir, MARKER_FILE);
}

/** Reads the marker in `installDir`; never throws for a missing or malformed one. */
export async function readMarker(installDir: string): Promise<MarkerState> {
  const path = markerPath(installDir);
  let bytes: Uint8Array;
  try {
    const info = await Deno.stat(path);
    if (!info.isFile) return { state: "invalid", path, reason: "it is not a file" };
    if (info.size > MARKER_MAX_BYTES) {
      return { state: "invalid", path, reason: `it is larger than ${MARKER_MAX_BYTES} bytes` };
    }
    bytes = await Deno.readFile(path);
  } catch (error) {
    if (missing(error)) return { state: "missing", path };
    return { state: "invalid", path, reason: `it cannot be read (${(error as Error).message})` };
  }
  let text: string;
  try {
    // fatal + ignoreBOM: a byte-order mark stays in the text, where parseMarker refuses it.
    text = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true }).decode(bytes);
  } catch {
    return { state: "invalid", path, reason: "it is not UTF-8 text" };
  }
  const parsed = parseMarker(text);
  return parsed.ok
    ? { state: "ok", path, marker: parsed.marker }
    : { state: "invalid", path, reason: parsed.reason };
}

/**
 * Writes `marker` into `installDir` atomically (mode 0644), as UTF-8 JSON
 * without a byte-order mark; returns the path.
 */
export async function writeMarker(installDir: string, marker: BootstrapMarker): Promise<string> {
  const checked = markerSchema.parse(marker);
  const path = markerPath(installDir);
  await writeFileAtomic(path, new TextEncoder().encode(renderMarker(checked)), { mode: 0o644 });
  return path;
}

/** Writes a new schema-version-1 marker for `facts` into `installDir`; returns it. */
export async function writeNewMarker(
  installDir: string,
  facts: NewMarker,
): Promise<BootstrapMarker> {
  const marker = newMarker(facts);
  await writeMarker(installDir, marker);
  return marker;
}

/**
 * Adds (or replaces) `desktopVersion` in the valid marker in `installDir`,
 * keeping every other field, including those of later installers; returns
 * the marker written, or undefined when there is no valid marker to extend.
 */
export async function stampDesktopVersion(
  installDir: string,
  desktopVersion: string,
): Promise<BootstrapMarker | undefined> {
  const current = await readMarker(installDir);
  if (current.state !== "ok") return undefined;
  if (current.marker.desktopVersion === desktopVersion) return current.marker;
  const marker = { ...current.marker, desktopVersion };
  await writeMarker(installDir, marker);
  return marker;
}

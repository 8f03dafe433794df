/**
 * The `herald --version` line. Loaded on the fast path, so it imports only
 * the version constant and reads at most a few small files.
 *
 * @module
 */

import { VERSION } from "../core/version.ts";

function readText(url: URL): string | undefined {
  try {
    return Deno.readTextFileSync(url).trim();
  } catch {
    return undefined;
  }
}

/** The build stamp written by build/ next to a packaged program, if any. */
function stampCommit(): string | undefined {
  const stamp = readText(new URL("../build/install-stamp.json", import.meta.url));
  if (!stamp) return undefined;
  try {
    const commit = JSON.parse(stamp).commit;
    return typeof commit === "string" && commit !== "" ? commit : undefined;
  } catch {
    return undefined;
  }
}

/** The checked-out commit of a source checkout, read from `.git` without running git. */
function gitCommit(): string | undefined {
  let gitDir = new URL("../.git/", import.meta.url);
  const pointer = readText(new URL("../.git", import.meta.url));
  if (pointer?.startsWith("gitdir:")) gitDir = new URL(`file://${pointer.slice(7).trim()}/`);
  const head = readText(new URL("HEAD", gitDir));
  if (!head) return undefined;
  if (!head.startsWith("ref:")) return head;
  const ref = head.slice(4).trim();
  const common = readText(new URL("commondir", gitDir));
  const refsDir = common ? new URL(`${common.replace(/\/?$/, "/")}`, gitDir) : gitDir;
  const loose = readText(new URL(ref, refsDir));
  if (loose) return loose;
  const packed = readText(new URL("packed-refs", refsDir));
  return packed?.split("\n").find((line) => line.endsWith(` ${ref}`))?.split(" ")[0];
}

/** The short commit this program was built from, or `unknown`. */
export function commit(): string {
  const full = stampCommit() ?? gitCommit();
  return full && /^[0-9a-f]{7,}$/.test(full) ? full.slice(0, 12) : "unknown";
}

/**
 * The one-line version banner.
 *
 * @example
 * ```ts
 * versionLine() // "herald 0.1.0 (3f2a9c1d0b7e)"
 * ```
 */
export function versionLine(): string {
  return `herald ${VERSION} (${commit()})`;
}

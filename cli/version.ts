/**
 * The `herald --version` line. Loaded on the fast path, so it imports only
 * the version constant and the compiled-in build stamp, and reads at most a
 * few small files.
 *
 * @module
 */

import { VERSION } from "../core/version.ts";
import { BUILD_STAMP } from "../build/stamp.gen.ts";

/** The build stamp's fields this line shows (older stamps may lack all but the commit). */
interface Stamp {
  commit?: string;
  branch?: string;
  builtAt?: string;
  dirty?: boolean;
}

function readText(url: URL): string | undefined {
  try {
    return Deno.readTextFileSync(url).trim();
  } catch {
    return undefined;
  }
}

/**
 * The build stamp: the one compiled into a binary (build/stamp.gen.ts), else
 * the one written next to a packaged program (build/install-stamp.json), if any.
 */
function stamp(): Stamp | undefined {
  if (BUILD_STAMP) return BUILD_STAMP;
  const text = readText(new URL("../build/install-stamp.json", import.meta.url));
  if (!text) return undefined;
  try {
    const parsed = JSON.parse(text);
    return parsed && typeof parsed === "object" ? parsed as Stamp : undefined;
  } catch {
    return undefined;
  }
}

/** The stamp's commit, when it names one. */
function stampCommit(found: Stamp | undefined): string | undefined {
  const commit = found?.commit;
  return typeof commit === "string" && commit !== "" && commit !== "unknown" ? commit : undefined;
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
  const full = stampCommit(stamp()) ?? gitCommit();
  return full && /^[0-9a-f]{7,}$/.test(full) ? full.slice(0, 12) : "unknown";
}

/** What a build stamp adds after the commit: its branch, when it was built, and `dirty`. */
function stampDetails(found: Stamp | undefined): string {
  if (!found) return "";
  const parts = [
    typeof found.branch === "string" && found.branch !== "unknown" ? found.branch : "",
    typeof found.builtAt === "string" ? `built ${found.builtAt}` : "",
    found.dirty === true ? "dirty" : "",
  ].filter((part) => part !== "");
  return parts.length > 0 ? ` ${parts.join(", ")}` : "";
}

/**
 * The one-line version banner: the commit, and from a build stamp its
 * branch, build time and whether the tree had uncommitted changes.
 *
 * @example
 * ```ts
 * versionLine() // "herald 0.1.0 (3f2a9c1d0b7e)" from a checkout
 * versionLine() // "herald 0.1.0 (3f2a9c1d0b7e) main, built 2026-11-24T20:55:17.000Z" from a build
 * ```
 */
export function versionLine(): string {
  return `herald ${VERSION} (${commit()})${stampDetails(stamp())}`;
}

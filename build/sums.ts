/**
 * `SHA256SUMS`: one `<hex>  <file>` line per artifact, the format
 * `sha256sum -c SHA256SUMS` verifies in the folder that holds them.
 *
 * @module
 */

import { createHash } from "node:crypto";
import { join } from "node:path";

/** The checksums file's name. */
export const SUMS_FILE = "SHA256SUMS";

/** The SHA-256 of a file, in hex, read in chunks (binaries are hundreds of megabytes). */
export async function sha256File(path: string): Promise<string> {
  const hash = createHash("sha256");
  using file = await Deno.open(path);
  for await (const chunk of file.readable) hash.update(chunk);
  return hash.digest("hex");
}

/**
 * Writes `SHA256SUMS` in `dir` for `files` (names inside `dir`), sorted by
 * name, and returns its text.
 *
 * @example
 * ```ts
 * await writeSums("dist", ["install-stamp.json", "herald-linux-x86_64"]);
 * // dist/SHA256SUMS: "<hex>  herald-linux-x86_64\n<hex>  install-stamp.json\n"
 * ```
 */
export async function writeSums(dir: string, files: readonly string[]): Promise<string> {
  const lines: string[] = [];
  for (const name of [...files].sort()) {
    lines.push(`${await sha256File(join(dir, name))}  ${name}\n`);
  }
  const text = lines.join("");
  await Deno.writeTextFile(join(dir, SUMS_FILE), text);
  return text;
}

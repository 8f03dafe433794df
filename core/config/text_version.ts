/**
 * The version of config.yaml text, so a whole-file save can say which text
 * it started from and be refused when the file has changed since.
 *
 * @module
 */

import { sha256Hex } from "../_util/hash.ts";

/**
 * The version of config.yaml text: the SHA-256 of its UTF-8 bytes in
 * lowercase hex (Web Crypto). A missing or empty file has the version of ""
 * (`e3b0c442…`).
 *
 * @example
 * ```ts
 * await configTextVersion(""); // "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
 * ```
 */
export function configTextVersion(text: string): Promise<string> {
  return sha256Hex(text);
}

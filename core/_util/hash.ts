/**
 * SHA-256 in lowercase hex, through Web Crypto.
 *
 * @module
 */

/**
 * The SHA-256 of `text`'s UTF-8 bytes, in lowercase hex.
 *
 * @example
 * ```ts
 * await sha256Hex(""); // "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
 * ```
 */
export async function sha256Hex(text: string): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text));
  return Array.from(new Uint8Array(digest), (byte) => byte.toString(16).padStart(2, "0")).join("");
}

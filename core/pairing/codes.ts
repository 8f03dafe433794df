/**
 * The pairing rules every store and surface agrees on: what a code looks
 * like, how long it lasts, how many may wait per platform, and reading a
 * code as typed.
 *
 * @module
 */

/** The characters of a pairing code: no 0/O, 1/I/L, so a code read aloud or retyped survives. */
export const PAIRING_CODE_ALPHABET = "ABCDEFGHJKMNPQRSTUVWXYZ23456789";

/** How many characters a pairing code has. */
export const PAIRING_CODE_LENGTH = 8;

/** How long a pending pairing code stays valid (1 hour). */
export const PAIRING_CODE_TTL_MS = 60 * 60 * 1000;

/** The most pairing requests one platform may have pending at once. */
export const PAIRING_MAX_PENDING = 20;

/**
 * A new pairing code: {@link PAIRING_CODE_LENGTH} characters of
 * {@link PAIRING_CODE_ALPHABET}, drawn uniformly from a cryptographic source.
 */
export function newPairingCode(): string {
  const size = PAIRING_CODE_ALPHABET.length;
  // Bytes at or past the largest multiple of the alphabet's size would favour its first letters.
  const limit = 256 - (256 % size);
  let code = "";
  while (code.length < PAIRING_CODE_LENGTH) {
    for (const byte of crypto.getRandomValues(new Uint8Array(PAIRING_CODE_LENGTH * 2))) {
      if (byte < limit && code.length < PAIRING_CODE_LENGTH) {
        code += PAIRING_CODE_ALPHABET[byte % size];
      }
    }
  }
  return code;
}

/**
 * A code as typed (any case, spaces or dashes between groups) in the form
 * the store keeps: `abcd-2345` → `ABCD2345`.
 */
export function normalizePairingCode(input: string): string {
  return input.toUpperCase().replace(/[\s-]+/g, "");
}

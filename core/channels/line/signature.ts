/**
 * LINE's webhook signature: the `x-line-signature` header carries
 * `base64(HMAC-SHA256(key = channel secret, message = the raw body bytes))`.
 * It is checked over the exact bytes received, before any JSON parsing,
 * and compared in constant time (Web Crypto's `verify` compares the MACs
 * itself). Web Crypto only: no `node:`.
 *
 * @example
 * ```ts
 * const verifier = await LineSignatureVerifier.create(secret);
 * const body = new Uint8Array(await request.arrayBuffer());
 * if (!await verifier.verify(body, request.headers.get(LINE_SIGNATURE_HEADER))) {
 *   // 400 "invalid signature"
 * }
 * ```
 *
 * @module
 */

/** The header LINE puts the signature in (HTTP headers are case-insensitive). */
export const LINE_SIGNATURE_HEADER = "x-line-signature";

/** The largest webhook body read (spec 8: 1 MiB); a larger one is refused unread. */
export const MAX_WEBHOOK_BODY_BYTES = 1024 * 1024;

/** An HMAC-SHA256 digest is 32 bytes, so a signature header is 44 base64 characters. */
const DIGEST_BYTES = 32;

async function importKey(secret: string, usage: "sign" | "verify"): Promise<CryptoKey> {
  return await crypto.subtle.importKey(
    "raw",
    new TextEncoder().encode(secret),
    { name: "HMAC", hash: "SHA-256" },
    false,
    [usage],
  );
}

/** The bytes of a base64 text, or null when it is not base64 of a 32-byte digest. */
function decodeSignature(header: string): Uint8Array<ArrayBuffer> | null {
  const text = header.trim();
  if (!/^[A-Za-z0-9+/]{43}=$/.test(text)) return null;
  let binary: string;
  try {
    binary = atob(text);
  } catch {
    return null;
  }
  if (binary.length !== DIGEST_BYTES) return null;
  return Uint8Array.from(binary, (char) => char.charCodeAt(0));
}

/**
 * The `x-line-signature` LINE would send for `body` under `secret`
 * (what the fake LINE platform signs its webhooks with).
 *
 * @example
 * ```ts
 * await signLineBody("0123456789abcdef0123456789abcdef", new TextEncoder().encode(body));
 * // "94lIexwJJhBAEvU5fHF/i4JXKbSzbpgGUoZUZlwge9Q=" for the empty-events body
 * ```
 */
export async function signLineBody(secret: string, body: Uint8Array): Promise<string> {
  const key = await importKey(secret, "sign");
  const mac = new Uint8Array(
    await crypto.subtle.sign("HMAC", key, body as Uint8Array<ArrayBuffer>),
  );
  let binary = "";
  for (const byte of mac) binary += String.fromCharCode(byte);
  return btoa(binary);
}

/**
 * Checks webhook bodies against one channel secret. The key is imported
 * once; the secret is not kept in a readable property.
 */
export class LineSignatureVerifier {
  readonly #key: CryptoKey;

  private constructor(key: CryptoKey) {
    this.#key = key;
  }

  /** A verifier for `secret` (the channel secret, as UTF-8 bytes). */
  static async create(secret: string): Promise<LineSignatureVerifier> {
    return new LineSignatureVerifier(await importKey(secret, "verify"));
  }

  /**
   * True when `header` is the signature of exactly `body`. A missing,
   * malformed or wrong header is false; the MACs are compared in constant
   * time by Web Crypto.
   */
  async verify(body: Uint8Array, header: string | null | undefined): Promise<boolean> {
    if (header === null || header === undefined) return false;
    const signature = decodeSignature(header);
    if (signature === null) return false;
    return await crypto.subtle.verify(
      "HMAC",
      this.#key,
      signature,
      body as Uint8Array<ArrayBuffer>,
    );
  }
}

/**
 * True when `header` is the signature of `body` under `secret`; for one
 * check. A server checking many bodies keeps a {@link LineSignatureVerifier}.
 */
export async function verifyLineSignature(
  secret: string,
  body: Uint8Array,
  header: string | null | undefined,
): Promise<boolean> {
  return await (await LineSignatureVerifier.create(secret)).verify(body, header);
}

/**
 * The session token: how requests carry it and how it is checked (in
 * constant time, without hashing, so the check stays cheap).
 *
 * @module
 */

/** Header that carries the token on HTTP requests. */
export const TOKEN_HEADER = "x-herald-session-token";

const encoder = new TextEncoder();

/** A reusable constant-time comparison against one expected token. */
export function tokenChecker(expected: string): (candidate: string | null | undefined) => boolean {
  const want = encoder.encode(expected);
  return (candidate) => {
    if (typeof candidate !== "string") return false;
    const got = encoder.encode(candidate);
    // Compare every byte of the expected token whatever the candidate's length.
    let difference = got.length ^ want.length;
    for (let i = 0; i < want.length; i++) difference |= want[i] ^ (got[i] ?? 0);
    return difference === 0;
  };
}

/** The token a request presents: the header, a Bearer authorization, or (WebSockets) `?token=`. */
export function presentedToken(request: Request, allowQuery: boolean): string | undefined {
  const header = request.headers.get(TOKEN_HEADER);
  if (header) return header;
  const authorization = request.headers.get("authorization");
  if (authorization?.toLowerCase().startsWith("bearer ")) return authorization.slice(7).trim();
  if (allowQuery) return queryParam(request.url, "token");
  return undefined;
}

/**
 * One query parameter of a URL string, read without `new URL()` (which
 * throws on a malformed Host and would put the whole URL, token included,
 * into the error message).
 */
export function queryParam(url: string, name: string): string | undefined {
  const start = url.indexOf("?");
  if (start === -1) return undefined;
  const end = url.indexOf("#", start);
  return new URLSearchParams(url.slice(start + 1, end === -1 ? undefined : end)).get(name) ??
    undefined;
}

/**
 * `text` with secrets that can appear in URLs and headers masked: `token=`
 * query values and Bearer credentials. Used on everything the server logs
 * or echoes from a failure.
 *
 * @example
 * ```ts
 * redactTokens("GET /api/ws?token=abc&x=1"); // "GET /api/ws?token=[redacted]&x=1"
 * ```
 */
export function redactTokens(text: string): string {
  return text
    .replace(/([?&]token=)[^&#\s'"]*/gi, "$1[redacted]")
    .replace(/(bearer\s+)[A-Za-z0-9._~+/=-]+/gi, "$1[redacted]")
    .replace(/(x-herald-session-token["']?\s*[:=]\s*["']?)[^\s"',}]+/gi, "$1[redacted]");
}

/** A new random token: 32 random bytes, base64url (43 characters). */
export function newSessionToken(): string {
  return crypto.getRandomValues(new Uint8Array(32)).toBase64({
    alphabet: "base64url",
    omitPadding: true,
  });
}

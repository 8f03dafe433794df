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
  if (allowQuery) return new URL(request.url).searchParams.get("token") ?? undefined;
  return undefined;
}

/** A new random token: 32 random bytes, base64url (43 characters). */
export function newSessionToken(): string {
  return crypto.getRandomValues(new Uint8Array(32)).toBase64({
    alphabet: "base64url",
    omitPadding: true,
  });
}

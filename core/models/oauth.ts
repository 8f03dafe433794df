/**
 * Provider sign-in: which providers offer OAuth (PKCE in the browser, or a
 * device code), and the PKCE pieces (RFC 7636, S256) built with Web Crypto.
 * Exchanging a code needs the network and lives outside core.
 *
 * @module
 */

import { SUBSCRIPTION_PROVIDER } from "../providers.ts";

/** How a provider signs the user in. */
export type OAuthFlow = "pkce" | "device_code";

/** A provider that supports OAuth sign-in. */
export interface OAuthProvider {
  /** The provider id (as in `model.provider`). */
  provider: string;
  label: string;
  flow: OAuthFlow;
  /** PKCE: the page the user is sent to. */
  authorizeUrl?: string;
  /** Device code: where the device code is requested. */
  deviceAuthorizationUrl?: string;
  /** Where a code (or device code) is exchanged for a key. */
  tokenUrl: string;
  /** The `.env` variable the resulting key is stored in. */
  keyEnv: string;
  /** What the sign-in gives. */
  description: string;
}

/** Providers with OAuth sign-in. API-key entry works for every provider. */
export const OAUTH_PROVIDERS: readonly OAuthProvider[] = [
  {
    provider: "openrouter",
    label: "OpenRouter",
    flow: "pkce",
    authorizeUrl: "https://openrouter.ai/auth",
    tokenUrl: "https://openrouter.ai/api/v1/auth/keys",
    keyEnv: "OPENROUTER_API_KEY",
    description: "Sign in on openrouter.ai in the browser; OpenRouter mints an API key for Herald",
  },
  {
    provider: SUBSCRIPTION_PROVIDER,
    label: "Herald subscription",
    flow: "device_code",
    deviceAuthorizationUrl: "https://portal.herald-subscription.invalid/oauth/device/code",
    tokenUrl: "https://portal.herald-subscription.invalid/oauth/token",
    keyEnv: "HERALD_SUBSCRIPTION_TOKEN",
    description: "Enter a short code on the subscription portal from any device (RFC 8628)",
  },
];

/** The OAuth entry of `provider`, or undefined when it has none. */
export function oauthProvider(provider: string): OAuthProvider | undefined {
  return OAUTH_PROVIDERS.find((entry) => entry.provider === provider);
}

/** Bytes as base64url without padding (RFC 4648 section 5). */
export function base64url(bytes: Uint8Array): string {
  return bytes.toBase64({ alphabet: "base64url", omitPadding: true });
}

/**
 * The S256 code challenge of a verifier: BASE64URL(SHA256(ASCII(verifier))).
 *
 * @example
 * ```ts
 * await pkceChallenge("dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk");
 * // "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM" (RFC 7636 appendix B)
 * ```
 */
export async function pkceChallenge(verifier: string): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(verifier));
  return base64url(new Uint8Array(digest));
}

/** A PKCE verifier and its S256 challenge. */
export interface PkcePair {
  verifier: string;
  challenge: string;
  method: "S256";
}

/**
 * A new PKCE pair from 32 random octets (or the octets given, for tests):
 * the verifier is their base64url form (43 characters).
 */
export async function createPkcePair(
  octets: Uint8Array = crypto.getRandomValues(new Uint8Array(32)),
): Promise<PkcePair> {
  const verifier = base64url(octets);
  return { verifier, challenge: await pkceChallenge(verifier), method: "S256" };
}

/** A random `state` value for an authorization request (32 octets, base64url). */
export function newOAuthState(): string {
  return base64url(crypto.getRandomValues(new Uint8Array(32)));
}

/**
 * The URL that starts a PKCE sign-in. OpenRouter's page takes
 * `callback_url`, `code_challenge` and `code_challenge_method` and sends the
 * user back to `callback_url?code=...`; it has no `state` parameter, so the
 * state rides in the callback URL's query and comes back with the code.
 */
export function pkceAuthorizeUrl(
  provider: OAuthProvider,
  options: { challenge: string; state: string; redirectUri: string },
): string {
  if (provider.flow !== "pkce" || !provider.authorizeUrl) {
    throw new TypeError(`${provider.provider} does not sign in with PKCE`);
  }
  const callback = new URL(options.redirectUri);
  callback.searchParams.set("state", options.state);
  const url = new URL(provider.authorizeUrl);
  url.searchParams.set("callback_url", callback.toString());
  url.searchParams.set("code_challenge", options.challenge);
  url.searchParams.set("code_challenge_method", "S256");
  return url.toString();
}

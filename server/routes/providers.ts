/**
 * `/api/providers/oauth`: provider sign-in. The catalog says which
 * providers offer PKCE or device-code sign-in. `start` makes a PKCE verifier
 * and S256 challenge and returns the authorize URL with a one-time state;
 * `complete` checks the state and exchanges the code at the provider's token
 * endpoint (with a timeout), storing the key in the profile's `.env` (core's
 * `setEnv`, as `PUT /api/env` does). The
 * token endpoint can be pointed elsewhere with
 * `HERALD_OAUTH_<PROVIDER>_TOKEN_URL` (tests use a local fake).
 *
 * @module
 */

import type { Context, Hono } from "hono";
import { z } from "zod";
import { HeraldError } from "../../core/errors.ts";
import {
  createPkcePair,
  newOAuthState,
  OAUTH_PROVIDERS,
  type OAuthProvider,
  oauthProvider,
  pkceAuthorizeUrl,
} from "../../core/models/oauth.ts";
import { setEnv } from "../../core/usecases/env.ts";
import { listOAuthProviders } from "../../core/usecases/model.ts";
import type { ServerDeps } from "../deps.ts";
import { ApiError } from "../errors.ts";
import { urlHost } from "../origin.ts";
import { scopedBody, scopedContext } from "../profile_scope.ts";
import { absentAsUndefined, requiredString } from "../_input.ts";
import { isHttpUrl } from "../../core/_util/url.ts";

/** How long a started sign-in may wait for its code. */
const STATE_TTL_MS = 10 * 60 * 1000;
/** How long the token endpoint may take. */
const EXCHANGE_TIMEOUT_MS = 15_000;

interface PendingSignIn {
  provider: string;
  profile: string;
  verifier: string;
  redirectUri: string;
  expiresAt: number;
}

function envSuffix(provider: string): string {
  return provider.toUpperCase().replace(/[^A-Z0-9]+/g, "_");
}

/** The token endpoint: the env override `HERALD_OAUTH_<PROVIDER>_TOKEN_URL`, else the catalog's. */
function tokenUrl(deps: ServerDeps, provider: OAuthProvider): string {
  return deps.env[`HERALD_OAUTH_${envSuffix(provider.provider)}_TOKEN_URL`]?.trim() ||
    provider.tokenUrl;
}

/** `POST .../start`: where the provider sends the user back (default: this dashboard). */
const StartBody = z.looseObject({ redirect_uri: absentAsUndefined(z.string()) });

/** `POST .../complete`: the state from `start` and the code the provider returned. */
const CompleteBody = z.looseObject({
  state: requiredString("state"),
  code: requiredString("code"),
});

function badState(message: string): HeraldError {
  return new HeraldError("oauth_state_invalid", "usage", message);
}

function requireProvider(c: Context): OAuthProvider {
  const id = c.req.param("provider") ?? "";
  const provider = oauthProvider(id);
  if (!provider) {
    throw new HeraldError(
      "oauth_provider_unknown",
      "not_found",
      `"${id}" has no OAuth sign-in (available: ${
        OAUTH_PROVIDERS.map((p) => p.provider).join(", ")
      }); API keys can be set with PUT /api/env`,
    );
  }
  return provider;
}

/** Exchanges a code for a key: OpenRouter's `POST /api/v1/auth/keys` returns `{key}`. */
async function exchangeCode(
  url: string,
  code: string,
  verifier: string,
  timeoutMs: number,
): Promise<string> {
  let response: Response;
  try {
    response = await fetch(url, {
      method: "POST",
      headers: { "content-type": "application/json", accept: "application/json" },
      body: JSON.stringify({ code, code_verifier: verifier, code_challenge_method: "S256" }),
      signal: AbortSignal.timeout(timeoutMs),
    });
  } catch (error) {
    const name = (error as Error).name;
    if (name === "TimeoutError" || name === "AbortError") {
      throw new ApiError(
        504,
        "oauth_timeout",
        `The token endpoint ${url} did not answer within ${timeoutMs / 1000} s ` +
          "(the sign-in exchange timeout); try again",
      );
    }
    throw new ApiError(
      502,
      "oauth_unreachable",
      `Cannot reach the token endpoint ${url}: ${(error as Error).message}`,
    );
  }
  const type = response.headers.get("content-type") ?? "";
  const text = await response.text();
  if (response.status === 429) {
    throw new ApiError(
      502,
      "oauth_rate_limited",
      `The token endpoint ${url} is rate limiting (HTTP 429); wait a minute and sign in again`,
    );
  }
  if (!response.ok) {
    throw new ApiError(
      502,
      "oauth_exchange_failed",
      `The token endpoint ${url} refused the code (HTTP ${response.status}); start the sign-in again`,
    );
  }
  if (type.includes("text/html") || /^\s*</.test(text)) {
    throw new ApiError(
      502,
      "oauth_bad_response",
      `The token endpoint ${url} answered with HTML, not JSON; check the URL`,
    );
  }
  let key: unknown;
  try {
    key = (JSON.parse(text) as { key?: unknown }).key;
  } catch {
    key = undefined;
  }
  if (typeof key !== "string" || key.trim() === "") {
    throw new ApiError(
      502,
      "oauth_bad_response",
      `The token endpoint ${url} answered without a key`,
    );
  }
  return key.trim();
}

/** Registers the providers routes. */
export function registerProvidersRoutes(app: Hono, deps: ServerDeps): void {
  const pending = new Map<string, PendingSignIn>();
  const now = () => (deps.now ?? Date.now)();
  const sweep = () => {
    for (const [state, entry] of pending) if (entry.expiresAt <= now()) pending.delete(state);
  };

  app.get("/api/providers/oauth", async (c) => {
    const profile = await scopedContext(c, deps);
    const providers = await listOAuthProviders(profile);
    return c.json({
      profile: profile.name,
      providers: providers.map((provider) => ({
        ...provider,
        start: `/api/providers/oauth/${provider.provider}/start`,
        complete: provider.flow === "pkce"
          ? `/api/providers/oauth/${provider.provider}/complete`
          : null,
        available: provider.flow === "pkce",
      })),
    });
  });

  app.post("/api/providers/oauth/:provider/start", async (c) => {
    const { profile, body } = await scopedBody(c, deps, StartBody, { optional: true });
    const provider = requireProvider(c);
    if (provider.flow === "device_code") {
      throw new ApiError(
        501,
        "device_code_unavailable",
        `${provider.label} signs in with a device code from ${provider.deviceAuthorizationUrl}, ` +
          "which needs the network and cannot be completed offline; store a token instead with " +
          `PUT /api/env {"key": "${provider.keyEnv}", "value": "..."}`,
      );
    }
    const origin = `http://${urlHost(deps.bind.host)}:${deps.bind.port}`;
    const redirectUri = body.redirect_uri?.trim() ||
      `${origin}/oauth/callback/${provider.provider}`;
    if (!isHttpUrl(redirectUri)) {
      throw new HeraldError("bad_request", "usage", `"redirect_uri" must be an http(s) URL`);
    }
    sweep();
    const pkce = await createPkcePair();
    const state = newOAuthState();
    const expiresAt = now() + STATE_TTL_MS;
    pending.set(state, {
      provider: provider.provider,
      profile: profile.name,
      verifier: pkce.verifier,
      redirectUri,
      expiresAt,
    });
    return c.json({
      ok: true,
      provider: provider.provider,
      profile: profile.name,
      flow: "pkce",
      authorize_url: pkceAuthorizeUrl(provider, {
        challenge: pkce.challenge,
        state,
        redirectUri,
      }),
      state,
      code_challenge: pkce.challenge,
      code_challenge_method: pkce.method,
      redirect_uri: redirectUri,
      expires_at: new Date(expiresAt).toISOString(),
    });
  });

  app.post("/api/providers/oauth/:provider/complete", async (c) => {
    const { profile, body } = await scopedBody(c, deps, CompleteBody);
    const provider = requireProvider(c);
    const state = body.state;
    const code = body.code.trim();
    sweep();
    const entry = pending.get(state);
    if (!entry || entry.provider !== provider.provider) {
      throw badState("Unknown or expired sign-in state; start the sign-in again");
    }
    if (entry.profile !== profile.name) {
      throw badState(
        `This sign-in was started for profile "${entry.profile}", not "${profile.name}"`,
      );
    }
    // A state is good for one attempt: codes are single-use too.
    pending.delete(state);
    const timeoutSeconds = Number(deps.env.HERALD_OAUTH_TIMEOUT_SECONDS);
    const timeoutMs = Number.isFinite(timeoutSeconds) && timeoutSeconds > 0
      ? timeoutSeconds * 1000
      : EXCHANGE_TIMEOUT_MS;
    const key = await exchangeCode(tokenUrl(deps, provider), code, entry.verifier, timeoutMs);
    const stored = await setEnv(profile, provider.keyEnv, key);
    return c.json({
      ok: true,
      provider: provider.provider,
      profile: profile.name,
      stored: stored.key,
      preview: stored.preview,
    });
  });
}

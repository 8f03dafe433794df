/**
 * `/api/providers/oauth`: the sign-in catalog, PKCE start (S256 challenge,
 * checked against RFC 7636 appendix B), and completion against a local
 * token endpoint that stores the key in the profile's `.env`.
 */

import assert from "node:assert/strict";
import { createPkcePair, pkceChallenge } from "../../core/models/oauth.ts";
import { tempDir } from "../_helpers.ts";
import { routesApp } from "./_routes.ts";

type Json = Record<string, unknown>;

/** RFC 7636 appendix B: the 32 octets [116, 24, 223, ..., 141, 121], and what they give. */
const RFC_OCTETS = Uint8Array.fromHex(
  "7418dfb49799e0254ffa607dd8adbbba16d4254d69d6bff05b58055853848d79",
);
const RFC_VERIFIER = "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk";
const RFC_CHALLENGE = "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM";

/** A token endpoint on 127.0.0.1 that checks the PKCE verifier like OpenRouter would. */
function fakeTokenEndpoint(expected: { code: string }, behaviour: "ok" | "hang" | "html" = "ok") {
  const seen: Json[] = [];
  const challenges = new Set<string>();
  const released = Promise.withResolvers<void>();
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, async (req) => {
    const body = await req.json();
    seen.push(body);
    if (behaviour === "hang") await released.promise;
    if (behaviour === "html") {
      return new Response("<html>login</html>", { headers: { "content-type": "text/html" } });
    }
    const challenge = await pkceChallenge(body.code_verifier);
    if (body.code !== expected.code || !challenges.has(challenge)) {
      return Response.json({ error: "invalid_code" }, { status: 403 });
    }
    return Response.json({ key: "sk-or-v1-minted-by-oauth-9999" });
  });
  return {
    url: `http://127.0.0.1:${(server.addr as Deno.NetAddr).port}/api/v1/auth/keys`,
    seen,
    challenges,
    async [Symbol.asyncDispose]() {
      released.resolve();
      await server.shutdown();
    },
  };
}

Deno.test("PKCE pairs follow RFC 7636 appendix B", async () => {
  const pair = await createPkcePair(RFC_OCTETS);
  assert.equal(pair.verifier, RFC_VERIFIER);
  assert.equal(pair.challenge, RFC_CHALLENGE);
  assert.equal(pair.method, "S256");
  assert.equal(await pkceChallenge(RFC_VERIFIER), RFC_CHALLENGE);
  const random = await createPkcePair();
  assert.match(random.verifier, /^[A-Za-z0-9_-]{43}$/);
  assert.equal(random.challenge, await pkceChallenge(random.verifier));
});

Deno.test("the OAuth catalog names PKCE and device-code providers", async () => {
  await using home = await tempDir();
  const { json } = await routesApp(home.path);
  const { body } = await json("GET", "/api/providers/oauth");
  const providers = body.providers as Json[];
  const openrouter = providers.find((p) => p.provider === "openrouter")!;
  assert.equal(openrouter.flow, "pkce");
  assert.equal(openrouter.key_present, false);
  const subscription = providers.find((p) => p.provider === "herald-subscription")!;
  assert.equal(subscription.flow, "device_code");
  const device = await json("POST", "/api/providers/oauth/herald-subscription/start", {});
  assert.equal(device.status, 501);
  assert.match(device.body.error!.message, /needs the network and cannot be completed offline/);
  assert.equal((await json("POST", "/api/providers/oauth/anthropic/start", {})).status, 404);
});

Deno.test("PKCE start returns an authorize URL with an S256 challenge and the state in the callback", async () => {
  await using home = await tempDir();
  const { json } = await routesApp(home.path);
  const { status, body } = await json("POST", "/api/providers/oauth/openrouter/start", {});
  assert.equal(status, 200);
  const url = new URL(String(body.authorize_url));
  assert.equal(url.origin + url.pathname, "https://openrouter.ai/auth");
  assert.equal(url.searchParams.get("code_challenge_method"), "S256");
  assert.match(url.searchParams.get("code_challenge")!, /^[A-Za-z0-9_-]{43}$/);
  const callback = new URL(url.searchParams.get("callback_url")!);
  assert.equal(callback.origin, "http://127.0.0.1:9219");
  assert.equal(callback.searchParams.get("state"), body.state);
  assert.ok(!JSON.stringify(body).includes("verifier"), "the verifier stays on the server");
});

Deno.test("PKCE complete exchanges the code with the verifier and stores the key in the profile's .env", async () => {
  await using home = await tempDir();
  await using endpoint = fakeTokenEndpoint({ code: "code-from-openrouter" });
  const { json, work, main } = await routesApp(home.path, {
    env: { HOME: home.path, HERALD_OAUTH_OPENROUTER_TOKEN_URL: endpoint.url },
  });
  const start =
    (await json("POST", "/api/providers/oauth/openrouter/start", { profile: "work" })).body;
  // The fake accepts only a verifier whose S256 matches the challenge sent to the authorize page.
  endpoint.challenges.add(
    new URL(String(start.authorize_url)).searchParams.get("code_challenge")!,
  );
  const wrongProfile = await json("POST", "/api/providers/oauth/openrouter/complete", {
    state: start.state,
    code: "code-from-openrouter",
  });
  assert.equal(wrongProfile.status, 400);
  const done = await json("POST", "/api/providers/oauth/openrouter/complete", {
    state: start.state,
    code: "code-from-openrouter",
    profile: "work",
  });
  assert.equal(done.status, 200, JSON.stringify(done.body));
  assert.equal(done.body.stored, "OPENROUTER_API_KEY");
  assert.ok(!JSON.stringify(done.body).includes("minted-by-oauth"));
  assert.equal(endpoint.seen.at(-1)!.code_challenge_method, "S256");
  assert.match(
    await Deno.readTextFile(work.env),
    /^OPENROUTER_API_KEY=sk-or-v1-minted-by-oauth-9999$/m,
  );
  assert.ok(!(await Deno.readTextFile(main.env).catch(() => "")).includes("minted"));
  const replay = await json("POST", "/api/providers/oauth/openrouter/complete", {
    state: start.state,
    code: "code-from-openrouter",
    profile: "work",
  });
  assert.equal(replay.status, 400, "a state is good once");
  assert.equal(replay.body.error?.code, "oauth_state_invalid");
});

Deno.test("PKCE complete rejects an unknown state and reports a refused code", async () => {
  await using home = await tempDir();
  await using refusing = fakeTokenEndpoint({ code: "other" });
  const { json } = await routesApp(home.path, {
    env: { HOME: home.path, HERALD_OAUTH_OPENROUTER_TOKEN_URL: refusing.url },
  });
  const unknown = await json("POST", "/api/providers/oauth/openrouter/complete", {
    state: "forged",
    code: "c",
  });
  assert.equal(unknown.body.error?.code, "oauth_state_invalid");
  const start = (await json("POST", "/api/providers/oauth/openrouter/start")).body;
  const refused = await json("POST", "/api/providers/oauth/openrouter/complete", {
    state: start.state,
    code: "wrong",
  });
  assert.equal(refused.status, 502);
  assert.match(refused.body.error!.message, /HTTP 403/);
});

Deno.test("PKCE complete reports a token endpoint that answers HTML or does not answer in time", async () => {
  for (const behaviour of ["html", "hang"] as const) {
    await using home = await tempDir();
    await using endpoint = fakeTokenEndpoint({ code: "c" }, behaviour);
    const { json } = await routesApp(home.path, {
      env: {
        HOME: home.path,
        HERALD_OAUTH_OPENROUTER_TOKEN_URL: endpoint.url,
        HERALD_OAUTH_TIMEOUT_SECONDS: "0.2",
      },
    });
    const start = (await json("POST", "/api/providers/oauth/openrouter/start")).body;
    const response = await json("POST", "/api/providers/oauth/openrouter/complete", {
      state: start.state,
      code: "c",
    });
    if (behaviour === "html") {
      assert.equal(response.status, 502);
      assert.equal(response.body.error?.code, "oauth_bad_response");
      assert.match(response.body.error!.message, /HTML/);
    } else {
      assert.equal(response.status, 504);
      assert.equal(response.body.error?.code, "oauth_timeout");
      assert.match(response.body.error!.message, /within 0\.2 s \(the sign-in exchange timeout\)/);
    }
  }
});

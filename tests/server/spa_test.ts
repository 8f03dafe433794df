/**
 * How the embedded web app is served: gzip when the browser takes it, plain
 * bytes when it does not, HEAD, long caching for hashed assets and none for
 * the page, a clear 404 for an asset that is not there, the security
 * headers, and the token slot filled only on loopback binds.
 */

import assert from "node:assert/strict";
import { UI_ASSETS } from "../../server/ui_assets.gen.ts";
import { acceptsGzip } from "../../server/spa.ts";
import { tempDir } from "../_helpers.ts";
import { TEST_TOKEN, testApp } from "./_app.ts";

const SCRIPT = Object.keys(UI_ASSETS).find((path) => path.endsWith(".js"))!;

async function gunzipped(response: Response): Promise<string> {
  const stream = response.body!.pipeThrough(new DecompressionStream("gzip"));
  return await new Response(stream).text();
}

Deno.test("a hashed asset is served gzipped to a browser and plain otherwise, cached for a year", async () => {
  await using home = await tempDir();
  const { request } = testApp(home.path);
  const zipped = await request(SCRIPT, { auth: false, headers: { "accept-encoding": "gzip, br" } });
  assert.equal(zipped.status, 200);
  assert.equal(zipped.headers.get("content-encoding"), "gzip");
  assert.equal(zipped.headers.get("content-type"), "text/javascript; charset=utf-8");
  assert.equal(zipped.headers.get("cache-control"), "public, max-age=31536000, immutable");
  const script = await gunzipped(zipped);
  assert.equal(new TextEncoder().encode(script).length, UI_ASSETS[SCRIPT].size);

  const plain = await request(SCRIPT, { auth: false, headers: { "accept-encoding": "identity" } });
  assert.equal(plain.headers.get("content-encoding"), null);
  assert.equal(await plain.text(), script);

  const head = await request(SCRIPT, { auth: false, method: "HEAD" });
  assert.equal(head.status, 200);
  assert.equal(head.headers.get("content-length"), String(UI_ASSETS[SCRIPT].size));
  assert.equal(await head.text(), "");
});

Deno.test("a missing asset is a 404 that says to reload, not the page", async () => {
  await using home = await tempDir();
  const { request } = testApp(home.path);
  const missing = await request("/assets/index-gone.js", { auth: false });
  assert.equal(missing.status, 404);
  assert.match(await missing.text(), /No such asset: \/assets\/index-gone\.js\. Reload the page/);
});

Deno.test("the page is never cached, forbids inline scripts and framing, and carries the token on loopback", async () => {
  await using home = await tempDir();
  const { request } = testApp(home.path);
  for (const path of ["/", "/chat", "/sessions/abc?around=1", "/index.html"]) {
    const page = await request(path, { auth: false, headers: { "accept-encoding": "gzip" } });
    assert.equal(page.status, 200, path);
    assert.equal(page.headers.get("cache-control"), "no-store", path);
    const policy = page.headers.get("content-security-policy") ?? "";
    assert.match(policy, /script-src 'self'(;|$)/, path);
    assert.match(policy, /frame-ancestors 'none'/, path);
    assert.equal(page.headers.get("x-content-type-options"), "nosniff");
    // Under a kilobyte: sent as is even to a browser that takes gzip.
    assert.equal(page.headers.get("content-encoding"), null, path);
    const html = await page.text();
    assert.ok(html.includes(`<meta name="herald-token" content="${TEST_TOKEN}">`), path);
    assert.ok(!html.includes("<!--herald-token-->"), path);
  }
});

Deno.test("on a public bind the page has no token: it takes it from the URL's #token=", async () => {
  await using home = await tempDir();
  const { request } = testApp(home.path, { bind: { host: "192.0.2.10", port: 9219 } });
  const page = await request("/", { auth: false, headers: { host: "192.0.2.10:9219" } });
  const html = await page.text();
  assert.ok(!html.includes(TEST_TOKEN));
  assert.ok(!html.includes("herald-token"));
});

Deno.test("gzip goes only to a request that accepts it with a quality above zero", () => {
  const cases: [string | null, boolean][] = [
    [null, false],
    ["", false],
    ["gzip", true],
    ["GZIP, deflate", true],
    ["br, gzip;q=0.5", true],
    ["gzip;q=0", false],
    ["gzip; q=0.000", false],
    ["br", false],
    ["*", true],
    ["*;q=0", false],
    ["gzip;q=0, *", false],
    ["identity", false],
    ["x-gzip", true],
  ];
  for (const [header, expected] of cases) {
    const headers: HeadersInit = header === null ? {} : { "accept-encoding": header };
    assert.equal(acceptsGzip(new Request("http://x/", { headers })), expected, String(header));
  }
});

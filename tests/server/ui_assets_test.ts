/**
 * The committed web app (server/ui_assets.gen.ts) is what the sources in
 * server/ui/ build to: the test builds them again with the pinned Vite into
 * a temporary folder and compares every file. When it fails, run
 * `deno task ui:build` and commit the regenerated module.
 */

import assert from "node:assert/strict";
import { UI_ASSETS, UI_PAGE } from "../../server/ui_assets.gen.ts";
import { contentTypeOf, PAGE_PATH, viteBuild } from "../../build/ui.ts";
import { tempDir } from "../_helpers.ts";

async function gunzip(base64: string): Promise<Uint8Array> {
  const stream = new Blob([Uint8Array.fromBase64(base64) as BlobPart]).stream()
    .pipeThrough(new DecompressionStream("gzip"));
  return new Uint8Array(await new Response(stream).arrayBuffer());
}

Deno.test("the committed web app module matches a fresh build of server/ui/", async () => {
  await using out = await tempDir("herald-ui-build-");
  const built = await viteBuild(out.path);
  const stale = "server/ui_assets.gen.ts is stale: run `deno task ui:build` and commit it";
  const page = built.find((file) => file.path === PAGE_PATH);
  assert.ok(page, "the build writes the page");
  assert.equal(UI_PAGE, new TextDecoder().decode(page.bytes), `${PAGE_PATH}: ${stale}`);
  const files = built.filter((file) => file !== page);
  assert.deepEqual(Object.keys(UI_ASSETS).sort(), files.map((file) => file.path), stale);
  for (const file of files) {
    const embedded = UI_ASSETS[file.path];
    assert.equal(embedded.type, contentTypeOf(file.path), `${file.path}: ${stale}`);
    assert.equal(embedded.size, file.bytes.length, `${file.path}: ${stale}`);
    assert.deepEqual(await gunzip(embedded.gzip), file.bytes, `${file.path}: ${stale}`);
  }
});

Deno.test("the built app loads its script and styles from /assets/ and has the token slot", () => {
  const html = UI_PAGE;
  assert.ok(html.includes("<!--herald-token-->"), "index.html keeps the slot the server fills");
  const scripts = [...html.matchAll(/<script[^>]*src="([^"]+)"/g)].map((match) => match[1]);
  assert.ok(
    scripts.length > 0 && scripts.every((src) => src.startsWith("/assets/") && UI_ASSETS[src]),
  );
  assert.ok(
    !/<script(?![^>]*\bsrc=)[^>]*>/.test(html),
    "no inline script (the page's CSP forbids them)",
  );
});

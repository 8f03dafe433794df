/**
 * Reading a request body with a byte cap: in memory and over real HTTP,
 * bodies within the cap come back whole, and a body announced or counted
 * past it is refused without reading the rest.
 */

import assert from "node:assert/strict";
import { readCappedBody } from "../../../adapters/http/capped_body.ts";

/** A body stream of `chunks`, recording how many were pulled and whether it was cancelled. */
function recordedStream(chunks: Uint8Array[]) {
  const seen = { pulled: 0, cancelled: false };
  const stream = new ReadableStream<Uint8Array>({
    pull(controller) {
      const chunk = chunks[seen.pulled];
      if (chunk === undefined) {
        controller.close();
        return;
      }
      seen.pulled++;
      controller.enqueue(chunk);
    },
    cancel() {
      seen.cancelled = true;
    },
  }, { highWaterMark: 0 });
  return { stream, seen };
}

function post(body: BodyInit | null, headers: Record<string, string> = {}): Request {
  return new Request("http://127.0.0.1/", { method: "POST", body, headers });
}

Deno.test("a body within the cap comes back whole, its chunks joined in order", async () => {
  const { stream } = recordedStream([
    new TextEncoder().encode("hello, "),
    new TextEncoder().encode("wor"),
    new TextEncoder().encode("ld"),
  ]);
  const bytes = await readCappedBody(post(stream), 12);
  assert.ok(bytes !== null);
  assert.equal(new TextDecoder().decode(bytes), "hello, world");
});

Deno.test("a body of exactly the cap is read, one byte more is refused", async () => {
  const exact = await readCappedBody(post("x".repeat(16)), 16);
  assert.equal(exact?.byteLength, 16);
  assert.equal(await readCappedBody(post("x".repeat(17)), 16), null);
});

Deno.test("a request without a body reads as no bytes", async () => {
  const bytes = await readCappedBody(new Request("http://127.0.0.1/"), 16);
  assert.deepEqual(bytes, new Uint8Array());
});

Deno.test("a Content-Length over the cap is refused before any of the body is read", async () => {
  const { stream, seen } = recordedStream([new Uint8Array(8)]);
  const bytes = await readCappedBody(post(stream, { "content-length": "1000" }), 16);
  assert.equal(bytes, null);
  assert.equal(seen.pulled, 0);
  assert.equal(seen.cancelled, true);
});

Deno.test("a body counted past the cap while it is read is refused and the rest cancelled", async () => {
  const { stream, seen } = recordedStream([
    new Uint8Array(10),
    new Uint8Array(10),
    new Uint8Array(10),
  ]);
  const bytes = await readCappedBody(post(stream), 16);
  assert.equal(bytes, null);
  assert.equal(seen.pulled, 2);
  assert.equal(seen.cancelled, true);
});

Deno.test("over real HTTP a chunked upload past the cap is refused and one within it is read", async () => {
  await using server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen() {} },
    async (request) => {
      const bytes = await readCappedBody(request, 1024);
      return bytes === null
        ? new Response("too large", { status: 413 })
        : new Response(String(bytes.byteLength));
    },
  );
  const url = `http://127.0.0.1:${server.addr.port}/`;
  const upload = (size: number) =>
    fetch(url, { method: "POST", body: recordedStream([new Uint8Array(size)]).stream });
  const small = await upload(1000);
  assert.equal(small.status, 200);
  assert.equal(await small.text(), "1000");
  const large = await upload(4096);
  assert.equal(large.status, 413);
  await large.body?.cancel();
});

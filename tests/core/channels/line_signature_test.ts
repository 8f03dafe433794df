/**
 * LINE's webhook signature: every reference vector (reference/line/
 * signature-vectors.json, copied beside this test) signs and verifies, and
 * a tampered, truncated, re-signed or malformed body or header does not.
 */

import assert from "node:assert/strict";
import {
  LineSignatureVerifier,
  signLineBody,
  verifyLineSignature,
} from "../../../core/channels/line/signature.ts";

interface Vector {
  name: string;
  body: string;
  bodyBytes: number;
  xLineSignature: string;
}

const vectors = JSON.parse(
  await Deno.readTextFile(new URL("./line_signature_vectors.json", import.meta.url)),
) as { channelSecret: string; vectors: Vector[] };
const secret = vectors.channelSecret;
const encode = (text: string) => new TextEncoder().encode(text);

Deno.test("the reference vectors are all there", () => {
  assert.equal(vectors.vectors.length, 3);
});

for (const vector of vectors.vectors) {
  Deno.test(`signature vector "${vector.name}" signs and verifies over the raw bytes`, async () => {
    const body = encode(vector.body);
    assert.equal(body.byteLength, vector.bodyBytes);
    assert.equal(await signLineBody(secret, body), vector.xLineSignature);
    const verifier = await LineSignatureVerifier.create(secret);
    assert.equal(await verifier.verify(body, vector.xLineSignature), true);
    assert.equal(await verifyLineSignature(secret, body, vector.xLineSignature), true);
  });

  Deno.test(`signature vector "${vector.name}" rejects a tampered body`, async () => {
    const verifier = await LineSignatureVerifier.create(secret);
    const body = encode(vector.body);
    assert.equal(await verifier.verify(encode(`${vector.body} `), vector.xLineSignature), false);
    assert.equal(await verifier.verify(body.slice(0, -1), vector.xLineSignature), false);
    const flipped = body.slice();
    flipped[10] ^= 1;
    assert.equal(await verifier.verify(flipped, vector.xLineSignature), false);
    // Re-serialised JSON is not the raw body.
    const reparsed = encode(JSON.stringify(JSON.parse(vector.body), null, 1));
    assert.equal(await verifier.verify(reparsed, vector.xLineSignature), false);
  });
}

Deno.test("a signature under another secret, or a malformed header, is rejected", async () => {
  const [vector] = vectors.vectors;
  const body = encode(vector.body);
  const other = await LineSignatureVerifier.create("fedcba9876543210fedcba9876543210");
  assert.equal(await other.verify(body, vector.xLineSignature), false);
  const verifier = await LineSignatureVerifier.create(secret);
  for (
    const header of [
      null,
      undefined,
      "",
      "not base64 at all!",
      vector.xLineSignature.slice(0, -4),
      `${vector.xLineSignature}AAAA`,
      vector.xLineSignature.toLowerCase(),
      btoa("x".repeat(32)),
    ]
  ) {
    assert.equal(await verifier.verify(body, header), false, `header ${JSON.stringify(header)}`);
  }
  // Surrounding whitespace in the header is tolerated (proxies add it).
  assert.equal(await verifier.verify(body, ` ${vector.xLineSignature} `), true);
});

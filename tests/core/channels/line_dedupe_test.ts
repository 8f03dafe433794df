/** The bounded LRU of webhook event ids. */

import assert from "node:assert/strict";
import { DEFAULT_RECENT_IDS, RecentIds } from "../../../core/channels/line/dedupe.ts";

Deno.test("an id is new the first time and seen after", () => {
  const seen = new RecentIds();
  assert.equal(seen.capacity, DEFAULT_RECENT_IDS);
  assert.equal(seen.check("01H810YECXQQZ37VAXPF6H9E6T"), false);
  assert.equal(seen.check("01H810YECXQQZ37VAXPF6H9E6T"), true);
  assert.equal(seen.check("01H810YECXQQZ37VAXPF6H9E6U"), false);
  assert.equal(seen.size, 2);
});

Deno.test("the set never holds more than its capacity and forgets the least recent id", () => {
  const seen = new RecentIds(3);
  for (const id of ["a", "b", "c"]) seen.check(id);
  assert.equal(seen.check("a"), true); // a is recent again; b is now the oldest
  seen.check("d");
  assert.equal(seen.size, 3);
  assert.equal(seen.has("b"), false);
  assert.equal(seen.has("a"), true);
  assert.equal(seen.has("c"), true);
  for (let i = 0; i < 1000; i++) seen.check(`id-${i}`);
  assert.equal(seen.size, 3);
});

Deno.test("a capacity that is not a positive whole number is refused", () => {
  assert.throws(() => new RecentIds(0), RangeError);
  assert.throws(() => new RecentIds(1.5), RangeError);
});

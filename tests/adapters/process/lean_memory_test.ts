/**
 * The lean long-lived process: the V8 flags merged into DENO_V8_FLAGS
 * (kept, not repeated), and trimming that works on this Linux and never
 * throws. What the two do to the gateway's RSS is measured by
 * bench/gateway.ts, not asserted here.
 */

import assert from "node:assert/strict";
import {
  LEAN_V8_FLAGS,
  leanV8Flags,
  trimFreedMemory,
} from "../../../adapters/process/lean_memory.ts";

Deno.test("the lean V8 flags join DENO_V8_FLAGS without dropping or repeating any", () => {
  assert.equal(leanV8Flags(undefined), LEAN_V8_FLAGS);
  assert.equal(leanV8Flags(""), LEAN_V8_FLAGS);
  assert.equal(
    leanV8Flags("--max-old-space-size=512"),
    `--max-old-space-size=512,${LEAN_V8_FLAGS}`,
  );
  assert.equal(leanV8Flags(` ${LEAN_V8_FLAGS} ,--expose-gc`), `${LEAN_V8_FLAGS},--expose-gc`);
});

Deno.test("a child started with the lean flags runs with them; trimming freed memory never throws", async () => {
  const child = await new Deno.Command(Deno.execPath(), {
    args: ["eval", "console.log(Deno.env.get('DENO_V8_FLAGS'))"],
    env: { DENO_V8_FLAGS: leanV8Flags(undefined) },
    stdout: "piped",
  }).output();
  assert.equal(child.code, 0, "deno accepts the flags");
  assert.equal(new TextDecoder().decode(child.stdout).trim(), LEAN_V8_FLAGS);
  trimFreedMemory();
  trimFreedMemory();
});

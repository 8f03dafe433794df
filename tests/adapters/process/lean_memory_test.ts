/**
 * The lean long-lived process: the V8 flags merged into DENO_V8_FLAGS
 * (kept, not repeated). That `herald gateway start` passes them is checked
 * in tests/e2e/gateway_e2e_test.ts; what they and the trimming do to the
 * gateway's RSS is measured by bench/gateway.ts, not asserted here.
 */

import assert from "node:assert/strict";
import { LEAN_V8_FLAGS, leanV8Flags } from "../../../adapters/process/lean_memory.ts";

Deno.test("the lean V8 flags join DENO_V8_FLAGS without dropping or repeating any", () => {
  assert.equal(leanV8Flags(undefined), LEAN_V8_FLAGS);
  assert.equal(leanV8Flags(""), LEAN_V8_FLAGS);
  assert.equal(
    leanV8Flags("--max-old-space-size=512"),
    `--max-old-space-size=512,${LEAN_V8_FLAGS}`,
  );
  assert.equal(leanV8Flags(` ${LEAN_V8_FLAGS} ,--expose-gc`), `${LEAN_V8_FLAGS},--expose-gc`);
});

/** The gateway log is moved aside past its size bound at `gateway start`, keeping one older file. */

import assert from "node:assert/strict";
import { join } from "node:path";
import { GATEWAY_LOG_ROTATE_BYTES, rotateLog } from "../../../adapters/runtime/gateway_process.ts";
import { tempDir } from "../../_helpers.ts";

Deno.test("a gateway log past its bound is moved to .1 (replacing the older one); a small one stays", async () => {
  await using dir = await tempDir();
  const log = join(dir.path, "gateway.log");
  await rotateLog(log);
  await Deno.writeTextFile(log, "small\n");
  await rotateLog(log);
  assert.equal(await Deno.readTextFile(log), "small\n");

  await Deno.writeTextFile(`${log}.1`, "oldest\n");
  await Deno.writeFile(log, new Uint8Array(GATEWAY_LOG_ROTATE_BYTES + 1).fill(0x61));
  await rotateLog(log);
  await assert.rejects(Deno.stat(log), Deno.errors.NotFound);
  assert.equal((await Deno.stat(`${log}.1`)).size, GATEWAY_LOG_ROTATE_BYTES + 1);
});

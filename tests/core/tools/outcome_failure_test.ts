/** The one rule for "did this tool call fail", shared by every surface. */

import assert from "node:assert/strict";
import { toolCallFailure } from "../../../core/tools/outcome_failure.ts";

Deno.test("a terminal command that exits non-zero or times out failed; exit 0 did not", () => {
  const terminal = (result: unknown) =>
    toolCallFailure({ name: "terminal", ok: true, content: JSON.stringify(result) });
  assert.equal(terminal({ exit_code: 3, stdout: "", stderr: "", timed_out: false }), "exit 3");
  assert.equal(terminal({ exit_code: -1, timed_out: true }), "timed out");
  assert.equal(terminal({ exit_code: 0, stdout: "ok", timed_out: false }), null);
});

Deno.test("a tool that failed says why; an error object in a result counts; other results do not", () => {
  assert.equal(
    toolCallFailure({ name: "read_file", ok: false, content: "{}", message: "no such file" }),
    "no such file",
  );
  assert.equal(
    toolCallFailure({
      name: "patch",
      ok: true,
      content: JSON.stringify({ error: "old_string not found", code: "not_found" }),
    }),
    "old_string not found",
  );
  assert.equal(toolCallFailure({ name: "read_file", ok: true, content: "not json" }), null);
  assert.equal(
    toolCallFailure({ name: "write_file", ok: true, content: JSON.stringify({ exit_code: 1 }) }),
    null,
    "only the terminal's exit code counts",
  );
});

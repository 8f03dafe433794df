import assert from "node:assert/strict";
import { openStateStore } from "../../../adapters/sqlite/mod.ts";
import { tempDir } from "../../_helpers.ts";

Deno.test("firstUserMessages: the first user message of each session, in one call", async () => {
  await using dir = await tempDir();
  const store = openStateStore(`${dir.path}/state.db`);
  try {
    const a = store.createSession({ source: "cli" });
    const b = store.createSession({ source: "cli" });
    const empty = store.createSession({ source: "cli" });
    const toolsOnly = store.createSession({ source: "cli" });
    store.appendMessages(a.id, [
      { role: "system", content: "be brief" },
      { role: "user", content: "first\0with a NUL" },
      { role: "assistant", content: "hi" },
      { role: "user", content: "second" },
    ]);
    store.appendMessages(b.id, [{ role: "user", content: null }, { role: "user", content: "x" }]);
    store.appendMessages(toolsOnly.id, [{ role: "assistant", content: "alone" }]);
    const firsts = store.firstUserMessages([a.id, b.id, empty.id, toolsOnly.id, "ses_none"]);
    assert.deepEqual(
      [...firsts].sort(([x], [y]) => x.localeCompare(y)),
      [[a.id, "first\0with a NUL"], [b.id, null]].sort(([x], [y]) =>
        String(x).localeCompare(String(y))
      ),
    );
    assert.equal(store.firstUserMessages([]).size, 0);
  } finally {
    store.close();
  }
});

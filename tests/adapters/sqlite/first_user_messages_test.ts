import assert from "node:assert/strict";
import { openStateStore } from "../../../adapters/sqlite/mod.ts";
import { tempDir } from "../../_helpers.ts";

Deno.test("sessionActivity: the first user message, last activity and answer of each session, in one call", async () => {
  await using dir = await tempDir();
  const store = openStateStore(`${dir.path}/state.db`);
  try {
    const a = store.createSession({ source: "cli" });
    const b = store.createSession({ source: "cli" });
    const empty = store.createSession({ source: "cli" });
    const toolsOnly = store.createSession({ source: "cli" });
    store.appendMessages(a.id, [
      { role: "system", content: "be brief", timestamp: 10 },
      { role: "user", content: "first\0with a NUL", timestamp: 11 },
      { role: "assistant", content: "hi", timestamp: 12 },
      { role: "user", content: "second", timestamp: 13 },
    ]);
    store.appendMessages(b.id, [
      { role: "user", content: null, timestamp: 20 },
      { role: "user", content: "x", timestamp: 21 },
    ]);
    store.appendMessages(toolsOnly.id, [{ role: "assistant", content: "alone", timestamp: 30 }]);
    const activity = store.sessionActivity([a.id, b.id, empty.id, toolsOnly.id, "ses_none"]);
    assert.deepEqual(activity.get(a.id), {
      firstUserMessage: "first\0with a NUL",
      lastActive: 13,
      answered: true,
    });
    assert.deepEqual(activity.get(b.id), {
      firstUserMessage: null,
      lastActive: 21,
      answered: false,
    });
    assert.deepEqual(activity.get(empty.id), {
      firstUserMessage: null,
      lastActive: null,
      answered: false,
    });
    assert.deepEqual(activity.get(toolsOnly.id), {
      firstUserMessage: null,
      lastActive: 30,
      answered: true,
    });
    assert.equal(activity.has("ses_none"), false, "a session that does not exist has no entry");
    assert.equal(store.sessionActivity([]).size, 0);
  } finally {
    store.close();
  }
});

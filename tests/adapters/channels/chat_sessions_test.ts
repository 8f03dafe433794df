/** The chat → session store: `gateway_chats.json` in the profile home. */

import assert from "node:assert/strict";
import { openChatSessionStore } from "../../../adapters/channels/chat_sessions.ts";
import { tempDir } from "../../_helpers.ts";

Deno.test("each chat and each thread keeps its own session across opens", async () => {
  await using home = await tempDir();
  const store = openChatSessionStore(home.path, () => 5);
  const chat = { platform: "telegram", chatId: "42" };
  const topic = { platform: "telegram", chatId: "42", threadId: "7" };
  assert.equal(await store.get(chat), undefined);
  await store.set(chat, "ses_a");
  await store.set(topic, "ses_b");
  const again = openChatSessionStore(home.path);
  assert.equal(await again.get(chat), "ses_a");
  assert.equal(await again.get(topic), "ses_b");
  assert.equal(await again.get({ platform: "line", chatId: "42" }), undefined);
  await again.delete(chat);
  assert.equal(await store.get(chat), undefined);
  assert.equal(await store.get(topic), "ses_b");
  assert.deepEqual(JSON.parse(await Deno.readTextFile(store.path)), {
    version: 1,
    chats: { "telegram:42:7": { session_id: "ses_b", updated_at: 5 } },
  });
});

Deno.test("concurrent changes from two stores are all kept", async () => {
  await using home = await tempDir();
  const a = openChatSessionStore(home.path);
  const b = openChatSessionStore(home.path);
  await Promise.all(
    Array.from(
      { length: 20 },
      (_, i) => (i % 2 ? a : b).set({ platform: "telegram", chatId: String(i) }, `ses_${i}`),
    ),
  );
  for (let i = 0; i < 20; i++) {
    assert.equal(await a.get({ platform: "telegram", chatId: String(i) }), `ses_${i}`);
  }
});

Deno.test("an unreadable file is set aside, not overwritten, at the next change", async () => {
  await using home = await tempDir();
  const store = openChatSessionStore(home.path, () => 77);
  await Deno.writeTextFile(store.path, "{ broken");
  assert.equal(await store.get({ platform: "telegram", chatId: "1" }), undefined);
  await store.set({ platform: "telegram", chatId: "1" }, "ses_new");
  assert.equal(await Deno.readTextFile(`${store.path}.corrupt-77`), "{ broken");
  assert.equal(await store.get({ platform: "telegram", chatId: "1" }), "ses_new");
});

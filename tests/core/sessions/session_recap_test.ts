/**
 * The recap a resumed session shows: the last exchanges, without tool
 * traffic, each text shortened with "…".
 */

import assert from "node:assert/strict";
import { type RecapMessage, sessionRecap } from "../../../core/sessions/recap.ts";

const user = (content: string | null): RecapMessage => ({ role: "user", content });
const assistant = (content: string | null): RecapMessage => ({ role: "assistant", content });
const tool = (content: string): RecapMessage => ({ role: "tool", content });

Deno.test("a recap is the last three exchanges, skipping tool messages and tool-call-only turns", () => {
  const messages: RecapMessage[] = [
    { role: "system", content: "be brief" },
    user("one"),
    assistant("first answer"),
    user("two"),
    assistant("second answer"),
    user("three"),
    assistant(null),
    tool('{"exit_code":0}'),
    assistant("Let me look at the output."),
    tool('{"exit_code":1}'),
    assistant("  third answer  "),
    user("four"),
    assistant("fourth answer"),
  ];
  assert.deepEqual(sessionRecap(messages), [
    { role: "user", text: "two" },
    { role: "assistant", text: "second answer" },
    { role: "user", text: "three" },
    { role: "assistant", text: "third answer" },
    { role: "user", text: "four" },
    { role: "assistant", text: "fourth answer" },
  ]);
  assert.deepEqual(sessionRecap(messages, { exchanges: 1 }), [
    { role: "user", text: "four" },
    { role: "assistant", text: "fourth answer" },
  ]);
  assert.deepEqual(sessionRecap(messages, { exchanges: 0 }), []);
});

Deno.test("a recap of a short or unanswered session shows what there is", () => {
  assert.deepEqual(sessionRecap([]), []);
  assert.deepEqual(sessionRecap([user("hello?")]), [{ role: "user", text: "hello?" }]);
  assert.deepEqual(sessionRecap([user("a"), assistant("b")], { exchanges: 5 }), [
    { role: "user", text: "a" },
    { role: "assistant", text: "b" },
  ]);
  assert.deepEqual(
    sessionRecap([assistant("a summary before any question"), user(""), user("q")]),
    [{ role: "assistant", text: "a summary before any question" }, { role: "user", text: "q" }],
    "an assistant text before any user message is an exchange of its own; empty texts are skipped",
  );
});

Deno.test("long texts are shortened with an ellipsis, never inside a surrogate pair", () => {
  const [entry] = sessionRecap([user("x".repeat(1000))]);
  assert.equal(entry.text.length, 300);
  assert.ok(entry.text.endsWith("…"));
  const [short] = sessionRecap([user("word ".repeat(10))], { maxChars: 12 });
  assert.equal(short.text, "word word…");
  const emoji = "😀".repeat(10); // each is two UTF-16 code units
  const [cut] = sessionRecap([assistant(emoji)], { maxChars: 4 });
  assert.equal(cut.text, "😀…");
  assert.ok(cut.text.length <= 4);
  const [kept] = sessionRecap([user("exactly ten")], { maxChars: 11 });
  assert.equal(kept.text, "exactly ten");
  assert.throws(() => sessionRecap([], { exchanges: -1 }), RangeError);
  assert.throws(() => sessionRecap([], { maxChars: 0 }), RangeError);
});

/** The screen's last defence: only colours and text reach the terminal. */

import assert from "node:assert/strict";
import { safeLine } from "../../../cli/tui/screen.ts";

Deno.test("safeLine keeps colours and text, and drops cursor moves, clears, titles and control characters", () => {
  assert.equal(
    safeLine("a\x1b[31mred\x1b[0m\r\x1b[2Kls\x1b]0;title\x07 ok\n\x1b\\x\x07"),
    "a\x1b[31mred\x1b[0mls okx",
  );
  assert.equal(safeLine("plain text, café 🙂"), "plain text, café 🙂");
  assert.equal(
    safeLine("\x1b[1;38;5;208mbold orange\x1b[22;39m"),
    "\x1b[1;38;5;208mbold orange\x1b[22;39m",
  );
});

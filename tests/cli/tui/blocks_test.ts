/**
 * cli/tui/blocks.ts: tool titles and finished-tool blocks (status, output
 * preview, diffs of edits), within the width and safe for the terminal.
 */

import assert from "node:assert/strict";
import type { ToolCall } from "../../../core/models/types.ts";
import { toolBlock, type ToolEnd, toolFailed, toolTitle } from "../../../cli/tui/blocks.ts";
import { createStyle, displayWidth } from "../../../cli/tui/style.ts";

const plain = createStyle(false);
const color = createStyle(true);

function call(name: string, args: unknown): ToolCall {
  return { id: "call_1", name, arguments: typeof args === "string" ? args : JSON.stringify(args) };
}

function terminal(result: Partial<Record<string, unknown>>, command = "npm test"): ToolEnd {
  return {
    call: call("terminal", { command }),
    ok: true,
    summary: "",
    durationMs: 1234,
    content: JSON.stringify({
      exit_code: 0,
      stdout: "",
      stderr: "",
      timed_out: false,
      duration_ms: 1234,
      ...result,
    }),
  };
}

const numbered = (count: number, label = "line") =>
  Array.from({ length: count }, (_, i) => `${label} ${i + 1}`).join("\n") + "\n";

Deno.test("a title names the tool and its most telling argument", () => {
  assert.equal(
    toolTitle(call("terminal", { command: "npm test" }), plain, 80),
    "● terminal  npm test",
  );
  assert.equal(
    toolTitle(call("read_file", { path: "src/a.ts", offset: 3 }), plain, 80),
    "● read_file  src/a.ts",
  );
  assert.equal(
    toolTitle(call("search_files", { pattern: "TODO", path: "src" }), plain, 80),
    "● search_files  TODO  in src",
  );
  assert.equal(
    toolTitle(call("session_search", { query: "deploy" }), plain, 80),
    "● session_search  deploy",
  );
  assert.equal(toolTitle(call("skills_list", {}), plain, 80), "● skills_list");
  assert.equal(toolTitle(call("odd", "not json"), plain, 80), "● odd  not json");
});

Deno.test("a long or multi-line argument is put on one line and cut to the width", () => {
  const title = toolTitle(
    call("terminal", { command: "echo one\necho two && " + "x".repeat(100) }),
    plain,
    40,
  );
  assert.equal(displayWidth(title), 40);
  assert.ok(title.startsWith("● terminal  echo one ⏎ echo two"));
  assert.ok(title.endsWith("…"));
  assert.ok(displayWidth(toolTitle(call("terminal", { command: "ls" }), color, 5)) <= 5);
});

Deno.test("a failure is a failed tool, a non-zero exit or a timeout", () => {
  assert.equal(toolFailed(terminal({})), false);
  assert.equal(toolFailed(terminal({ exit_code: 2 })), true);
  assert.equal(toolFailed(terminal({ timed_out: true, exit_code: 0 })), true);
  const failed: ToolEnd = {
    call: call("read_file", { path: "x" }),
    ok: false,
    summary: "not found",
    durationMs: 1,
    content: JSON.stringify({ error: 'File "x" not found', code: "not_found" }),
  };
  assert.equal(toolFailed(failed), true);
  assert.equal(toolFailed({ ...failed, ok: true, content: '{"path":"x","content":""}' }), false);
  assert.equal(toolFailed({ ...failed, ok: true, content: "not json" }), false);
});

Deno.test("a successful command shows a check, the duration and its output", () => {
  assert.deepEqual(toolBlock(terminal({ stdout: "ok: 3 passed\n" }), plain, 60), [
    "  ✓ 1.2s",
    "  │ ok: 3 passed",
  ]);
  assert.deepEqual(toolBlock(terminal({}), plain, 60), ["  ✓ 1.2s", "  │ (no output)"]);
});

Deno.test("a long output shows its first and last three lines and how many are hidden", () => {
  const lines = toolBlock(terminal({ stdout: numbered(20), stderr: "warning: slow\n" }), plain, 60);
  assert.deepEqual(lines, [
    "  ✓ 1.2s",
    "  │ line 1",
    "  │ line 2",
    "  │ line 3",
    "  │ … 14 more lines",
    "  │ line 18",
    "  │ line 19",
    "  │ line 20",
    "  │ warning: slow",
  ]);
  assert.equal(toolBlock(terminal({ stdout: numbered(7) }), plain, 60).length, 8);
});

Deno.test("a command that exits non-zero or times out says so in red", () => {
  const failed = toolBlock(terminal({ exit_code: 1, stderr: "boom\n" }), plain, 60);
  assert.deepEqual(failed, ["  ✗ exit 1 · 1.2s", "  │ boom"]);
  const colored = toolBlock(terminal({ exit_code: 1, stderr: "boom\n" }), color, 60);
  assert.ok(colored[0].includes(color.error("exit 1")));
  assert.ok(colored[1].includes(color.error("boom")));
  assert.equal(
    toolBlock(terminal({ timed_out: true, exit_code: 143 }), plain, 60)[0],
    "  ✗ timed out · 1.2s",
  );
});

Deno.test("a failed tool shows its error, wrapped when long", () => {
  const message =
    'File "notes/today.md" not found; check the path relative to the working directory';
  const lines = toolBlock(
    {
      call: call("read_file", { path: "notes/today.md" }),
      ok: false,
      summary: message,
      durationMs: 4,
      content: JSON.stringify({ error: message, code: "not_found" }),
    },
    plain,
    40,
  );
  assert.equal(lines[0], '  ✗ File "notes/today.md" not · 4ms');
  assert.ok(lines.length > 1);
  assert.equal(
    lines.join(" ").replace(/\s+/g, " ").includes("relative to the working directory"),
    true,
  );
  const bare = toolBlock(
    { call: call("x", {}), ok: false, summary: "denied", durationMs: 0 },
    plain,
    40,
  );
  assert.deepEqual(bare, ["  ✗ denied · 0ms"]);
});

Deno.test("a patch shows the diff of old_string to new_string and lint errors", () => {
  const lines = toolBlock(
    {
      call: call("patch", { path: "a.ts", old_string: "a\nb\nc", new_string: "a\nB\nc" }),
      ok: true,
      summary: "",
      durationMs: 12,
      content: JSON.stringify({
        path: "/w/a.ts",
        bytes_written: 6,
        replacements: 2,
        lint: { status: "error", output: "2:1 Unexpected token\nmore" },
      }),
    },
    plain,
    60,
  );
  assert.deepEqual(lines, [
    "  ✓ 12ms",
    // A snippet of the file: no line numbers (they would not be the file's).
    "    a",
    "  - b",
    "  + B",
    "    c",
    "  2 replacements",
    "  ! lint: 2:1 Unexpected token",
  ]);
});

Deno.test("a write shows a diff against the old file, or the start of a new one", () => {
  const args = { path: "notes.md", content: numbered(8) };
  const base = {
    call: call("write_file", args),
    ok: true,
    summary: "",
    durationMs: 3,
    content: "{}",
  };
  assert.deepEqual(
    toolBlock({ ...base, before: numbered(8).replace("line 4", "old 4") }, plain, 60),
    [
      "  ✓ 3ms",
      "  1   line 1",
      "  2   line 2",
      "  3   line 3",
      "  4 - old 4",
      "  4 + line 4",
      "  5   line 5",
      "  6   line 6",
      "  7   line 7",
      "    ⋯ 1 unchanged line",
    ],
  );
  assert.deepEqual(toolBlock({ ...base, before: null }, plain, 60), [
    "  ✓ 3ms",
    "  new file, 8 lines",
    "  1 + line 1",
    "  2 + line 2",
    "  3 + line 3",
    "  4 + line 4",
    "  5 + line 5",
    "  +3 lines",
  ]);
  assert.deepEqual(toolBlock({ ...base, before: numbered(8) }, plain, 60), [
    "  ✓ 3ms",
    "  no change",
  ]);
});

Deno.test("reads and searches get a one-line summary and their matches", () => {
  const read = toolBlock(
    {
      call: call("read_file", { path: "a.ts" }),
      ok: true,
      summary: "",
      durationMs: 2,
      content: JSON.stringify({
        path: "/w/a.ts",
        content: "1|a\n2|b",
        total_lines: 90,
        truncated: true,
        next_offset: 3,
      }),
    },
    plain,
    60,
  );
  assert.deepEqual(read, ["  ✓ 2ms", "  │ 2 of 90 lines, more from line 3"]);
  const search = toolBlock(
    {
      call: call("search_files", { pattern: "TODO" }),
      ok: true,
      summary: "",
      durationMs: 2,
      content: JSON.stringify({
        mode: "content",
        matches: [{ file: "a.ts", line: 3, text: "// TODO one" }, {
          file: "b.ts",
          line: 9,
          text: "TODO two",
        }],
        count: 2,
        truncated: false,
      }),
    },
    plain,
    60,
  );
  assert.deepEqual(search, [
    "  ✓ 2ms",
    "  │ 2 matches",
    "  │ a.ts:3: // TODO one",
    "  │ b.ts:9: TODO two",
  ]);
});

Deno.test("other tools show their result on one line", () => {
  const lines = toolBlock(
    {
      call: call("memory", { action: "add", target: "user", content: "likes tea" }),
      ok: true,
      summary: "",
      durationMs: 2,
      content: JSON.stringify({ ok: true, entries: 3 }),
    },
    plain,
    60,
  );
  assert.deepEqual(lines, ["  ✓ 2ms", '  │ {"ok":true,"entries":3}']);
});

Deno.test("blocks fit the width, strip the output's escapes and have none without colour", () => {
  const hostile = terminal({
    exit_code: 1,
    stdout: "\x1b[31mred\x1b[0m\r\n\x1b[2Jcleared\t" + "wide 漢字".repeat(30) + "\n",
    stderr: "\x1b]0;title\x07err",
  });
  for (const width of [12, 30, 80]) {
    for (const style of [plain, color]) {
      const lines = [toolTitle(hostile.call, style, width), ...toolBlock(hostile, style, width)];
      for (const line of lines) {
        assert.ok(displayWidth(line) <= width, `${JSON.stringify(line)} fits ${width}`);
        assert.ok(!line.includes("\r") && !line.includes("\t") && !line.includes("\x07"));
        if (!style.enabled) assert.ok(!line.includes("\x1b"), line);
      }
    }
  }
  assert.deepEqual(toolBlock(hostile, plain, 80).slice(1, 3), [
    "  │ red",
    "  │ cleared " + "wide 漢字".repeat(7) + "wide…",
  ]);
});

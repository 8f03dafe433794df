import assert from "node:assert/strict";
import { join } from "node:path";
import {
  createMemoryTool,
  MEMORY_LIMITS,
  memoryFile,
  readMemorySnapshot,
} from "../../../adapters/tools/memory.ts";
import { ToolError } from "../../../core/tools/types.ts";
import { tempDir } from "../../_helpers.ts";
import { toolContext } from "./_context.ts";

const memory = createMemoryTool();

function toolError(code: string, includes: string[] = []) {
  return (error: unknown) => {
    assert.ok(error instanceof ToolError, `expected a ToolError, got ${error}`);
    assert.equal(error.code, code, error.message);
    for (const text of includes) assert.ok(error.message.includes(text), error.message);
    return true;
  };
}

Deno.test("memory add appends entries separated by a delimiter line", async () => {
  await using dir = await tempDir();
  const ctx = toolContext({ cwd: dir.path, home: dir.path });
  await memory.run({ action: "add", target: "memory", content: "Project uses Deno 2" }, ctx);
  const result = await memory.run(
    { action: "add", target: "memory", content: "  Tests run with deno test -A  " },
    ctx,
  );
  assert.deepEqual(result, {
    target: "memory",
    entries: ["Project uses Deno 2", "Tests run with deno test -A"],
    usage: `${"Project uses Deno 2\n§\nTests run with deno test -A".length}/2200 chars`,
  });
  assert.equal(
    await Deno.readTextFile(join(dir.path, "memories", "MEMORY.md")),
    "Project uses Deno 2\n§\nTests run with deno test -A\n",
  );
});

Deno.test("memory keeps user facts in USER.md, apart from the agent's notes", async () => {
  await using dir = await tempDir();
  const ctx = toolContext({ cwd: dir.path, home: dir.path });
  await memory.run({ action: "add", target: "user", content: "Name is Ada" }, ctx);
  await memory.run({ action: "add", target: "memory", content: "Repo at ~/src/x" }, ctx);
  assert.equal(memoryFile(dir.path, "user"), join(dir.path, "memories", "USER.md"));
  assert.equal(await Deno.readTextFile(memoryFile(dir.path, "user")), "Name is Ada\n");
  assert.deepEqual(await readMemorySnapshot(dir.path), {
    memory: "Repo at ~/src/x",
    user: "Name is Ada",
  });
});

Deno.test("memory snapshot of a home without memories is empty", async () => {
  await using dir = await tempDir();
  assert.deepEqual(await readMemorySnapshot(dir.path), { memory: "", user: "" });
});

Deno.test("memory refuses a duplicate entry", async () => {
  await using dir = await tempDir();
  const ctx = toolContext({ cwd: dir.path, home: dir.path });
  await memory.run({ action: "add", target: "user", content: "Likes tea" }, ctx);
  await assert.rejects(
    memory.run({ action: "add", target: "user", content: "Likes tea " }, ctx),
    toolError("duplicate"),
  );
});

Deno.test("memory replace and remove act on the single entry containing old_text", async () => {
  await using dir = await tempDir();
  const ctx = toolContext({ cwd: dir.path, home: dir.path });
  for (const content of ["Editor: vim", "Shell: zsh", "Shell theme: dark"]) {
    await memory.run({ action: "add", target: "user", content }, ctx);
  }
  const replaced = await memory.run(
    { action: "replace", target: "user", old_text: "vim", content: "Editor: helix" },
    ctx,
  );
  assert.deepEqual(replaced.entries, ["Editor: helix", "Shell: zsh", "Shell theme: dark"]);

  await assert.rejects(
    memory.run({ action: "remove", target: "user", old_text: "Shell" }, ctx),
    toolError("ambiguous", ["2", "longer old_text"]),
  );
  await assert.rejects(
    memory.run({ action: "remove", target: "user", old_text: "emacs" }, ctx),
    toolError("not_found", ['"emacs"']),
  );
  const removed = await memory.run({ action: "remove", target: "user", old_text: "zsh" }, ctx);
  assert.deepEqual(removed.entries, ["Editor: helix", "Shell theme: dark"]);
  assert.equal(
    await Deno.readTextFile(memoryFile(dir.path, "user")),
    "Editor: helix\n§\nShell theme: dark\n",
  );
});

Deno.test("memory refuses an entry that does not fit and says how much is free", async () => {
  await using dir = await tempDir();
  const ctx = toolContext({ cwd: dir.path, home: dir.path });
  const big = "x".repeat(MEMORY_LIMITS.user - 100);
  await memory.run({ action: "add", target: "user", content: big }, ctx);
  await assert.rejects(
    memory.run({ action: "add", target: "user", content: "y".repeat(200) }, ctx),
    toolError("memory_full", ["only 100 of 1375", "are free"]),
  );
  await assert.rejects(
    memory.run({ action: "add", target: "memory", content: "z".repeat(2201) }, ctx),
    toolError("too_long", ["2201", "2200"]),
  );
  const fits = await memory.run({ action: "add", target: "user", content: "y".repeat(97) }, ctx);
  assert.equal(fits.usage, "1375/1375 chars");
});

Deno.test("memory validates what each action needs", async () => {
  await using dir = await tempDir();
  const ctx = toolContext({ cwd: dir.path, home: dir.path });
  await assert.rejects(
    memory.run({ action: "add", target: "memory" }, ctx),
    toolError("invalid_argument", ["content"]),
  );
  await assert.rejects(
    memory.run({ action: "remove", target: "memory" }, ctx),
    toolError("invalid_argument", ["old_text"]),
  );
  await assert.rejects(
    memory.run({ action: "add", target: "memory", content: "a\n§\nb" }, ctx),
    toolError("invalid_argument", ["separator"]),
  );
  assert.equal(memory.schema.safeParse({ action: "read", target: "memory" }).success, false);
});

Deno.test("memory serializes concurrent writes to one file", async () => {
  await using dir = await tempDir();
  const ctx = toolContext({ cwd: dir.path, home: dir.path });
  await Promise.all(
    Array.from(
      { length: 10 },
      (_, i) => memory.run({ action: "add", target: "memory", content: `note ${i}` }, ctx),
    ),
  );
  const { memory: text } = await readMemorySnapshot(dir.path);
  assert.equal(text.split("\n§\n").length, 10);
});

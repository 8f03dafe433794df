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

Deno.test("adding an exact duplicate succeeds and says nothing new was added", async () => {
  await using dir = await tempDir();
  const ctx = toolContext({ cwd: dir.path, home: dir.path });
  await memory.run({ action: "add", target: "user", content: "Likes tea" }, ctx);
  const file = join(dir.path, "memories", "USER.md");
  const before = await Deno.readTextFile(file);
  const again = await memory.run({ action: "add", target: "user", content: "Likes tea " }, ctx);
  assert.deepEqual(again.entries, ["Likes tea"]);
  assert.match(again.note ?? "", /already holds this exact entry; nothing new was added/);
  assert.equal(again.evicted, undefined);
  assert.equal(await Deno.readTextFile(file), before);
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

Deno.test("a full memory moves its oldest entries to the archive and reports them", async () => {
  await using dir = await tempDir();
  const ctx = toolContext({ cwd: dir.path, home: dir.path });
  const first = "a".repeat(600);
  const second = "b".repeat(600);
  await memory.run({ action: "add", target: "user", content: first }, ctx);
  await memory.run({ action: "add", target: "user", content: second }, ctx);
  const third = "c".repeat(300);
  const result = await memory.run({ action: "add", target: "user", content: third }, ctx);
  assert.deepEqual(result.evicted, [first]);
  assert.deepEqual(result.entries, [second, third]);
  assert.equal(result.usage, `${600 + 3 + 300}/${MEMORY_LIMITS.user} chars`);
  const archived = (await Deno.readTextFile(join(dir.path, "memories", "ARCHIVE.jsonl")))
    .trim().split("\n").map((line) => JSON.parse(line));
  assert.equal(archived.length, 1);
  assert.equal(archived[0].target, "user");
  assert.equal(archived[0].entry, first);
  assert.ok(!Number.isNaN(Date.parse(archived[0].archived_at)));
  // A replacement that grows past the budget evicts others, never itself.
  const grown = await memory.run(
    { action: "replace", target: "user", old_text: "ccc", content: "d".repeat(1000) },
    ctx,
  );
  assert.deepEqual(grown.evicted, [second]);
  assert.deepEqual(grown.entries, ["d".repeat(1000)]);
  // An entry larger than the whole budget is still refused, and nothing is evicted for it.
  await assert.rejects(
    memory.run({ action: "add", target: "memory", content: "z".repeat(2201) }, ctx),
    toolError("too_long", ["2201", "2200"]),
  );
  const fits = await memory.run({ action: "add", target: "user", content: "y".repeat(372) }, ctx);
  assert.equal(fits.usage, "1375/1375 chars");
  assert.equal(fits.evicted, undefined);
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

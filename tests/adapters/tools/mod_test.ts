import assert from "node:assert/strict";
import { z } from "zod";
import { builtinTools } from "../../../adapters/tools/mod.ts";
import { tempDir } from "../../_helpers.ts";
import { toolContext } from "./_context.ts";

Deno.test("builtin tools come in a fixed order", () => {
  assert.deepEqual(builtinTools().map((tool) => tool.name), [
    "terminal",
    "read_file",
    "write_file",
    "patch",
    "search_files",
    "memory",
    "todo",
  ]);
});

Deno.test("every builtin tool schema renders to an object JSON Schema with described fields", () => {
  for (const tool of builtinTools()) {
    const schema = z.toJSONSchema(tool.schema as z.ZodType, { io: "input" }) as {
      type: string;
      properties: Record<string, { description?: string }>;
    };
    assert.equal(schema.type, "object", tool.name);
    assert.ok(tool.description.length > 20, tool.name);
    for (const [key, property] of Object.entries(schema.properties)) {
      assert.ok(property.description, `${tool.name}.${key} has no description`);
    }
  }
});

Deno.test("only the file-writing tools report a mutated path and only readers are read-only", async () => {
  await using dir = await tempDir();
  const ctx = toolContext({ cwd: dir.path });
  const byName = Object.fromEntries(builtinTools().map((tool) => [tool.name, tool]));
  assert.deepEqual(
    Object.keys(byName).filter((name) => byName[name].mutatedPath),
    ["write_file", "patch"],
  );
  assert.deepEqual(
    Object.keys(byName).filter((name) => byName[name].readOnly),
    ["read_file", "search_files"],
  );
  assert.equal(byName.patch.mutatedPath?.({ path: "x/y.ts" }, ctx), `${dir.path}/x/y.ts`);
});

Deno.test("builtin todo and file tools work through the erased Tool interface", async () => {
  await using dir = await tempDir();
  const ctx = toolContext({ cwd: dir.path });
  const [, , writeFile, , , , todo] = builtinTools();
  assert.deepEqual(await writeFile.run({ path: "a.txt", content: "hi" }, ctx), {
    path: `${dir.path}/a.txt`,
    bytes_written: 2,
    lint: { status: "skipped", output: "no syntax checker for .txt files" },
  });
  const todos = await todo.run({ todos: [{ id: "1", content: "x" }] }, ctx) as {
    summary: { total: number };
  };
  assert.equal(todos.summary.total, 1);
});

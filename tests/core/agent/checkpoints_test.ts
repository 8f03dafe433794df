/**
 * The checkpoint bookkeeping and rollback decisions of core/agent/checkpoints.ts
 * over the real store on disk (adapters/checkpoints) and a real file-writing
 * tool: once per file per turn, restore and remove on rollback, hand-edits
 * kept, later turns undone with an earlier checkpoint, pruning, and the
 * `/rollback` command's arguments.
 */

import assert from "node:assert/strict";
import { dirname, join } from "node:path";
import { z } from "zod";
import {
  Checkpoints,
  rollbackReply,
  type TurnCheckpoint,
} from "../../../core/agent/checkpoints.ts";
import type { TurnSession } from "../../../core/agent/turn_runtime.ts";
import { createSlashRegistry } from "../../../core/commands/mod.ts";
import type { ToolCall } from "../../../core/models/types.ts";
import { ToolRegistry } from "../../../core/tools/registry.ts";
import { defineTool, type ToolContext, ToolError } from "../../../core/tools/types.ts";
import { openCheckpointStore } from "../../../adapters/checkpoints/mod.ts";
import { builtinTools } from "../../../adapters/tools/mod.ts";
import { tempDir } from "../../_helpers.ts";

/** A tool that writes `text` to `path` (under cwd), failing on demand. */
const putTool = defineTool({
  name: "put",
  description: "write a file",
  schema: z.object({ path: z.string(), text: z.string(), fail: z.boolean().optional() }),
  mutatedPath: (args, context) => join(context.cwd, args.path),
  async run(args, context) {
    if (args.fail) throw new ToolError("refused", "refused on purpose");
    const path = join(context.cwd, args.path);
    await Deno.mkdir(dirname(path), { recursive: true });
    await Deno.writeTextFile(path, args.text);
    return { written: args.path };
  },
});

const readTool = defineTool({
  name: "look",
  description: "read nothing",
  schema: z.object({}),
  readOnly: true,
  run: () => Promise.resolve("ok"),
});

interface Fixture extends AsyncDisposable {
  work: string;
  store: string;
  checkpoints: Checkpoints;
  tools: ToolRegistry;
  context: ToolContext;
  /** Runs one turn of `put` calls as a session would. */
  turn(sessionId: string, messageId: number, text: string, calls: object[]): Promise<void>;
  read(path: string): Promise<string>;
}

let callNumber = 0;
function call(name: string, args: object | string): ToolCall {
  return {
    id: `call_${++callNumber}`,
    name,
    arguments: typeof args === "string" ? args : JSON.stringify(args),
  };
}

async function fixture(maxSnapshots?: number): Promise<Fixture> {
  const root = await tempDir();
  const work = join(root.path, "work");
  const store = join(root.path, "home", "checkpoints");
  await Deno.mkdir(work, { recursive: true });
  const checkpoints = new Checkpoints(openCheckpointStore(store, work), { maxSnapshots });
  const tools = new ToolRegistry([putTool, readTool]);
  const context: ToolContext = {
    sessionId: "ses_test",
    cwd: work,
    home: join(root.path, "home"),
    signal: new AbortController().signal,
    approve: () => Promise.resolve(true),
  };
  return {
    work,
    store,
    checkpoints,
    tools,
    context,
    async turn(sessionId, messageId, text, calls) {
      const turn: TurnCheckpoint = checkpoints.turn({ sessionId, messageId, text });
      for (const args of calls) await turn.execute(tools, call("put", args), context);
    },
    read: (path) => Deno.readTextFile(join(work, path)),
    [Symbol.asyncDispose]: () => root[Symbol.asyncDispose](),
  };
}

async function exists(path: string): Promise<boolean> {
  return await Deno.lstat(path).then(() => true, () => false);
}

Deno.test("a turn keeps each file once, before its first write, and lists what it changed", async () => {
  await using f = await fixture();
  await Deno.writeTextFile(join(f.work, "a.txt"), "one");
  await f.turn("ses_a", 7, "Rewrite a and add b\nwith a second line", [
    { path: "a.txt", text: "two" },
    { path: "a.txt", text: "three" },
    { path: "sub/dir/b.txt", text: "bee" },
  ]);

  const records = await f.checkpoints.store.list();
  assert.equal(records.length, 1, "one checkpoint per turn");
  const [record] = records;
  assert.equal(record.files.length, 2, "each file once");
  assert.equal(record.messageId, 7);
  assert.equal(record.label, "Rewrite a and add b");
  const a = record.files[0];
  assert.equal(a.before.kind, "file");
  assert.deepEqual(a.after, await f.checkpoints.store.inspect(join(f.work, "a.txt")));
  assert.notDeepEqual(a.before, a.after);
  assert.equal(record.files[1].before.kind, "absent");

  const [entry] = await f.checkpoints.list("ses_a");
  assert.equal(entry.number, 1);
  assert.deepEqual(entry.files, ["a.txt", join("sub", "dir", "b.txt")]);
  assert.deepEqual(await f.checkpoints.list("ses_other"), [], "another session sees none");
});

Deno.test("a turn that writes no file takes no checkpoint", async () => {
  await using f = await fixture();
  const turn = f.checkpoints.turn({ sessionId: "ses_a", messageId: 1, text: "just look" });
  await turn.execute(f.tools, call("look", {}), f.context);
  await turn.execute(f.tools, call("put", "{not json"), f.context);
  assert.deepEqual(await f.checkpoints.store.list(), []);
  assert.equal(f.tools.mutatedPath(call("put", "{not json"), f.context), undefined);
  assert.equal(f.tools.mutatedPath(call("look", {}), f.context), undefined);
  assert.equal(
    f.tools.mutatedPath(call("put", { path: "x", text: "" }), f.context),
    join(f.work, "x"),
  );
});

Deno.test("rollback restores changed files, removes created ones and keeps hand-edits", async () => {
  await using f = await fixture();
  await Deno.writeTextFile(join(f.work, "a.txt"), "original a");
  await Deno.writeTextFile(join(f.work, "c.txt"), "original c");
  await f.turn("ses_a", 3, "change things", [
    { path: "a.txt", text: "agent a" },
    { path: "sub/dir/b.txt", text: "agent b" },
    { path: "c.txt", text: "agent c" },
    { path: "d.txt", text: "never written", fail: true },
  ]);
  await Deno.writeTextFile(join(f.work, "c.txt"), "the user's own c");

  const outcome = await f.checkpoints.rollback("ses_a", 1);
  assert.ok(outcome.ok);
  assert.deepEqual(outcome.restored, ["a.txt"]);
  assert.deepEqual(outcome.removed, [join("sub", "dir", "b.txt")]);
  assert.deepEqual(outcome.kept, ["c.txt"]);
  assert.deepEqual(outcome.skipped, []);
  assert.equal(outcome.messageId, 3);
  assert.equal(outcome.undone, 1);
  assert.equal(await f.read("a.txt"), "original a");
  assert.equal(await f.read("c.txt"), "the user's own c");
  assert.equal(await exists(join(f.work, "sub")), false, "folders made for b are gone too");
  assert.equal(await exists(join(f.work, "d.txt")), false);
  assert.deepEqual(await f.checkpoints.list("ses_a"), [], "the undone checkpoint is deleted");
});

Deno.test("rolling back an earlier checkpoint undoes every later turn as well", async () => {
  await using f = await fixture();
  await Deno.writeTextFile(join(f.work, "a.txt"), "v0");
  await f.turn("ses_a", 1, "first", [{ path: "a.txt", text: "v1" }]);
  await f.turn("ses_a", 4, "second", [{ path: "a.txt", text: "v2" }, { path: "e.txt", text: "e" }]);
  await f.turn("ses_b", 5, "other session", [{ path: "z.txt", text: "z" }]);

  const listed = await f.checkpoints.list("ses_a");
  assert.deepEqual(listed.map((entry) => [entry.number, entry.label]), [[1, "second"], [
    2,
    "first",
  ]]);

  const outcome = await f.checkpoints.rollback("ses_a", 2);
  assert.ok(outcome.ok);
  assert.equal(outcome.undone, 2);
  assert.equal(outcome.messageId, 1);
  assert.deepEqual(outcome.restored, ["a.txt"]);
  assert.deepEqual(outcome.removed, ["e.txt"]);
  assert.equal(await f.read("a.txt"), "v0", "back to before the earliest undone turn");
  assert.equal(await exists(join(f.work, "e.txt")), false);
  assert.equal(await f.read("z.txt"), "z", "another session's file is untouched");
  assert.equal((await f.checkpoints.list("ses_b")).length, 1);
});

Deno.test("rolling back only the newest checkpoint leaves the earlier turn's work", async () => {
  await using f = await fixture();
  await Deno.writeTextFile(join(f.work, "a.txt"), "v0");
  await f.turn("ses_a", 1, "first", [{ path: "a.txt", text: "v1" }]);
  await f.turn("ses_a", 4, "second", [{ path: "a.txt", text: "v2" }]);
  const outcome = await f.checkpoints.rollback("ses_a", 1);
  assert.ok(outcome.ok);
  assert.equal(await f.read("a.txt"), "v1");
  assert.deepEqual((await f.checkpoints.list("ses_a")).map((entry) => entry.label), ["first"]);
});

Deno.test("checkpoints beyond max_snapshots are pruned oldest first", async () => {
  await using f = await fixture(2);
  for (const [index, name] of ["one", "two", "three"].entries()) {
    await f.turn("ses_a", index + 1, name, [{ path: `${name}.txt`, text: name }]);
  }
  const listed = await f.checkpoints.list("ses_a");
  assert.deepEqual(listed.map((entry) => entry.label), ["three", "two"]);
  assert.equal(new Checkpoints(f.checkpoints.store, { maxSnapshots: 50 }).maxSnapshots, 20);
});

Deno.test("rollback of a number the session does not have says so and changes nothing", async () => {
  await using f = await fixture();
  const none = await f.checkpoints.rollback("ses_a", 1);
  assert.equal(none.ok, false);
  assert.equal(!none.ok && none.code, "no_checkpoints");
  await f.turn("ses_a", 1, "first", [{ path: "a.txt", text: "v1" }]);
  const missing = await f.checkpoints.rollback("ses_a", 3);
  assert.equal(!missing.ok && missing.code, "not_found");
  assert.match(!missing.ok ? missing.message : "", /No checkpoint 3; this session has 1/);
  assert.equal(await f.read("a.txt"), "v1");
});

Deno.test("/rollback lists with no argument, takes a number, and refuses anything else", async () => {
  const registry = createSlashRegistry();
  const context = { model: "m", provider: "p" };
  assert.deepEqual(await registry.dispatch("/rollback", context), {
    kind: "rollback",
    checkpoint: null,
  });
  assert.deepEqual(await registry.dispatch("/rollback 2", context), {
    kind: "rollback",
    checkpoint: 2,
  });
  for (const bad of ["/rollback two", "/rollback 0", "/rollback -1", "/rollback 1 2"]) {
    const outcome = await registry.dispatch(bad, context);
    assert.equal(outcome?.kind, "reply", bad);
  }
});

Deno.test("a session without checkpoints answers /rollback with how to turn them on", async () => {
  const session = { id: "ses_x", model: "m", provider: "p" } as unknown as TurnSession;
  assert.match(await rollbackReply(session, undefined), /checkpoints\.enabled true/);
});

Deno.test("a write the guard refuses keeps no copy of the protected file", async () => {
  await using f = await fixture();
  await Deno.writeTextFile(join(f.work, ".env"), "API_KEY=secret\n");
  const tools = new ToolRegistry(builtinTools());
  const turn = f.checkpoints.turn({ sessionId: "ses_a", messageId: 1, text: "leak it" });
  const outcome = await turn.execute(
    tools,
    call("write_file", { path: ".env", content: "API_KEY=other\n" }),
    f.context,
  );
  assert.equal(outcome.ok, false, "the guard refuses .env");
  assert.deepEqual(await f.checkpoints.store.list(), []);
  assert.equal(await exists(f.store), false, "nothing of the file reached the checkpoint store");
  assert.equal(await f.read(".env"), "API_KEY=secret\n");
});

Deno.test("a call that changed nothing does not count as the turn's first write", async () => {
  await using f = await fixture();
  await Deno.writeTextFile(join(f.work, "a.txt"), "v0");
  const turn = f.checkpoints.turn({ sessionId: "ses_a", messageId: 1, text: "try twice" });
  await turn.execute(f.tools, call("put", { path: "a.txt", text: "x", fail: true }), f.context);
  assert.deepEqual(await f.checkpoints.store.list(), []);
  await Deno.writeTextFile(join(f.work, "a.txt"), "v0 edited by the user before the write");
  await turn.execute(f.tools, call("put", { path: "a.txt", text: "v1" }), f.context);
  const outcome = await f.checkpoints.rollback("ses_a", 1);
  assert.ok(outcome.ok);
  assert.equal(await f.read("a.txt"), "v0 edited by the user before the write");
});

import assert from "node:assert/strict";
import { join } from "node:path";
import { History } from "../../../cli/tui/history.ts";
import { tempDir } from "../../_helpers.ts";

Deno.test("history survives a reload, multi-line entries included", async () => {
  await using dir = await tempDir();
  const path = join(dir.path, "nested", "chat_history");
  const first = await History.load(path);
  await first.add("one");
  await first.add('two\nlines with "quotes"');
  const again = await History.load(path);
  assert.deepEqual(again.entries, ["one", 'two\nlines with "quotes"']);
  const text = await Deno.readTextFile(path);
  assert.equal(text.split("\n").length, 3, "one line per entry");
});

Deno.test("a missing history file is an empty history", async () => {
  await using dir = await tempDir();
  const history = await History.load(join(dir.path, "nope"));
  assert.deepEqual(history.entries, []);
});

Deno.test("the history file is created with mode 0600", async () => {
  if (Deno.build.os === "windows") return;
  await using dir = await tempDir();
  const path = join(dir.path, "chat_history");
  await (await History.load(path)).add("secret-ish");
  assert.equal((await Deno.stat(path)).mode! & 0o777, 0o600);
});

Deno.test("blank entries and a repeat of the newest are not added", async () => {
  await using dir = await tempDir();
  const path = join(dir.path, "chat_history");
  const history = await History.load(path);
  await history.add("same");
  await history.add("same");
  await history.add("   ");
  await history.add("");
  await history.add("other");
  await history.add("same");
  assert.deepEqual(history.entries, ["same", "other", "same"]);
  assert.deepEqual((await History.load(path)).entries, ["same", "other", "same"]);
});

Deno.test("corrupt lines in the file are skipped", async () => {
  await using dir = await tempDir();
  const path = join(dir.path, "chat_history");
  await Deno.writeTextFile(path, '"good"\n{not json\n42\n\n"also \\u00e9 good"\n"torn');
  assert.deepEqual((await History.load(path)).entries, ["good", "also é good"]);
});

Deno.test("load keeps the newest max entries", async () => {
  await using dir = await tempDir();
  const path = join(dir.path, "chat_history");
  const lines = Array.from({ length: 10 }, (_, i) => JSON.stringify(`e${i}`)).join("\n");
  await Deno.writeTextFile(path, `${lines}\n`);
  assert.deepEqual((await History.load(path, 3)).entries, ["e7", "e8", "e9"]);
});

Deno.test("the file is trimmed to max entries once it holds more than twice that", async () => {
  await using dir = await tempDir();
  const path = join(dir.path, "chat_history");
  const history = await History.load(path, 3);
  for (let i = 0; i < 6; i++) await history.add(`e${i}`);
  assert.equal((await Deno.readTextFile(path)).trim().split("\n").length, 6);
  await history.add("e6");
  const lines = (await Deno.readTextFile(path)).trim().split("\n");
  assert.deepEqual(lines.map((line) => JSON.parse(line)), ["e4", "e5", "e6"]);
  assert.deepEqual(history.entries, ["e4", "e5", "e6"]);
  if (Deno.build.os !== "windows") assert.equal((await Deno.stat(path)).mode! & 0o777, 0o600);
});

Deno.test("a memory history keeps entries without a file", async () => {
  const history = History.memory(["a", "b"]);
  await history.add("c");
  assert.deepEqual(history.entries, ["a", "b", "c"]);
});

Deno.test("two herald processes adding at once lose and tear no entry", async () => {
  await using dir = await tempDir();
  const path = join(dir.path, "chat_history");
  const module = new URL("../../../cli/tui/history.ts", import.meta.url).href;
  const script = `
    const { History } = await import(${JSON.stringify(module)});
    const [path, tag] = Deno.args;
    const history = await History.load(path, 1000);
    for (let i = 0; i < 40; i++) await history.add(tag + " " + i + "\\n" + "x".repeat(500));
  `;
  const run = (tag: string) =>
    new Deno.Command(Deno.execPath(), {
      args: ["eval", "--ext=ts", script, path, tag],
      stdout: "inherit",
      stderr: "inherit",
    }).output();
  const results = await Promise.all([run("a"), run("b")]);
  assert.ok(results.every((result) => result.success));
  const raw = (await Deno.readTextFile(path)).trim().split("\n");
  assert.equal(raw.length, 80);
  for (const line of raw) assert.equal(typeof JSON.parse(line), "string");
  const entries = (await History.load(path)).entries;
  for (const tag of ["a", "b"]) {
    const mine = entries.filter((entry) => entry.startsWith(`${tag} `));
    assert.deepEqual(mine, Array.from({ length: 40 }, (_, i) => `${tag} ${i}\n${"x".repeat(500)}`));
  }
});

Deno.test("two processes trimming at once keep every line whole and the newest entries", async () => {
  await using dir = await tempDir();
  const path = join(dir.path, "chat_history");
  const module = new URL("../../../cli/tui/history.ts", import.meta.url).href;
  const script = `
    const { History } = await import(${JSON.stringify(module)});
    const [path, tag] = Deno.args;
    const history = await History.load(path, 5);
    for (let i = 0; i < 30; i++) await history.add(tag + i);
  `;
  const run = (tag: string) =>
    new Deno.Command(Deno.execPath(), { args: ["eval", "--ext=ts", script, path, tag] }).output();
  const results = await Promise.all([run("a"), run("b")]);
  assert.ok(results.every((result) => result.success));
  const raw = (await Deno.readTextFile(path)).trim().split("\n");
  assert.ok(raw.length <= 10, `${raw.length} lines`);
  for (const line of raw) assert.equal(typeof JSON.parse(line), "string");
  const entries = (await History.load(path, 5)).entries;
  assert.ok(["a29", "b29"].includes(entries.at(-1)!), entries.join(","));
  for (const tag of ["a", "b"]) {
    const numbers = entries.filter((entry) => entry.startsWith(tag)).map((entry) =>
      Number(entry.slice(1))
    );
    assert.deepEqual(
      numbers,
      [...numbers].sort((x, y) => x - y),
      "each process's entries in order",
    );
  }
});

import assert from "node:assert/strict";
import { join } from "node:path";
import {
  combineCompleters,
  type Completer,
  MAX_PATH_ENTRIES,
  pathCompleter,
  slashCompleter,
} from "../../../cli/tui/complete.ts";
import { LineEditor } from "../../../cli/tui/editor.ts";
import { History } from "../../../cli/tui/history.ts";
import { KeyDecoder } from "../../../cli/tui/keys.ts";
import { tempDir } from "../../_helpers.ts";

const entries = [
  { name: "help", description: "Show commands" },
  { name: "bundles", description: "List skill bundles" },
  { name: "backend", description: "Backend bundle (3 skills)" },
  { name: "Backup", description: "A skill" },
  { name: "help", description: "A skill shadowed by the command" },
];
const slash = slashCompleter(() => entries);

/** Types `input` (raw terminal bytes) into a fresh editor using `complete`. */
function typed(complete: Completer, input: string): LineEditor {
  const editor = new LineEditor({ history: History.memory(), complete });
  for (const key of new KeyDecoder().feed(input)) editor.handle(key);
  return editor;
}

Deno.test("/bun completes to /bundles with its description", () => {
  assert.deepEqual(slash("/bun", 4), {
    start: 0,
    end: 4,
    candidates: [{ value: "/bundles", description: "List skill bundles" }],
  });
  assert.equal(typed(slash, "/bun\t").text, "/bundles ");
});

Deno.test("slash completion ignores case, sorts by name and keeps the first of a name", () => {
  assert.deepEqual(slash("/B", 2)?.candidates.map((c) => c.value), [
    "/backend",
    "/Backup",
    "/bundles",
  ]);
  assert.deepEqual(slash("/", 1)?.candidates.map((c) => c.description), [
    "Backend bundle (3 skills)",
    "A skill",
    "List skill bundles",
    "Show commands",
  ]);
});

Deno.test("slash completion only applies to the first word when it starts with /", () => {
  assert.equal(slash("hello /bun", 10), null);
  assert.equal(slash(" /bun", 5), null);
  assert.equal(slash("/bundles x", 10), null);
  assert.deepEqual(slash("/zz", 3)?.candidates, []);
});

Deno.test("slash completion asks for the entries each time", () => {
  const list = [{ name: "alpha", description: "" }];
  const complete = slashCompleter(() => list);
  assert.equal(complete("/b", 2)?.candidates.length, 0);
  list.push({ name: "beta", description: "new skill" });
  assert.equal(complete("/b", 2)?.candidates.length, 1);
});

async function project(): Promise<AsyncDisposable & { path: string }> {
  const dir = await tempDir();
  await Deno.mkdir(join(dir.path, "src", "lib"), { recursive: true });
  await Deno.mkdir(join(dir.path, ".git"));
  await Deno.writeTextFile(join(dir.path, "src", "main.ts"), "");
  await Deno.writeTextFile(join(dir.path, "src", "Makefile"), "");
  await Deno.writeTextFile(join(dir.path, "README.md"), "");
  await Deno.writeTextFile(join(dir.path, ".env"), "");
  return dir;
}

Deno.test("@sr completes to the folder @src/ and Tab keeps the slash without a space", async () => {
  await using dir = await project();
  const complete = pathCompleter(dir.path);
  assert.deepEqual(complete("read @sr", 8), { start: 5, end: 8, candidates: [{ value: "@src/" }] });
  const editor = typed(complete, "read @sr\t");
  assert.equal(editor.text, "read @src/");
  assert.equal(editor.cursor, editor.text.length);
});

Deno.test("path completion lists inside a folder, folders ending with /", async () => {
  await using dir = await project();
  const complete = pathCompleter(dir.path);
  assert.deepEqual(complete("@src/", 5)?.candidates.map((c) => c.value), [
    "@src/lib/",
    "@src/main.ts",
    "@src/Makefile",
  ]);
  assert.deepEqual(complete("@src/ma", 7)?.candidates.map((c) => c.value), [
    "@src/main.ts",
    "@src/Makefile",
  ]);
  assert.equal(typed(complete, "@src/mai\t").text, "@src/main.ts ");
});

Deno.test("hidden files are offered only when the typed name starts with a dot", async () => {
  await using dir = await project();
  const complete = pathCompleter(dir.path);
  assert.deepEqual(complete("@", 1)?.candidates.map((c) => c.value), ["@README.md", "@src/"]);
  assert.deepEqual(complete("@.", 2)?.candidates.map((c) => c.value), ["@.env", "@.git/"]);
});

Deno.test("path completion follows symbolic links to folders and handles absolute paths", async () => {
  if (Deno.build.os === "windows") return;
  await using dir = await project();
  await Deno.symlink(join(dir.path, "src"), join(dir.path, "linked"));
  const complete = pathCompleter(dir.path);
  assert.deepEqual(complete("@li", 3)?.candidates, [{ value: "@linked/" }]);
  const absolute = `@${dir.path}/RE`;
  assert.deepEqual(complete(absolute, absolute.length)?.candidates, [
    { value: `@${dir.path}/README.md` },
  ]);
});

Deno.test("path completion needs a word starting with @ and survives a missing folder", async () => {
  await using dir = await project();
  const complete = pathCompleter(dir.path);
  assert.equal(complete("src", 3), null);
  assert.equal(complete("me@sr", 5), null);
  assert.deepEqual(complete("@nope/x", 7)?.candidates, []);
});

Deno.test("path completion reads at most 200 entries of a folder", async () => {
  await using dir = await tempDir();
  for (let i = 0; i < MAX_PATH_ENTRIES + 50; i++) {
    await Deno.writeTextFile(join(dir.path, `f${i}`), "");
  }
  const found = pathCompleter(dir.path)("@f", 2)?.candidates ?? [];
  assert.equal(found.length, MAX_PATH_ENTRIES);
});

Deno.test("combined completers answer with the first that applies", async () => {
  await using dir = await project();
  const complete = combineCompleters(slash, pathCompleter(dir.path));
  assert.equal(complete("/bun", 4)?.candidates[0].value, "/bundles");
  assert.equal(complete("look at @REA", 12)?.candidates[0].value, "@README.md");
  assert.equal(complete("plain words", 11), null);
});

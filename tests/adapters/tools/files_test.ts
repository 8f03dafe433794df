import assert from "node:assert/strict";
import { join } from "node:path";
import { createFileTools, globToRegExp } from "../../../adapters/tools/files/mod.ts";
import { ToolError } from "../../../core/tools/types.ts";
import { tempDir } from "../../_helpers.ts";
import { toolContext } from "./_context.ts";

const files = createFileTools();

function toolError(code: string, includes: string[] = []) {
  return (error: unknown) => {
    assert.ok(error instanceof ToolError, `expected a ToolError, got ${error}`);
    assert.equal(error.code, code, error.message);
    for (const text of includes) assert.ok(error.message.includes(text), error.message);
    return true;
  };
}

async function hasPython(): Promise<boolean> {
  try {
    return (await new Deno.Command("python3", {
      args: ["--version"],
      stdout: "null",
      stderr: "null",
    })
      .output()).success;
  } catch {
    return false;
  }
}

// --- write_file ------------------------------------------------------------------

Deno.test("write_file writes content byte for byte and counts UTF-8 bytes", async () => {
  await using dir = await tempDir();
  const content = "héllo wörld 👋\r\nline with trailing spaces   \r\n\tindented\n\n";
  const result = await files.writeFile.run(
    { path: "notes/a.txt", content },
    toolContext({ cwd: dir.path }),
  );
  const bytes = await Deno.readFile(join(dir.path, "notes/a.txt"));
  assert.deepEqual(bytes, new TextEncoder().encode(content));
  assert.equal(result.bytes_written, bytes.length);
  assert.equal(result.bytes_written, content.length + 1 + 1 + 2); // é, ö: +1 each; 👋: 4 bytes for 2 UTF-16 units
  assert.equal(result.path, join(dir.path, "notes/a.txt"));
  assert.deepEqual(result.lint, { status: "skipped", output: "no syntax checker for .txt files" });
  assert.equal("lsp_diagnostics" in result, false);
});

Deno.test("write_file replaces an existing file and reports its absolute path as mutated", async () => {
  await using dir = await tempDir();
  const ctx = toolContext({ cwd: dir.path });
  await files.writeFile.run({ path: "a.md", content: "old" }, ctx);
  await files.writeFile.run({ path: "a.md", content: "new" }, ctx);
  assert.equal(await Deno.readTextFile(join(dir.path, "a.md")), "new");
  assert.equal(
    files.writeFile.mutatedPath?.({ path: "a.md", content: "" }, ctx),
    join(dir.path, "a.md"),
  );
  const leftovers = [];
  for await (const entry of Deno.readDir(dir.path)) leftovers.push(entry.name);
  assert.deepEqual(leftovers, ["a.md"]);
});

Deno.test("write_file refuses to overwrite a directory", async () => {
  await using dir = await tempDir();
  await Deno.mkdir(join(dir.path, "d"));
  await assert.rejects(
    files.writeFile.run({ path: "d", content: "x" }, toolContext({ cwd: dir.path })),
    toolError("is_directory"),
  );
});

Deno.test("write_file lints JSON: ok when valid, the parser's message when not", async () => {
  await using dir = await tempDir();
  const ctx = toolContext({ cwd: dir.path });
  const ok = await files.writeFile.run({ path: "a.json", content: '{"a": [1, 2]}\n' }, ctx);
  assert.deepEqual(ok.lint, { status: "ok", output: "" });

  const bad = await files.writeFile.run({ path: "b.json", content: '{\n  "a": 1,\n}\n' }, ctx);
  assert.equal(bad.lint.status, "error");
  assert.match(bad.lint.output, /^3:1 .*property name/);

  const token = await files.writeFile.run({ path: "c.json", content: '{"a": }' }, ctx);
  assert.deepEqual(token.lint, { status: "error", output: "1:7 Unexpected token '}'" });
  assert.equal(await Deno.readTextFile(join(dir.path, "c.json")), '{"a": }');
});

Deno.test("write_file lints YAML with line and column", async () => {
  await using dir = await tempDir();
  const ctx = toolContext({ cwd: dir.path });
  const ok = await files.writeFile.run({ path: "a.yaml", content: "a: 1\n---\nb: [2]\n" }, ctx);
  assert.deepEqual(ok.lint, { status: "ok", output: "" });
  const bad = await files.writeFile.run({ path: "b.yml", content: "a: 1\n  b: 2\n" }, ctx);
  assert.equal(bad.lint.status, "error");
  assert.match(bad.lint.output, /^1:4 /);
});

Deno.test("write_file lints TypeScript and JavaScript with the TypeScript parser", async () => {
  await using dir = await tempDir();
  const ctx = toolContext({ cwd: dir.path });
  const ok = await files.writeFile.run(
    { path: "a.ts", content: "export const x: number = 1;\n" },
    ctx,
  );
  assert.deepEqual(ok.lint, { status: "ok", output: "" });
  const bad = await files.writeFile.run({ path: "b.ts", content: "const a = ;\n" }, ctx);
  assert.deepEqual(bad.lint, { status: "error", output: "1:11 Expression expected." });
  const jsx = await files.writeFile.run(
    { path: "c.jsx", content: "const a = <div>hi</span>;\n" },
    ctx,
  );
  assert.equal(jsx.lint.status, "error");
  assert.match(jsx.lint.output, /closing tag/);
  // Type errors are not syntax errors: the syntax tier stays clean.
  const typed = await files.writeFile.run(
    { path: "d.ts", content: "const n: number = 'x';\n" },
    ctx,
  );
  assert.equal(typed.lint.status, "ok");
});

Deno.test("write_file lints Python without leaving __pycache__ beside the file", async () => {
  if (!(await hasPython())) return;
  await using dir = await tempDir();
  const ctx = toolContext({ cwd: dir.path });
  const ok = await files.writeFile.run({ path: "a.py", content: "def f():\n    return 1\n" }, ctx);
  assert.deepEqual(ok.lint, { status: "ok", output: "" });
  const bad = await files.writeFile.run({ path: "b.py", content: "def f(:\n    pass\n" }, ctx);
  assert.equal(bad.lint.status, "error");
  assert.match(bad.lint.output, /SyntaxError/);
  const names = [];
  for await (const entry of Deno.readDir(dir.path)) names.push(entry.name);
  assert.deepEqual(names.sort(), ["a.py", "b.py"]);
});

Deno.test("lsp_diagnostics is present only when the provider reports something and lint found no error", async () => {
  await using dir = await tempDir();
  const ctx = toolContext({ cwd: dir.path });
  const asked: string[] = [];
  const noisy = createFileTools({
    diagnostics: (path) => {
      asked.push(path);
      return Promise.resolve(`ERROR [1:1] something in ${path}`);
    },
  });
  const quiet = createFileTools({ diagnostics: () => Promise.resolve("") });
  const broken = createFileTools({ diagnostics: () => Promise.reject(new Error("server died")) });

  const clean = await noisy.writeFile.run({ path: "a.json", content: "{}" }, ctx);
  assert.equal(clean.lsp_diagnostics, `ERROR [1:1] something in ${join(dir.path, "a.json")}`);
  assert.deepEqual(Object.keys(clean), ["path", "bytes_written", "lint", "lsp_diagnostics"]);

  const invalid = await noisy.writeFile.run({ path: "b.json", content: "{" }, ctx);
  assert.equal(invalid.lint.status, "error");
  assert.equal("lsp_diagnostics" in invalid, false);
  assert.deepEqual(asked, [join(dir.path, "a.json")]);
  asked.length = 0;

  // No syntax checker for .txt: nothing stands in the way of the language server.
  const skipped = await noisy.writeFile.run({ path: "c.txt", content: "x" }, ctx);
  assert.equal(skipped.lint.status, "skipped");
  assert.equal(skipped.lsp_diagnostics, `ERROR [1:1] something in ${join(dir.path, "c.txt")}`);

  for (const tools of [quiet, broken]) {
    const result = await tools.writeFile.run({ path: "d.json", content: "{}" }, ctx);
    assert.equal("lsp_diagnostics" in result, false);
  }
});

Deno.test("the diagnostics seam gets the text before the write: null for a new file", async () => {
  await using dir = await tempDir();
  const ctx = toolContext({ cwd: dir.path });
  const calls: [string, string | null | undefined][] = [];
  const tools = createFileTools({
    diagnostics: (path, before) => {
      calls.push([path, before]);
      return Promise.resolve("");
    },
  });
  const file = join(dir.path, "a.ts");
  await tools.writeFile.run({ path: "a.ts", content: "export const a = 1;\n" }, ctx);
  await tools.writeFile.run({ path: "a.ts", content: "export const a = 2;\n" }, ctx);
  await tools.patch.run({ path: "a.ts", old_string: "2", new_string: "3" }, ctx);
  assert.deepEqual(calls, [
    [file, null],
    [file, "export const a = 1;\n"],
    [file, "export const a = 2;\n"],
  ]);
});

Deno.test("the syntax tier reports only the errors a write introduced", async () => {
  await using dir = await tempDir();
  const ctx = toolContext({ cwd: dir.path });
  const asked: string[] = [];
  const tools = createFileTools({
    diagnostics: (path) => {
      asked.push(path);
      return Promise.resolve("");
    },
  });
  // JSON: the broken value stays broken; the edit above it is fine.
  await Deno.writeTextFile(join(dir.path, "a.json"), '{\n  "a": ,\n}\n');
  const kept = await tools.writeFile.run(
    { path: "a.json", content: '{\n  "z": 1,\n  "a": ,\n}\n' },
    ctx,
  );
  assert.deepEqual(kept.lint, { status: "ok", output: "" });
  // A new file, or a new error, is reported.
  const fresh = await tools.writeFile.run({ path: "b.json", content: '{"a": }' }, ctx);
  assert.equal(fresh.lint.status, "error");

  // TypeScript: one old error moved down a line, one new error.
  await Deno.writeTextFile(join(dir.path, "a.ts"), "export const a = (;\n");
  const moved = await tools.writeFile.run(
    { path: "a.ts", content: "// note\nexport const a = (;\n" },
    ctx,
  );
  assert.deepEqual(moved.lint, { status: "ok", output: "" });
  const added = await tools.patch.run(
    { path: "a.ts", old_string: "// note", new_string: "export const b = ];" },
    ctx,
  );
  assert.equal(added.lint.status, "error");
  assert.match(added.lint.output, /^1:\d+ /);
  assert.doesNotMatch(added.lint.output, /^2:/m);

  if (await hasPython()) {
    await Deno.writeTextFile(join(dir.path, "a.py"), "def f(:\n    pass\n");
    const py = await tools.writeFile.run(
      { path: "a.py", content: "import os\ndef f(:\n    pass\n" },
      ctx,
    );
    assert.deepEqual(py.lint, { status: "ok", output: "" });
    const pyNew = await tools.writeFile.run({ path: "a.py", content: "x = )\n" }, ctx);
    assert.equal(pyNew.lint.status, "error");
  }
  // A clean check after pre-existing errors still asks the language server.
  assert.ok(asked.includes(join(dir.path, "a.json")));
});

Deno.test("write_file expands ~ to the home folder", async () => {
  await using dir = await tempDir();
  const home = join(dir.path, "home");
  const tools = createFileTools({ homeDir: home });
  // Outside the working directory: written once the user approves it.
  const ctx = toolContext({ cwd: join(dir.path, "elsewhere"), approve: true });
  const result = await tools.writeFile.run({ path: "~/x/y.txt", content: "hi" }, ctx);
  assert.equal(result.path, join(home, "x/y.txt"));
  assert.equal(await Deno.readTextFile(join(home, "x/y.txt")), "hi");
  assert.equal(ctx.approvals.length, 1);
});

// --- patch -----------------------------------------------------------------------

Deno.test("patch replaces a unique string and carries the inner write's result", async () => {
  await using dir = await tempDir();
  const ctx = toolContext({ cwd: dir.path });
  const tools = createFileTools({ diagnostics: () => Promise.resolve("WARNING [2:3] unused") });
  await Deno.writeTextFile(join(dir.path, "a.json"), '{\n  "name": "old",\n  "n": 1\n}\n');
  const result = await tools.patch.run(
    { path: "a.json", old_string: '"old"', new_string: '"new $& ünï"' },
    ctx,
  );
  const text = await Deno.readTextFile(join(dir.path, "a.json"));
  assert.equal(text, '{\n  "name": "new $& ünï",\n  "n": 1\n}\n');
  assert.deepEqual(result, {
    path: join(dir.path, "a.json"),
    bytes_written: new TextEncoder().encode(text).length,
    lint: { status: "ok", output: "" },
    lsp_diagnostics: "WARNING [2:3] unused",
    replacements: 1,
  });
  assert.equal(
    tools.patch.mutatedPath?.({ path: "a.json", old_string: "", new_string: "" }, ctx),
    join(dir.path, "a.json"),
  );
});

Deno.test("patch that breaks the syntax reports the lint error and no diagnostics", async () => {
  await using dir = await tempDir();
  const tools = createFileTools({ diagnostics: () => Promise.resolve("should not appear") });
  await Deno.writeTextFile(join(dir.path, "a.json"), '{"a": 1}');
  const result = await tools.patch.run(
    { path: "a.json", old_string: "1}", new_string: "1," },
    toolContext({ cwd: dir.path }),
  );
  assert.equal(result.lint.status, "error");
  assert.equal("lsp_diagnostics" in result, false);
  assert.equal(result.replacements, 1);
});

Deno.test("patch reports not_found with an excerpt of the searched text", async () => {
  await using dir = await tempDir();
  await Deno.writeTextFile(join(dir.path, "a.txt"), "alpha\r\nbeta\r\n");
  await assert.rejects(
    files.patch.run(
      { path: "a.txt", old_string: "alpha\nbeta", new_string: "x" },
      toolContext({ cwd: dir.path }),
    ),
    toolError("not_found", ['"alpha\\nbeta"', '"a.txt"', "CRLF"]),
  );
  await assert.rejects(
    files.patch.run(
      { path: "a.txt", old_string: "z".repeat(500), new_string: "x" },
      toolContext({ cwd: dir.path }),
    ),
    (error: unknown) => error instanceof ToolError && error.message.length < 400,
  );
  assert.equal(await Deno.readTextFile(join(dir.path, "a.txt")), "alpha\r\nbeta\r\n");
});

Deno.test("patch refuses an ambiguous match unless replace_all is set", async () => {
  await using dir = await tempDir();
  const ctx = toolContext({ cwd: dir.path });
  await Deno.writeTextFile(join(dir.path, "a.ts"), "let a = 1;\nlet b = 1;\nlet c = 1;\n");
  await assert.rejects(
    files.patch.run({ path: "a.ts", old_string: "= 1", new_string: "= 2" }, ctx),
    toolError("not_unique", ["found 3 times", "add surrounding context", "replace_all"]),
  );
  const result = await files.patch.run(
    { path: "a.ts", old_string: "= 1", new_string: "= 2", replace_all: true },
    ctx,
  );
  assert.equal(result.replacements, 3);
  assert.deepEqual(result.lint, { status: "ok", output: "" });
  assert.equal(
    await Deno.readTextFile(join(dir.path, "a.ts")),
    "let a = 2;\nlet b = 2;\nlet c = 2;\n",
  );
});

Deno.test("patch refuses a missing file and an empty old_string", async () => {
  await using dir = await tempDir();
  const ctx = toolContext({ cwd: dir.path });
  await assert.rejects(
    files.patch.run({ path: "nope.txt", old_string: "a", new_string: "b" }, ctx),
    toolError("not_found"),
  );
  await Deno.writeTextFile(join(dir.path, "a.txt"), "a");
  await assert.rejects(
    files.patch.run({ path: "a.txt", old_string: "", new_string: "b" }, ctx),
    toolError("invalid_argument"),
  );
});

// --- read_file -------------------------------------------------------------------

Deno.test("read_file returns a line range with the total line count", async () => {
  await using dir = await tempDir();
  const ctx = toolContext({ cwd: dir.path });
  await Deno.writeTextFile(join(dir.path, "a.txt"), "one\ntwo\r\nthree\nfour");
  const all = await files.readFile.run({ path: "a.txt" }, ctx);
  assert.deepEqual(all, {
    path: join(dir.path, "a.txt"),
    content: "one\ntwo\r\nthree\nfour",
    total_lines: 4,
    truncated: false,
  });
  const middle = await files.readFile.run({ path: "a.txt", offset: 2, limit: 2 }, ctx);
  assert.deepEqual(middle, {
    path: join(dir.path, "a.txt"),
    content: "two\r\nthree\n",
    total_lines: 4,
    truncated: true,
    next_offset: 4,
  });
  await assert.rejects(
    files.readFile.run({ path: "a.txt", offset: 9 }, ctx),
    toolError("out_of_range", ["4 lines"]),
  );
  await Deno.writeTextFile(join(dir.path, "empty.txt"), "");
  assert.deepEqual(await files.readFile.run({ path: "empty.txt" }, ctx), {
    path: join(dir.path, "empty.txt"),
    content: "",
    total_lines: 0,
    truncated: false,
  });
});

Deno.test("read_file caps a call at 2000 lines and 100,000 characters", async () => {
  await using dir = await tempDir();
  const ctx = toolContext({ cwd: dir.path });
  const lines = Array.from({ length: 2500 }, (_, i) => `line ${i + 1}\n`).join("");
  await Deno.writeTextFile(join(dir.path, "long.txt"), lines);
  const first = await files.readFile.run({ path: "long.txt", limit: 5000 }, ctx);
  assert.equal(first.content.split("\n").length - 1, 2000);
  assert.equal(first.total_lines, 2500);
  assert.equal(first.truncated, true);
  assert.equal(first.next_offset, 2001);

  await Deno.writeTextFile(join(dir.path, "wide.txt"), `${"a".repeat(60_000)}\n`.repeat(3));
  const wide = await files.readFile.run({ path: "wide.txt" }, ctx);
  assert.equal(wide.content, `${"a".repeat(60_000)}\n`);
  assert.equal(wide.truncated, true);
  assert.equal(wide.next_offset, 2);

  await Deno.writeTextFile(join(dir.path, "huge-line.txt"), "b".repeat(250_000));
  const huge = await files.readFile.run({ path: "huge-line.txt" }, ctx);
  assert.ok(
    huge.content.startsWith(
      "b".repeat(100_000) + "\n[line 1 continues: read it on with offset 1 and char_offset 100000]",
    ),
  );
  assert.equal(huge.total_lines, 1);
  assert.equal(huge.truncated, true);
  assert.equal(huge.next_offset, 1);
  assert.equal(huge.next_char_offset, 100_000);
});

Deno.test("read_file pages through one enormous line by character offset", async () => {
  await using dir = await tempDir();
  const ctx = toolContext({ cwd: dir.path });
  // Line 2 is 250,000 characters (several stream chunks); lines 1 and 3 are short.
  const long = Array.from({ length: 25_000 }, (_, i) => String(i % 10).repeat(10)).join("");
  await Deno.writeTextFile(join(dir.path, "min.js"), `head\n${long}\ntail\n`);
  const pieces: string[] = [];
  let call = { path: "min.js", offset: 2, char_offset: 0 } as {
    path: string;
    offset: number;
    char_offset: number;
  };
  for (let i = 0; i < 5; i++) {
    const page = await files.readFile.run(call, ctx);
    if (page.next_char_offset === undefined) {
      pieces.push(page.content);
      assert.equal(page.truncated, false);
      break;
    }
    assert.equal(page.next_offset, 2);
    pieces.push(page.content.slice(0, page.content.indexOf("\n[line 2 continues")));
    call = { ...call, char_offset: page.next_char_offset };
  }
  assert.equal(pieces.length, 3);
  assert.equal(pieces.join(""), `${long}\ntail\n`);
  await assert.rejects(
    files.readFile.run({ path: "min.js", offset: 2, char_offset: 300_000 }, ctx),
    (error: unknown) =>
      error instanceof ToolError && error.code === "out_of_range" &&
      error.message.includes("250001 characters"),
  );
});

Deno.test("read_file refuses missing files, directories and binary files clearly", async () => {
  await using dir = await tempDir();
  const ctx = toolContext({ cwd: dir.path });
  await Deno.writeTextFile(join(dir.path, "config.yaml"), "a: 1");
  await assert.rejects(
    files.readFile.run({ path: "config.yml" }, ctx),
    toolError("not_found", ["not found", "did you mean", "config.yaml"]),
  );
  await assert.rejects(
    files.readFile.run({ path: "." }, ctx),
    toolError("is_directory", ["search_files"]),
  );
  const png = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13]);
  await Deno.writeFile(join(dir.path, "pic.png"), png);
  await assert.rejects(
    files.readFile.run({ path: "pic.png" }, ctx),
    toolError("binary_file", ["PNG image", "12 bytes"]),
  );
  await Deno.writeFile(join(dir.path, "latin1.txt"), new Uint8Array([0x63, 0x61, 0x66, 0xe9]));
  await assert.rejects(files.readFile.run({ path: "latin1.txt" }, ctx), toolError("binary_file"));
});

// --- search_files ----------------------------------------------------------------

async function searchTree(root: string): Promise<void> {
  const tree: Record<string, string | Uint8Array> = {
    "src/a.ts": "export const alpha = 1;\n// TODO: beta\n",
    "src/b.py": "alpha = 2\r\n",
    "src/deep/c.ts": "const gamma = 'alpha';\n",
    "README.md": "Alpha docs\n",
    "node_modules/pkg/index.ts": "alpha\n",
    ".git/config": "alpha\n",
    "bin/tool": new Uint8Array([0x61, 0x6c, 0x70, 0x68, 0x61, 0, 1, 2]),
  };
  for (const [path, content] of Object.entries(tree)) {
    await Deno.mkdir(join(root, path, ".."), { recursive: true });
    if (typeof content === "string") await Deno.writeTextFile(join(root, path), content);
    else await Deno.writeFile(join(root, path), content);
  }
}

Deno.test("search_files finds matching lines, skipping .git, node_modules and binary files", async () => {
  await using dir = await tempDir();
  await searchTree(dir.path);
  const result = await files.searchFiles.run({ pattern: "alpha" }, toolContext({ cwd: dir.path }));
  assert.deepEqual(result, {
    mode: "content",
    matches: [
      { file: "src/a.ts", line: 1, text: "export const alpha = 1;" },
      { file: "src/b.py", line: 1, text: "alpha = 2" },
      { file: "src/deep/c.ts", line: 1, text: "const gamma = 'alpha';" },
    ],
    count: 3,
    truncated: false,
  });
});

Deno.test("search_files filters by glob and folder and caps results", async () => {
  await using dir = await tempDir();
  await searchTree(dir.path);
  const ctx = toolContext({ cwd: dir.path });
  const ts = await files.searchFiles.run({ pattern: "a", glob: "*.ts", path: "src" }, ctx);
  assert.ok(ts.mode === "content");
  assert.deepEqual([...new Set(ts.matches.map((m) => m.file))], ["src/a.ts", "src/deep/c.ts"]);
  const capped = await files.searchFiles.run({ pattern: "[Aa]lpha", limit: 2 }, ctx);
  assert.ok(capped.mode === "content");
  assert.equal(capped.count, 2);
  assert.equal(capped.truncated, true);
});

Deno.test("search_files in files mode lists paths matching the pattern", async () => {
  await using dir = await tempDir();
  await searchTree(dir.path);
  const ctx = toolContext({ cwd: dir.path });
  assert.deepEqual(await files.searchFiles.run({ pattern: "\\.ts$", mode: "files" }, ctx), {
    mode: "files",
    files: ["src/a.ts", "src/deep/c.ts"],
    count: 2,
    truncated: false,
  });
  const glob = await files.searchFiles.run({ pattern: "*.py", mode: "files" }, ctx);
  assert.ok(glob.mode === "files");
  assert.deepEqual(glob.files, ["src/b.py"]);
  const nested = await files.searchFiles.run(
    { pattern: ".", mode: "files", glob: "src/**/*.ts" },
    ctx,
  );
  assert.ok(nested.mode === "files");
  assert.deepEqual(nested.files, ["src/a.ts", "src/deep/c.ts"]);
});

Deno.test("search_files reports a bad pattern and a missing folder", async () => {
  await using dir = await tempDir();
  const ctx = toolContext({ cwd: dir.path });
  await assert.rejects(
    files.searchFiles.run({ pattern: "(unclosed" }, ctx),
    toolError("invalid_pattern", ['"(unclosed"']),
  );
  await assert.rejects(
    files.searchFiles.run({ pattern: "x", path: "missing" }, ctx),
    toolError("not_found"),
  );
});

Deno.test("globs translate to anchored regular expressions", () => {
  assert.ok(globToRegExp("*.ts").test("a.ts"));
  assert.ok(!globToRegExp("*.ts").test("dir/a.ts"));
  assert.ok(globToRegExp("**/*.ts").test("a.ts"));
  assert.ok(globToRegExp("src/**/*.ts").test("src/x/y/a.ts"));
  assert.ok(globToRegExp("*.{js,ts}").test("a.js"));
  assert.ok(globToRegExp("file?.[ch]").test("file1.h"));
  assert.ok(!globToRegExp("a.b").test("axb"));
});

Deno.test("a patch that changes nothing succeeds with no_change and leaves the file alone", async () => {
  await using dir = await tempDir();
  const ctx = toolContext({ cwd: dir.path });
  const path = join(dir.path, "a.ts");
  await Deno.writeTextFile(path, "const a = 2;\n");
  const before = await Deno.stat(path);
  await new Promise((resolve) => setTimeout(resolve, 20));
  const same = await files.patch.run(
    { path: "a.ts", old_string: "a = 2", new_string: "a = 2" },
    ctx,
  );
  assert.equal(same.no_change, true);
  assert.equal(same.replacements, 0);
  // Already applied: the old text is gone and the new text is there.
  const applied = await files.patch.run(
    { path: "a.ts", old_string: "a = 1", new_string: "const a = 2;" },
    ctx,
  );
  assert.equal(applied.no_change, true);
  assert.equal(await Deno.readTextFile(path), "const a = 2;\n");
  assert.equal((await Deno.stat(path)).mtime?.getTime(), before.mtime?.getTime());
});

Deno.test("repeated failed patches of one file get sharper hints, reset by a success", async () => {
  await using dir = await tempDir();
  const ctx = toolContext({ cwd: dir.path });
  await Deno.writeTextFile(join(dir.path, "a.ts"), "let x = 1;\n");
  const tools = createFileTools();
  const fail = () =>
    tools.patch.run({ path: "a.ts", old_string: "let y", new_string: "let z" }, ctx).then(
      () => assert.fail("expected a failure"),
      (error: ToolError) => error.message,
    );
  const first = await fail();
  assert.doesNotMatch(first, /in a row/);
  assert.match(await fail(), /second failed patch of "a.ts" in a row: read_file it again/);
  assert.match(await fail(), /failed patch number 3 of "a.ts".*write_file/);
  await tools.patch.run({ path: "a.ts", old_string: "let x", new_string: "let w" }, ctx);
  assert.doesNotMatch(await fail(), /in a row/);
  // Another session's failures are its own.
  const other = toolContext({ cwd: dir.path, sessionId: "ses_other" });
  const message = await tools.patch.run(
    { path: "a.ts", old_string: "nope", new_string: "x" },
    other,
  ).then(() => "", (error: ToolError) => error.message);
  assert.doesNotMatch(message, /in a row/);
});

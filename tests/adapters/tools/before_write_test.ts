/**
 * write_file's `before` (the file's text before the write, for a surface's
 * diff): read by the tool only once the write guard allowed the write,
 * bounded, never from a pseudo-filesystem or a pipe, and never sent to the model.
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import {
  MAX_BEFORE_WRITE_BYTES,
  readBeforeWrite,
} from "../../../adapters/tools/files/before_write.ts";
import { createFileTools } from "../../../adapters/tools/files/mod.ts";
import { ToolRegistry } from "../../../core/tools/registry.ts";
import type { ToolDisplay } from "../../../core/tools/types.ts";
import { tempDir } from "../../_helpers.ts";
import { toolContext } from "./_context.ts";

const LINUX = Deno.build.os === "linux";

/** A tool context that records what the tool handed the surfaces. */
function displayContext(options: Parameters<typeof toolContext>[0]) {
  const shown: ToolDisplay[] = [];
  return { ...toolContext(options), shown, display: (display: ToolDisplay) => shown.push(display) };
}

Deno.test("write_file hands its old text to the surfaces after the write, never to the model", async () => {
  await using dir = await tempDir();
  await Deno.writeTextFile(join(dir.path, "a.txt"), "old\n");
  const tools = new ToolRegistry([createFileTools({ homeDir: dir.path }).writeFile]);
  const ctx = toolContext({ cwd: dir.path });
  const call = (id: string, path: string) => ({
    id,
    name: "write_file",
    arguments: JSON.stringify({ path, content: "new\n" }),
  });

  const replaced = await tools.execute(call("c1", "a.txt"), ctx);
  assert.ok(replaced.ok);
  assert.deepEqual(replaced.display, { before: "old\n" });
  assert.ok(!replaced.content.includes("old"), "the model's result has no old text");
  assert.equal(await Deno.readTextFile(join(dir.path, "a.txt")), "new\n");

  const created = await tools.execute(call("c2", "b.txt"), ctx);
  assert.ok(created.ok);
  assert.deepEqual(created.display, { before: null });
});

Deno.test("a write the guard refuses reads nothing: a .env file and a credential folder", async () => {
  await using dir = await tempDir();
  await Deno.writeTextFile(join(dir.path, ".env"), "OPENAI_API_KEY=sk-secret-value-123\n");
  await Deno.mkdir(join(dir.path, ".ssh"));
  await Deno.writeTextFile(join(dir.path, ".ssh", "config"), "Host secret\n");
  const files = createFileTools({ homeDir: dir.path });
  const ctx = displayContext({ cwd: dir.path });
  for (const path of [".env", "~/.ssh/config"]) {
    await assert.rejects(
      files.writeFile.run({ path, content: "x" }, ctx),
      (error: Error & { code?: string }) => error.code === "protected_path",
    );
  }
  assert.deepEqual(ctx.shown, [], "nothing was handed on");
  assert.equal(
    await Deno.readTextFile(join(dir.path, ".env")),
    "OPENAI_API_KEY=sk-secret-value-123\n",
  );
});

Deno.test("a write outside the working directory that is not approved reads nothing", async () => {
  await using work = await tempDir();
  await using outside = await tempDir();
  await Deno.writeTextFile(join(outside.path, "private.txt"), "private\n");
  const files = createFileTools({ homeDir: work.path });
  const ctx = displayContext({ cwd: work.path, approve: false });
  await assert.rejects(
    files.writeFile.run({ path: join(outside.path, "private.txt"), content: "x" }, ctx),
    (error: Error & { code?: string }) => error.code === "denied",
  );
  assert.equal(ctx.approvals.length, 1, "the write was asked about");
  assert.deepEqual(ctx.shown, []);

  const approved = displayContext({ cwd: work.path, approve: true });
  await files.writeFile.run({ path: join(outside.path, "private.txt"), content: "x" }, approved);
  assert.deepEqual(approved.shown, [{ before: "private\n" }], "read once approved");
});

Deno.test("readBeforeWrite shows a file up to 256 KiB and nothing larger", async () => {
  await using dir = await tempDir();
  assert.equal(MAX_BEFORE_WRITE_BYTES, 256 * 1024);
  const fits = join(dir.path, "fits.txt");
  const over = join(dir.path, "over.txt");
  await Deno.writeTextFile(fits, "a".repeat(MAX_BEFORE_WRITE_BYTES));
  await Deno.writeTextFile(over, "a".repeat(MAX_BEFORE_WRITE_BYTES + 1));
  assert.equal((await readBeforeWrite(fits))?.length, MAX_BEFORE_WRITE_BYTES);
  assert.equal(await readBeforeWrite(over), undefined);
  assert.equal(await readBeforeWrite(join(dir.path, "small.txt"), 4), null, "missing: a new file");
  await Deno.writeTextFile(join(dir.path, "small.txt"), "12345");
  assert.equal(await readBeforeWrite(join(dir.path, "small.txt"), 4), undefined);
});

Deno.test("readBeforeWrite shows nothing for bytes that are not UTF-8 text", async () => {
  await using dir = await tempDir();
  await Deno.writeFile(join(dir.path, "latin1.txt"), new Uint8Array([0x63, 0x61, 0x66, 0xe9]));
  await Deno.writeFile(join(dir.path, "nul.bin"), new Uint8Array([0x61, 0x00, 0x62]));
  await Deno.writeTextFile(join(dir.path, "utf8.txt"), "café ✓\n");
  assert.equal(await readBeforeWrite(join(dir.path, "latin1.txt")), undefined);
  assert.equal(await readBeforeWrite(join(dir.path, "nul.bin")), undefined);
  assert.equal(await readBeforeWrite(join(dir.path, "utf8.txt")), "café ✓\n");
  assert.equal(await readBeforeWrite(dir.path), undefined, "a folder");
});

Deno.test({
  name: "readBeforeWrite reads nothing from /proc, a link into it, a device or a pipe",
  ignore: !LINUX,
  async fn() {
    await using dir = await tempDir();
    assert.equal(await readBeforeWrite("/proc/self/environ"), undefined);
    // Reports size 0 and never ends: must not be read at all.
    assert.equal(await readBeforeWrite("/proc/self/pagemap"), undefined);
    assert.equal(await readBeforeWrite("/dev/zero"), undefined);
    const link = join(dir.path, "env-link");
    await Deno.symlink("/proc/self/environ", link);
    assert.equal(await readBeforeWrite(link), undefined);
    const fifo = join(dir.path, "pipe");
    const made = await new Deno.Command("mkfifo", { args: [fifo] }).output();
    assert.ok(made.success, "mkfifo");
    assert.equal(await readBeforeWrite(fifo), undefined, "a pipe is not opened");
  },
});

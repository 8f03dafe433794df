import assert from "node:assert/strict";
import { DatabaseSync } from "node:sqlite";
import { openStateStore, STATE_MIGRATIONS } from "../../../adapters/sqlite/mod.ts";
import { REPO_ROOT, tempDir } from "../../_helpers.ts";

const WRITER = new URL("./_concurrent_writer.ts", import.meta.url).pathname;
const PER_WRITER = 1_000;
const LABELS = ["a", "b"];

async function waitForFiles(paths: string[], timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const present = await Promise.all(
      paths.map((path) => Deno.stat(path).then(() => true, () => false)),
    );
    if (present.every(Boolean)) return;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${paths.join(", ")}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

Deno.test("two processes writing the same new state database at once lose nothing", async () => {
  await using dir = await tempDir();
  const path = `${dir.path}/state.db`;
  const barrier = `${dir.path}/barrier`;
  await Deno.mkdir(barrier);

  const children = LABELS.map((label) =>
    new Deno.Command(Deno.execPath(), {
      args: ["run", "--allow-all", WRITER, path, label, String(PER_WRITER), barrier],
      cwd: REPO_ROOT,
      stdin: "null",
      stdout: "piped",
      stderr: "piped",
    }).spawn()
  );
  try {
    await waitForFiles(LABELS.map((label) => `${barrier}/ready-${label}`), 60_000);
  } finally {
    // Release the writers even when one failed to start, so output() below cannot hang.
    await Deno.writeTextFile(`${barrier}/go`, "");
  }
  const results = await Promise.all(children.map((child) => child.output()));
  const decoder = new TextDecoder();
  results.forEach((result, i) => {
    assert.equal(
      result.code,
      0,
      `writer ${LABELS[i]} failed:\n${decoder.decode(result.stderr)}${
        decoder.decode(result.stdout)
      }`,
    );
  });

  const store = openStateStore(path);
  const raw = new DatabaseSync(path);
  try {
    assert.equal(
      raw.prepare("SELECT count(*) AS n FROM messages").get()?.n,
      LABELS.length * PER_WRITER,
    );
    assert.deepEqual(
      raw.prepare("SELECT version FROM schema_version ORDER BY version").all().map((r) =>
        r.version
      ),
      STATE_MIGRATIONS.map((migration) => migration.version),
    );
    for (const label of LABELS) {
      const session = store.getSession(`ses_writer_${label}`)!;
      assert.equal(session.messageCount, PER_WRITER);
      assert.equal(session.toolCallCount, PER_WRITER / 2);
      const messages = store.getMessages(session.id);
      assert.deepEqual(
        messages.map((m) => m.content),
        Array.from(
          { length: PER_WRITER },
          (_, i) => `writer ${label} says hello, message ${i} w${label}n${i}\r\n`,
        ),
      );
      const find = raw.prepare(
        "SELECT rowid AS id FROM messages_fts WHERE messages_fts MATCH ?",
      );
      messages.forEach((message, i) => {
        assert.deepEqual(
          find.all(`"w${label}n${i}"`).map((row) => row.id),
          [message.id],
          `message ${i} of writer ${label} is findable`,
        );
      });
    }
    assert.equal(
      raw.prepare("SELECT count(*) AS n FROM messages_fts WHERE messages_fts MATCH 'hello'").get()
        ?.n,
      LABELS.length * PER_WRITER,
    );
    assert.deepEqual(
      raw.prepare("PRAGMA integrity_check").all().map((row) => row.integrity_check),
      ["ok"],
    );
    assert.deepEqual(store.checkIntegrity(), ["ok"]);
  } finally {
    raw.close();
    store.close();
  }
});

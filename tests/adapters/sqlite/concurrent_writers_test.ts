import assert from "node:assert/strict";
import { DatabaseSync } from "node:sqlite";
import { openStateStore, STATE_MIGRATIONS } from "../../../adapters/sqlite/mod.ts";
import { tempDir } from "../../_helpers.ts";
import { raceWorkers } from "../../_workers.ts";

const WRITER = new URL("./_concurrent_writer.ts", import.meta.url).pathname;
const PER_WRITER = 1_000;
const LABELS = ["a", "b"];

Deno.test("two processes writing the same new state database at once lose nothing", async () => {
  await using dir = await tempDir();
  const path = `${dir.path}/state.db`;

  const results = await raceWorkers({
    script: WRITER,
    target: path,
    labels: LABELS,
    count: PER_WRITER,
    barrier: `${dir.path}/barrier`,
  });
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

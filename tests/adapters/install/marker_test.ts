import assert from "node:assert/strict";
import {
  markerPath,
  readMarker,
  stampDesktopVersion,
  writeNewMarker,
} from "../../../adapters/install/marker.ts";

const GOOD = {
  schemaVersion: 1,
  pinnedCommit: "3f2a9c1d0b7e",
  pinnedBranch: "main",
  completedAt: "2026-01-02T03:04:05.000Z",
};

Deno.test("a written marker has no byte-order mark, is 0644 JSON, and reads back", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const marker = await writeNewMarker(dir, {
      pinnedCommit: "3f2a9c1",
      pinnedBranch: "main",
      completedAt: new Date("2026-01-02T03:04:05Z"),
      desktopVersion: "0.0.1",
    });
    const bytes = await Deno.readFile(markerPath(dir));
    assert.notDeepEqual([...bytes.subarray(0, 3)], [0xef, 0xbb, 0xbf]);
    assert.equal(bytes[0], "{".charCodeAt(0));
    assert.deepEqual(JSON.parse(new TextDecoder().decode(bytes)), marker);
    assert.equal((await Deno.stat(markerPath(dir))).mode! & 0o777, 0o644);
    assert.deepEqual(await readMarker(dir), { state: "ok", path: markerPath(dir), marker });
    // No temporary file is left beside it.
    const names = [];
    for await (const entry of Deno.readDir(dir)) names.push(entry.name);
    assert.deepEqual(names, [".herald-bootstrap-complete"]);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("a later installer's marker is accepted, and stamping desktopVersion keeps its fields", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const later = { ...GOOD, schemaVersion: 2, installMethod: "binary", pins: { deno: "2.9.6" } };
    await Deno.writeTextFile(markerPath(dir), JSON.stringify(later));
    const read = await readMarker(dir);
    assert.equal(read.state, "ok");
    const stamped = await stampDesktopVersion(dir, "0.0.1");
    assert.deepEqual(stamped, { ...later, desktopVersion: "0.0.1" });
    const bytes = await Deno.readFile(markerPath(dir));
    assert.notEqual(bytes[0], 0xef);
    assert.deepEqual(JSON.parse(new TextDecoder().decode(bytes)), {
      ...later,
      desktopVersion: "0.0.1",
    });
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("missing and malformed markers on disk mean bootstrap needed", async () => {
  const dir = await Deno.makeTempDir();
  try {
    assert.equal((await readMarker(dir)).state, "missing");
    assert.equal(await stampDesktopVersion(dir, "0.0.1"), undefined);
    const bom = new Uint8Array([
      0xef,
      0xbb,
      0xbf,
      ...new TextEncoder().encode(JSON.stringify(GOOD)),
    ]);
    const cases: [Uint8Array | string, RegExp][] = [
      [bom, /byte-order mark/],
      ["{", /not JSON/],
      [JSON.stringify({ ...GOOD, pinnedCommit: "abc12" }), /pinnedCommit/],
      [JSON.stringify({ ...GOOD, completedAt: 5 }), /completedAt/],
      [new Uint8Array([0xff, 0xfe, 0x7b]), /not UTF-8/],
    ];
    for (const [content, reason] of cases) {
      if (typeof content === "string") await Deno.writeTextFile(markerPath(dir), content);
      else await Deno.writeFile(markerPath(dir), content);
      const read = await readMarker(dir);
      assert.equal(read.state, "invalid");
      assert.match((read as { reason: string }).reason, reason);
    }
    await Deno.remove(markerPath(dir));
    await Deno.mkdir(markerPath(dir));
    assert.equal((await readMarker(dir)).state, "invalid");
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

import assert from "node:assert/strict";
import {
  MARKER_SCHEMA_VERSION,
  newMarker,
  parseMarker,
  renderMarker,
} from "../../../core/desktop/marker.ts";

const GOOD = {
  schemaVersion: 1,
  pinnedCommit: "3f2a9c1d0b7e",
  pinnedBranch: "main",
  completedAt: "2026-01-02T03:04:05.000Z",
};

Deno.test("a marker from a later installer (higher version, extra fields) is accepted and kept whole", () => {
  const later = { ...GOOD, schemaVersion: 3, channel: "beta", pins: { deno: "2.9.6" } };
  const parsed = parseMarker(JSON.stringify(later));
  assert.ok(parsed.ok);
  assert.equal(parsed.marker.schemaVersion, 3);
  assert.deepEqual((parsed.marker as Record<string, unknown>).pins, { deno: "2.9.6" });
  assert.equal((parsed.marker as Record<string, unknown>).channel, "beta");
});

Deno.test("desktopVersion is optional and read when present; an offset time is accepted", () => {
  const parsed = parseMarker(
    JSON.stringify({ ...GOOD, completedAt: "2026-01-02T03:04:05+02:00", desktopVersion: "0.0.1" }),
  );
  assert.ok(parsed.ok && parsed.marker.desktopVersion === "0.0.1");
});

Deno.test("malformed markers mean bootstrap needed, with the reason", () => {
  const cases: [string, RegExp][] = [
    ["\uFEFF" + JSON.stringify(GOOD), /byte-order mark/],
    ["{not json", /not JSON/],
    ["", /not JSON/],
    ["[]", /expected object/i],
    [JSON.stringify({ ...GOOD, pinnedCommit: "3f2a9c" }), /pinnedCommit/],
    [JSON.stringify({ ...GOOD, pinnedCommit: "not-a-sha" }), /pinnedCommit/],
    [JSON.stringify({ ...GOOD, schemaVersion: 0 }), /schemaVersion/],
    [JSON.stringify({ ...GOOD, schemaVersion: "1" }), /schemaVersion/],
    [JSON.stringify({ ...GOOD, pinnedBranch: 7 }), /pinnedBranch/],
    [JSON.stringify({ ...GOOD, completedAt: "yesterday" }), /completedAt/],
    [JSON.stringify({ ...GOOD, desktopVersion: 1 }), /desktopVersion/],
    [JSON.stringify({ schemaVersion: 1 }), /pinnedCommit/],
  ];
  for (const [text, reason] of cases) {
    const parsed = parseMarker(text);
    assert.ok(!parsed.ok, `accepted: ${text}`);
    assert.match(parsed.reason, reason, text);
  }
});

Deno.test("a new marker is schema version 1, renders without a byte-order mark and parses back", () => {
  const marker = newMarker({
    pinnedCommit: "3f2a9c1",
    pinnedBranch: "main",
    completedAt: new Date("2026-01-02T03:04:05Z"),
    desktopVersion: "0.0.1",
  });
  assert.equal(marker.schemaVersion, MARKER_SCHEMA_VERSION);
  const text = renderMarker(marker);
  assert.notEqual(text.charCodeAt(0), 0xfeff);
  const parsed = parseMarker(text);
  assert.ok(parsed.ok);
  assert.deepEqual(parsed.marker, marker);
  assert.throws(
    () => newMarker({ pinnedCommit: "abc", pinnedBranch: "main", completedAt: new Date() }),
    /invalid bootstrap marker/,
  );
});

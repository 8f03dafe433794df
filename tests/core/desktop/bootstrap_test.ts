import assert from "node:assert/strict";
import {
  bootstrapFailedError,
  devCheckout,
  firstAnswer,
  newFailure,
  OUTPUT_LINE_MAX,
  OutputRing,
  parseFailure,
  parseFrame,
  parseManifest,
  type Rung,
  type RungProbe,
  RUNGS,
} from "../../../core/desktop/bootstrap.ts";
import { HeraldError } from "../../../core/errors.ts";

function fakeRungs(answering: Rung, tried: Rung[]): RungProbe[] {
  return RUNGS.map((rung) => ({
    rung,
    probe: () => {
      tried.push(rung);
      return Promise.resolve(
        rung === answering
          ? { answered: true as const, backend: { rung, command: [`/bin/${rung}`] } }
          : { answered: false as const, reason: `no ${rung}` },
      );
    },
  }));
}

Deno.test("rungs are tried in order and the first that answers wins", async () => {
  for (const [index, rung] of RUNGS.entries()) {
    const tried: Rung[] = [];
    const resolution = await firstAnswer(fakeRungs(rung, tried));
    assert.equal(resolution.backend.rung, rung);
    assert.deepEqual(tried, RUNGS.slice(0, index + 1));
    assert.deepEqual(resolution.passed.map((p) => p.rung), RUNGS.slice(0, index));
    assert.deepEqual(
      resolution.passed.map((p) => p.reason),
      RUNGS.slice(0, index).map((r) => `no ${r}`),
    );
  }
});

Deno.test("no rung answering is a state error listing every reason", async () => {
  const probes = fakeRungs("bootstrap", []).slice(0, 5);
  await assert.rejects(() => firstAnswer(probes), (error: HeraldError) => {
    assert.equal(error.code, "desktop_no_backend");
    assert.match(error.message, /no root-override.*no package/);
    return true;
  });
});

Deno.test("development mode: HERALD_DEV=1, a git checkout that is not the install, HERALD_DEV=0", () => {
  const facts = { checkout: "/src/herald", isGitCheckout: true, sameFolder: false };
  assert.deepEqual(devCheckout({}, facts), { dev: true, checkout: "/src/herald" });
  assert.equal(devCheckout({ HERALD_DEV: "0" }, facts).dev, false);
  assert.equal(devCheckout({}, { ...facts, sameFolder: true }).dev, false);
  assert.equal(devCheckout({}, { ...facts, isGitCheckout: false }).dev, false);
  assert.equal(devCheckout({ HERALD_DEV: "1" }, { ...facts, isGitCheckout: false }).dev, true);
  assert.equal(devCheckout({}, { isGitCheckout: false, sameFolder: false }).dev, false);
  assert.throws(
    () => devCheckout({ HERALD_DEV: "1" }, { isGitCheckout: false, sameFolder: false }),
    /compiled binary/,
  );
});

Deno.test("the manifest must be protocol 1 with well-formed stages; extra fields are fine", () => {
  const stage = { name: "repository", title: "Download", category: "runtime", needsInput: false };
  const ok = parseManifest(
    JSON.stringify({ protocolVersion: 1, stages: [{ ...stage, x: 1 }], y: 2 }),
  );
  assert.ok(ok.ok && ok.value.stages[0].name === "repository");
  assert.ok(!parseManifest("nope").ok);
  assert.ok(!parseManifest(JSON.stringify({ protocolVersion: 2, stages: [] })).ok);
  assert.ok(!parseManifest(JSON.stringify({ protocolVersion: 1, stages: [{ name: "x" }] })).ok);
});

Deno.test("a stage's stdout must be exactly one JSON frame for that stage", () => {
  const frame = (v: unknown) => JSON.stringify(v);
  const good = parseFrame(frame({ ok: true, stage: "path", skipped: false }) + "\n", "path");
  assert.ok(good.ok && good.value.ok && good.value.skipped === false);
  const skipped = parseFrame(
    frame({ ok: true, stage: "venv", skipped: true, reason: "no" }),
    "venv",
  );
  assert.ok(skipped.ok && skipped.value.skipped && skipped.value.reason === "no");
  const empty = parseFrame("", "path");
  assert.ok(!empty.ok && /0 lines/.test(empty.reason));
  const two = parseFrame(
    `${frame({ ok: true, stage: "a" })}\n${frame({ ok: true, stage: "a" })}`,
    "a",
  );
  assert.ok(!two.ok && /2 lines/.test(two.reason));
  const other = parseFrame(frame({ ok: true, stage: "b" }), "a");
  assert.ok(!other.ok && /for stage "b"/.test(other.reason));
  assert.ok(!parseFrame("hello", "a").ok);
  assert.ok(!parseFrame(frame({ ok: "yes", stage: "a" }), "a").ok);
});

Deno.test("the output ring keeps only the last N lines, joins chunks, cuts long lines, drops colour", () => {
  const ring = new OutputRing(3);
  assert.deepEqual(ring.write("one\ntw"), ["one"]);
  assert.deepEqual(ring.write("o\nthree\nfour\n\x1b[32mfive\x1b[0m"), ["two", "three", "four"]);
  assert.deepEqual(ring.lines(), ["two", "three", "four"]);
  assert.deepEqual(ring.flush(), ["five"]);
  assert.deepEqual(ring.lines(), ["three", "four", "five"]);
  assert.deepEqual(ring.flush(), []);
  for (let i = 0; i < 1000; i++) ring.write(`line ${i}\n`);
  assert.deepEqual(ring.lines(), ["line 997", "line 998", "line 999"]);
  ring.write("x".repeat(OUTPUT_LINE_MAX + 50) + "\n");
  assert.equal(ring.lines().at(-1)!.length, OUTPUT_LINE_MAX + 3);
});

Deno.test("a latched failure round-trips and its error says what to do", () => {
  const failure = newFailure("node-deps", "exit code 3", ["a", "", "b"], new Date(0));
  assert.deepEqual(parseFailure(JSON.stringify(failure)), failure);
  assert.equal(parseFailure("{}"), undefined);
  assert.equal(parseFailure("garbage"), undefined);
  const error = bootstrapFailedError(failure);
  assert.equal(error.code, "desktop_bootstrap_failed");
  assert.equal(error.kind, "state");
  assert.match(error.message, /stage "node-deps".*exit code 3 \[a \| b\].*herald desktop --reset/);
});

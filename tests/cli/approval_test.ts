import assert from "node:assert/strict";
import { createApprovalHandler } from "../../cli/chat/approval.ts";
import { LineReader } from "../../cli/chat/lines.ts";
import { captureOutput } from "../../cli/io.ts";

const request = {
  tool: "terminal",
  command: "rm -rf build",
  reason: "recursive delete",
  ruleKey: "rm_recursive",
};

function linesOf(text: string): LineReader {
  return new LineReader(ReadableStream.from([new TextEncoder().encode(text)]));
}

Deno.test("an interactive approval asks until it gets a known answer", async () => {
  const io = captureOutput();
  const handler = createApprovalHandler({
    io,
    ask: linesOf("maybe\ns\n"),
    allowed: new Set(),
    persistAlways: () => Promise.reject(new Error("not expected")),
  });
  assert.equal(await handler(request), "session");
  assert.equal(io.stderr.match(/Allow\?/g)?.length, 2);
  assert.match(io.stderr, /rm -rf build/);
});

Deno.test("an always answer is persisted, and a listed rule is not asked again", async () => {
  const persisted: string[] = [];
  const handler = createApprovalHandler({
    io: captureOutput(),
    ask: linesOf("always\n"),
    allowed: new Set(),
    persistAlways: (rule) => Promise.resolve(void persisted.push(rule)),
  });
  assert.equal(await handler(request), "always");
  assert.deepEqual(persisted, ["rm_recursive"]);
  const io = captureOutput();
  const preapproved = createApprovalHandler({
    io,
    allowed: new Set(["rm_recursive"]),
    persistAlways: () => Promise.resolve(),
  });
  assert.equal(await preapproved(request), "always");
  assert.equal(io.stderr, "");
});

Deno.test("without a terminal dangerous commands are denied with a hint", async () => {
  const io = captureOutput();
  const handler = createApprovalHandler({
    io,
    allowed: new Set(),
    persistAlways: () => Promise.resolve(),
  });
  assert.equal(await handler(request), "deny");
  assert.match(io.stderr, /add "rm_recursive" to approvals\.allow/);
  const eof = createApprovalHandler({
    io: captureOutput(),
    ask: linesOf(""),
    allowed: new Set(),
    persistAlways: () => Promise.resolve(),
  });
  assert.equal(await eof(request), "deny");
});

import assert from "node:assert/strict";
import { join } from "node:path";
import FakeTimers from "@sinonjs/fake-timers";
import { profilePaths } from "../../adapters/home/mod.ts";
import { openAgentRuntime } from "../../adapters/runtime/agent_runtime.ts";
import { tempDir } from "../_helpers.ts";
import { terminalApprovals } from "../../cli/chat/approval.ts";
import { LineReader } from "../../cli/chat/lines.ts";
import { captureOutput, type Output } from "../../cli/io.ts";
import { type AlwaysStore, ApprovalPolicy } from "../../core/tools/approval_policy.ts";

const request = {
  tool: "terminal",
  command: "rm -rf build",
  reason: "recursive delete",
  ruleKey: "rm_recursive",
};

function linesOf(text: string): LineReader {
  return new LineReader(ReadableStream.from([new TextEncoder().encode(text)]));
}

function store(add: AlwaysStore["add"]): AlwaysStore {
  return { add };
}

/** The policy of a terminal chat run: core's, with the terminal as its surface. */
function terminalApprovalPolicy(options: {
  io: Output;
  ask?: LineReader;
  store: AlwaysStore;
  safeMode?: boolean;
  allowed?: Iterable<string>;
  timeoutMs?: number;
}): ApprovalPolicy {
  return new ApprovalPolicy({
    ...terminalApprovals(options.io, options.ask),
    store: options.store,
    safeMode: options.safeMode ?? false,
    allowed: options.allowed,
    timeoutMs: options.timeoutMs,
  });
}

Deno.test("an interactive approval asks until it gets a known answer", async () => {
  const io = captureOutput();
  const policy = terminalApprovalPolicy({
    io,
    ask: linesOf("maybe\ns\n"),
    store: store(() => Promise.reject(new Error("not expected"))),
  });
  assert.equal(await policy.decide(request), "session");
  assert.equal(io.stderr.match(/Allow\?/g)?.length, 2);
  assert.match(io.stderr, /rm -rf build/);
});

Deno.test("an always answer is persisted, and a listed rule is not asked again", async () => {
  const persisted: string[] = [];
  const policy = terminalApprovalPolicy({
    io: captureOutput(),
    ask: linesOf("always\n"),
    store: store((rule) => Promise.resolve(void persisted.push(rule))),
  });
  assert.equal(await policy.decide(request), "always");
  assert.deepEqual(persisted, ["rm_recursive"]);
  const io = captureOutput();
  const preapproved = terminalApprovalPolicy({
    io,
    allowed: ["rm_recursive"],
    store: store(() => Promise.resolve()),
  });
  assert.equal(await preapproved.decide(request), "always");
  assert.equal(io.stderr, "");
});

Deno.test("without a terminal dangerous commands are denied with a hint", async () => {
  const io = captureOutput();
  const policy = terminalApprovalPolicy({ io, store: store(() => Promise.resolve()) });
  assert.equal(await policy.decide(request), "deny");
  assert.match(io.stderr, /add "rm_recursive" to approvals\.allow/);
  const eof = terminalApprovalPolicy({
    io: captureOutput(),
    ask: linesOf(""),
    store: store(() => Promise.resolve()),
  });
  assert.equal(await eof.decide(request), "deny");
});

Deno.test("an unanswered prompt is denied for silence and a late line is kept for the chat", async () => {
  const io = captureOutput();
  let late!: ReadableStreamDefaultController<Uint8Array>;
  const lines = new LineReader(new ReadableStream({ start: (c) => void (late = c) }));
  const policy = terminalApprovalPolicy({
    io,
    ask: lines,
    store: store(() => Promise.reject(new Error("not expected"))),
    timeoutMs: 20,
  });
  assert.equal(await policy.decide(request), "deny");
  assert.match(io.stderr, /denied after 20 ms/);
  assert.match(
    io.stderr,
    /herald: Denied terminal command .*No answer within 20 ms; silence is not consent/,
  );
  late.enqueue(new TextEncoder().encode("hello\n"));
  assert.equal(await lines.next(), "hello");
  late.close();
  await lines.close();
});

Deno.test("a failed save of always allows the call once and prints that the rule was not saved", async () => {
  const io = captureOutput();
  const policy = terminalApprovalPolicy({
    io,
    ask: linesOf("a\n"),
    store: store(() => Promise.reject(new Error("disk full"))),
  });
  assert.equal(await policy.decide(request), "once");
  assert.match(
    io.stderr,
    /herald: Could not save "rm_recursive" to approvals\.allow \(disk full\)/,
  );
});

Deno.test("in safe mode always is not saved and the terminal says so", async () => {
  const io = captureOutput();
  const policy = terminalApprovalPolicy({
    io,
    ask: linesOf("always\n"),
    store: store(() => Promise.reject(new Error("not expected"))),
    safeMode: true,
  });
  assert.equal(await policy.decide(request), "session");
  assert.match(io.stderr, /Safe mode saves nothing/);
});

Deno.test("an unanswered terminal approval is denied after approvals.timeout (fake time)", async () => {
  await using home = await tempDir();
  const paths = profilePaths(home.path, "default");
  await Deno.writeTextFile(
    join(home.path, "config.yaml"),
    "model:\n  provider: custom\n  base_url: http://127.0.0.1:9/v1\n  default: m\n" +
      "approvals:\n  timeout: 30\n",
  );
  const io = captureOutput();
  // A terminal where nobody types.
  const lines = new LineReader(new ReadableStream());
  const runtime = await openAgentRuntime(paths, {
    safeMode: false,
    source: "cli",
    cwd: home.path,
    env: {},
    approvals: terminalApprovals(io, lines),
    onWarning: () => {},
  });
  const clock = FakeTimers.install({ toFake: ["setTimeout", "clearTimeout"] });
  try {
    let answer: string | undefined;
    const decided = runtime.approvals.decide(request).then((a) => answer = a);
    await clock.tickAsync(29_999);
    assert.equal(answer, undefined, "still waiting before the timeout");
    await clock.tickAsync(1);
    await decided;
    assert.equal(answer, "deny");
    assert.match(io.stderr, /No answer within 30 s; silence is not consent/);
  } finally {
    clock.uninstall();
    runtime.close();
    await lines.close();
  }
});

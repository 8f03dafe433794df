import assert from "node:assert/strict";
import {
  type AlwaysStore,
  type ApprovalNotice,
  ApprovalPolicy,
  type ApprovalPolicyOptions,
  type AskHuman,
} from "../../../core/tools/approval_policy.ts";
import type { ApprovalChoice, ApprovalRequest } from "../../../core/tools/types.ts";

const request: ApprovalRequest = {
  tool: "terminal",
  command: "rm -rf build",
  reason: "recursive delete",
  ruleKey: "rm_recursive",
};

/** An AlwaysStore that records what it saved, or fails every save. */
function fakeStore(failWith?: string): AlwaysStore & { saved: string[] } {
  const saved: string[] = [];
  return {
    saved,
    add(ruleKey) {
      if (failWith) return Promise.reject(new Error(failWith));
      saved.push(ruleKey);
      return Promise.resolve();
    },
  };
}

/** A human who gives `answers` in turn and records every question. */
function fakeHuman(...answers: ApprovalChoice[]): AskHuman & { asked: ApprovalRequest[] } {
  const asked: ApprovalRequest[] = [];
  const ask = (question: ApprovalRequest) => {
    asked.push(question);
    const answer = answers.shift();
    if (!answer) throw new Error("asked more often than expected");
    return Promise.resolve(answer);
  };
  return Object.assign(ask, { asked });
}

function policyWith(options: Partial<ApprovalPolicyOptions> & { store: AlwaysStore }) {
  const notices: ApprovalNotice[] = [];
  const policy = new ApprovalPolicy({
    safeMode: false,
    ...options,
    onNotice: (notice) => notices.push(notice),
  });
  return { policy, notices };
}

Deno.test("an allowed rule passes without asking", async () => {
  const human = fakeHuman();
  const { policy, notices } = policyWith({
    ask: human,
    store: fakeStore(),
    allowed: ["git_reset_hard"],
  });
  policy.allow(["rm_recursive"]);
  assert.equal(await policy.decide(request), "always");
  assert.equal(await policy.decide({ ...request, ruleKey: "git_reset_hard" }), "always");
  assert.deepEqual(human.asked, []);
  assert.deepEqual(notices, []);
});

Deno.test("a non-interactive run denies what is not allowed and says how to allow it", async () => {
  const store = fakeStore();
  const { policy, notices } = policyWith({ store });
  assert.equal(await policy.decide(request), "deny");
  assert.equal(notices.length, 1);
  assert.equal(notices[0].code, "non_interactive");
  assert.match(notices[0].message, /add "rm_recursive" to approvals\.allow/);
  assert.deepEqual(store.saved, []);
});

Deno.test("once, session and deny answers are returned as given and nothing is saved", async () => {
  const store = fakeStore();
  const human = fakeHuman("once", "session", "deny");
  const { policy, notices } = policyWith({ ask: human, store });
  assert.equal(await policy.decide(request), "once");
  assert.equal(await policy.decide(request), "session");
  assert.equal(await policy.decide(request), "deny");
  assert.equal(human.asked.length, 3);
  assert.deepEqual(store.saved, []);
  assert.deepEqual(notices, []);
});

Deno.test("always is saved through the store and not asked again", async () => {
  const store = fakeStore();
  const human = fakeHuman("always");
  const { policy, notices } = policyWith({ ask: human, store });
  assert.equal(await policy.decide(request), "always");
  assert.equal(await policy.decide(request), "always");
  assert.deepEqual(store.saved, ["rm_recursive"]);
  assert.equal(human.asked.length, 1);
  assert.ok(policy.allows("rm_recursive"));
  assert.deepEqual(notices, []);
});

Deno.test("safe mode never saves: always holds for this run only and the user is told", async () => {
  const store = fakeStore();
  const human = fakeHuman("always");
  const { policy, notices } = policyWith({ ask: human, store, safeMode: true });
  assert.equal(await policy.decide(request), "session");
  assert.deepEqual(store.saved, []);
  assert.deepEqual(notices.map((n) => n.code), ["not_saved_safe_mode"]);
  assert.match(notices[0].message, /"rm_recursive".*not added to approvals\.allow/);
  assert.equal(await policy.decide(request), "always", "not asked again in this run");
  assert.equal(human.asked.length, 1);
});

Deno.test("a failed save still allows this one call, tells the user, and asks again next time", async () => {
  const store = fakeStore("config.yaml is locked");
  const human = fakeHuman("always", "deny");
  const { policy, notices } = policyWith({ ask: human, store });
  assert.equal(await policy.decide(request), "once");
  assert.equal(notices.length, 1);
  const [notice] = notices;
  assert.equal(notice.code, "save_failed");
  assert.equal(notice.code === "save_failed" && notice.error, "config.yaml is locked");
  assert.match(notice.message, /Could not save "rm_recursive".*config\.yaml is locked/);
  assert.ok(!policy.allows("rm_recursive"));
  assert.equal(await policy.decide(request), "deny");
  assert.equal(human.asked.length, 2);
});

Deno.test("silence is not consent: an unanswered question is denied and withdrawn", async () => {
  let withdrawn: unknown;
  let offered = 0;
  const silent: AskHuman = (_question, { timeoutMs, signal }) => {
    offered = timeoutMs;
    return new Promise((resolve) => {
      signal.addEventListener("abort", () => {
        withdrawn = signal.reason;
        resolve("once"); // a late answer does not count
      });
    });
  };
  const store = fakeStore();
  const { policy, notices } = policyWith({ ask: silent, store, timeoutMs: 20 });
  assert.equal(await policy.decide(request), "deny");
  assert.equal(offered, 20);
  assert.ok(withdrawn instanceof Error);
  assert.deepEqual(notices.map((n) => n.code), ["expired"]);
  assert.match(notices[0].message, /No answer within 20 ms; silence is not consent/);
  assert.equal((withdrawn as Error).message, notices[0].message);
  assert.deepEqual(store.saved, []);
});

Deno.test("questions are asked one at a time, and a queued one passes once its rule is always", async () => {
  let release!: (choice: ApprovalChoice) => void;
  const asked: ApprovalRequest[] = [];
  const ask: AskHuman = (question) => {
    asked.push(question);
    return new Promise((resolve) => release = resolve);
  };
  const { policy } = policyWith({ ask, store: fakeStore() });
  const first = policy.decide(request);
  const second = policy.decide(request);
  await new Promise((resolve) => setTimeout(resolve, 5));
  assert.equal(asked.length, 1, "the second question waits for the first");
  release("always");
  assert.equal(await first, "always");
  assert.equal(await second, "always");
  assert.equal(asked.length, 1);
});

Deno.test("a timeout that is not positive is refused", () => {
  assert.throws(
    () => new ApprovalPolicy({ store: fakeStore(), safeMode: false, timeoutMs: 0 }),
    RangeError,
  );
});

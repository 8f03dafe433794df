import assert from "node:assert/strict";
import { HeraldError } from "../../../core/errors.ts";
import {
  KANBAN_SYNOPSES,
  KANBAN_VERBS,
  parseKanbanArgs,
  runKanbanCommand,
} from "../../../core/kanban/kanban_command.ts";

const A = "t_1a2b3c4d";
const B = "t_5e6f7a8b";

/** Asserts that `tokens` are refused as usage, with a message matching `pattern`. */
function refused(tokens: string[], pattern: RegExp): void {
  assert.throws(
    () => parseKanbanArgs(tokens),
    (error: unknown) => {
      assert.ok(error instanceof HeraldError, String(error));
      assert.equal(error.code, "kanban_usage");
      assert.equal(error.kind, "usage");
      assert.match(error.message, pattern);
      assert.ok(!error.message.includes("\n"), "one line");
      return true;
    },
  );
}

Deno.test("kanban create reads the title, every option and repeated parents", () => {
  assert.deepEqual(
    parseKanbanArgs([
      "create",
      "Write the docs",
      "--body",
      "All of them",
      "--assignee",
      "Writer",
      "--parent",
      A,
      "--parent=" + B,
      "--triage",
      "--priority",
      "-2",
      "--idempotency-key",
      "docs-1",
      "--max-retries",
      "0",
      "--board",
      "Ops",
    ]),
    {
      verb: "create",
      input: {
        title: "Write the docs",
        board: "ops",
        body: "All of them",
        assignee: "Writer",
        parents: [A, B],
        triage: true,
        priority: -2,
        idempotencyKey: "docs-1",
        maxRetries: 0,
      },
    },
  );
  assert.deepEqual(parseKanbanArgs(["add", "Fix", "the", "build"]), {
    verb: "create",
    input: { title: "Fix the build" },
  });
});

Deno.test("kanban reads every other verb into its request", () => {
  assert.deepEqual(parseKanbanArgs([]), { verb: "list", all: false });
  assert.deepEqual(
    parseKanbanArgs(["ls", "--status", "Ready", "--assignee", "Coder", "--all"]),
    { verb: "list", all: true, status: "ready", assignee: "coder" },
  );
  assert.deepEqual(parseKanbanArgs(["show", A.toUpperCase().replace("T_", "t_")]), {
    verb: "show",
    id: A,
  });
  assert.deepEqual(parseKanbanArgs(["assign", A, "coder"]), {
    verb: "assign",
    id: A,
    profile: "coder",
  });
  assert.deepEqual(parseKanbanArgs(["link", A, B]), { verb: "link", parent: A, child: B });
  assert.deepEqual(parseKanbanArgs(["unlink", A, B]), { verb: "unlink", parent: A, child: B });
  assert.deepEqual(parseKanbanArgs(["comment", A, "looks", "good"]), {
    verb: "comment",
    id: A,
    text: "looks good",
  });
  assert.deepEqual(parseKanbanArgs(["complete", A, "--result", "shipped"]), {
    verb: "complete",
    id: A,
    result: "shipped",
  });
  assert.deepEqual(parseKanbanArgs(["done", A]), { verb: "complete", id: A, result: "" });
  assert.deepEqual(parseKanbanArgs(["block", A, "needs", "a", "key"]), {
    verb: "block",
    id: A,
    reason: "needs a key",
  });
  assert.deepEqual(parseKanbanArgs(["unblock", A]), { verb: "unblock", id: A });
  assert.deepEqual(parseKanbanArgs(["archive", A]), { verb: "archive", id: A });
  assert.deepEqual(parseKanbanArgs(["tail"]), { verb: "tail", follow: false });
  assert.deepEqual(parseKanbanArgs(["tail", A, "--since", "7", "--follow"]), {
    verb: "tail",
    id: A,
    since: 7,
    follow: true,
  });
  assert.deepEqual(parseKanbanArgs(["decompose", A]), { verb: "decompose", id: A });
  assert.deepEqual(parseKanbanArgs(["decompose", "--all", "--board", "ops"]), {
    verb: "decompose",
    board: "ops",
  });
  assert.deepEqual(
    parseKanbanArgs(["dispatch", "--dry-run", "--max", "4", "--failure-limit", "3"]),
    { verb: "dispatch", dryRun: true, max: 4, failureLimit: 3 },
  );
  assert.deepEqual(parseKanbanArgs(["stats", "--board", "ops"]), { verb: "stats", board: "ops" });
  assert.deepEqual(parseKanbanArgs(["boards"]), { verb: "boards", action: "list" });
  assert.deepEqual(parseKanbanArgs(["boards", "create", "Ops"]), {
    verb: "boards",
    action: "create",
    slug: "ops",
  });
  assert.deepEqual(parseKanbanArgs(["boards", "rm", "ops"]), {
    verb: "boards",
    action: "rm",
    slug: "ops",
  });
  assert.deepEqual(parseKanbanArgs(["help", "link"]), { verb: "help", topic: "link" });
  assert.deepEqual(parseKanbanArgs(["link", "--help"]), { verb: "help", topic: "link" });
  for (const verb of KANBAN_VERBS) assert.ok(KANBAN_SYNOPSES[verb].startsWith(verb), verb);
});

Deno.test("kanban refuses each bad input in one line naming the value", () => {
  refused(["lst"], /Unknown kanban command "lst"; did you mean list\?/);
  refused(["create"], /create needs a title/);
  refused(["create", "  "], /title cannot be empty/);
  refused(["create", "x", "--priority", "high"], /--priority "high" is not a whole number/);
  refused(
    ["create", "x", "--max-retries", "-1"],
    /--max-retries "-1" is not a whole number from 0/,
  );
  refused(["create", "x", "--parent", "42"], /"42" is not a task id; ids look like t_1a2b3c4d/);
  refused(["create", "x", "--assignee"], /Option --assignee needs a value/);
  refused(["create", "x", "--asignee", "coder"], /Unknown option "--asignee".*--assignee\?/);
  refused(["create", "x", "--triage=yes"], /--triage takes no value/);
  refused(["create", "x", "--board", "-bad"], /Board slug "-bad" is not valid/);
  refused(["list", "--status", "doing"], /Status "doing" is not one of triage, todo/);
  refused(["list", "extra"], /Unexpected "extra" after list/);
  refused(["show"], /show needs a task id/);
  refused(["show", "nope"], /"nope" is not a task id/);
  refused(["show", A, B], /Unexpected "t_5e6f7a8b" after show/);
  refused(["show", A, "--json"], /show takes no options/);
  refused(["link", A], /link needs a parent task id and a child task id/);
  refused(["comment", A], /comment needs a task id and the comment's text/);
  refused(["block", A], /block needs a task id and a reason/);
  refused(["tail", "--since", "x"], /--since "x" is not a whole number from 0/);
  refused(["decompose"], /decompose needs a task id, or --all/);
  refused(["decompose", A, "--all"], /either a task id or --all, not both/);
  refused(["decompose", A, "--board", "ops"], /--board goes with --all/);
  refused(["dispatch", "--max", "0"], /--max "0" is not a whole number from 1/);
  refused(["boards", "switch", "ops"], /Unknown boards action "switch"/);
  refused(["boards", "create"], /boards create needs a board slug/);
  refused(["help", "nope"], /Unknown kanban command "nope"/);
});

Deno.test("/kanban answers every mistake in words and never throws", async () => {
  assert.match(await runKanbanCommand("list", {}), /cannot be reached from here/);
  assert.match(await runKanbanCommand("show t_zz", {}), /"t_zz" is not a task id/);
  assert.match(await runKanbanCommand('create "unclosed', {}), /quote .* is not closed/);
  assert.match(await runKanbanCommand("tail --follow", {}), /tail --follow never ends/);
  const help = await runKanbanCommand("help", {});
  assert.match(help, /\/kanban create "<title>"/);
  assert.match(help, /\/kanban boards list \| create <slug> \| rm <slug>/);
});

import assert from "node:assert/strict";
import { HeraldError } from "../../../core/errors.ts";
import {
  checkLink,
  childrenToPromote,
  initialStatus,
  newTaskId,
  parseBoardSlug,
  resolveAssignee,
  TASK_ID_PATTERN,
  TaskRecordSchema,
  type TaskStatus,
} from "../../../core/kanban/mod.ts";

function graph(edges: [string, string][]): (id: string) => string[] {
  return (id) => edges.filter(([parent]) => parent === id).map(([, child]) => child);
}

Deno.test("a new task is ready, todo while a parent is unfinished, triage when asked", () => {
  assert.equal(initialStatus({ parentStatuses: [] }), "ready");
  assert.equal(initialStatus({ parentStatuses: ["done", "archived"] }), "ready");
  assert.equal(initialStatus({ parentStatuses: ["done", "running"] }), "todo");
  assert.equal(initialStatus({ parentStatuses: ["blocked"] }), "todo");
  assert.equal(initialStatus({ parentStatuses: [], triage: true }), "triage");
  assert.equal(initialStatus({ parentStatuses: ["todo"], triage: true }), "triage");
});

Deno.test("a task cannot depend on itself", () => {
  assert.throws(
    () => checkLink("t_aaaaaaaa", "t_aaaaaaaa", graph([])),
    (error: unknown) =>
      error instanceof HeraldError && error.code === "kanban_link_self" &&
      error.kind === "usage" && error.message.includes('"t_aaaaaaaa" cannot depend on itself'),
  );
});

Deno.test("a link that would close a cycle is refused, naming the cycle", () => {
  const edges = graph([["t_aaaaaaaa", "t_bbbbbbbb"], ["t_bbbbbbbb", "t_cccccccc"]]);
  assert.throws(
    () => checkLink("t_cccccccc", "t_aaaaaaaa", edges),
    (error: unknown) =>
      error instanceof HeraldError && error.code === "kanban_link_cycle" &&
      error.message.includes("t_cccccccc -> t_aaaaaaaa -> t_bbbbbbbb -> t_cccccccc"),
  );
  // The same pair the other way round, and an unrelated link, are fine.
  checkLink("t_aaaaaaaa", "t_cccccccc", edges);
  checkLink("t_dddddddd", "t_aaaaaaaa", edges);
});

Deno.test("the assignee falls back to kanban.default_assignee, then the default profile", () => {
  const profiles = ["default", "coder", "writer"];
  assert.deepEqual(resolveAssignee(" Coder ", { profiles, defaultProfile: "default" }), {
    assignee: "coder",
    source: "requested",
  });
  assert.deepEqual(
    resolveAssignee("ghost", { profiles, defaultAssignee: "writer", defaultProfile: "default" }),
    { assignee: "writer", source: "kanban.default_assignee" },
  );
  assert.deepEqual(
    resolveAssignee(undefined, { profiles, defaultAssignee: "writer", defaultProfile: "default" }),
    { assignee: "writer", source: "kanban.default_assignee" },
  );
  // A default_assignee that names no profile is skipped too.
  assert.deepEqual(
    resolveAssignee("", { profiles, defaultAssignee: "gone", defaultProfile: "default" }),
    { assignee: "default", source: "default_profile" },
  );
});

Deno.test("the resolved assignee is never empty", () => {
  for (const requested of [undefined, "", "  ", "nobody"]) {
    for (const defaultAssignee of [undefined, "", "nobody", "coder"]) {
      for (const profiles of [[], ["coder"]]) {
        const { assignee } = resolveAssignee(requested, {
          profiles,
          defaultAssignee,
          defaultProfile: "default",
        });
        assert.ok(assignee.length > 0, JSON.stringify({ requested, defaultAssignee, profiles }));
      }
    }
  }
  assert.throws(
    () => resolveAssignee(undefined, { profiles: [], defaultProfile: " " }),
    (error: unknown) => error instanceof HeraldError && error.kind === "internal",
  );
});

Deno.test("only todo children whose parents are all finished are promoted", () => {
  const parents: Record<string, TaskStatus[]> = {
    t_aaaaaaaa: ["done"],
    t_bbbbbbbb: ["done", "running"],
    t_cccccccc: ["done", "archived"],
    t_dddddddd: ["done"],
  };
  const children = [
    { id: "t_aaaaaaaa", status: "todo" as const },
    { id: "t_bbbbbbbb", status: "todo" as const },
    { id: "t_cccccccc", status: "todo" as const },
    { id: "t_dddddddd", status: "blocked" as const },
  ];
  assert.deepEqual(childrenToPromote(children, (id) => parents[id]), [
    "t_aaaaaaaa",
    "t_cccccccc",
  ]);
});

Deno.test("board slugs are normalised and a bad one is refused naming it", () => {
  assert.equal(parseBoardSlug(" Atm10-Server "), "atm10-server");
  for (const bad of ["", "-x", "_x", "a b", "x".repeat(65)]) {
    assert.throws(
      () => parseBoardSlug(bad),
      (error: unknown) =>
        error instanceof HeraldError && error.code === "kanban_board_slug" &&
        error.message.includes(`"${bad}"`),
    );
  }
});

Deno.test("task ids are t_ and 8 hex digits and a record validates", () => {
  const id = newTaskId();
  assert.match(id, TASK_ID_PATTERN);
  assert.ok(!TaskRecordSchema.safeParse({ id, assignee: "" }).success);
});

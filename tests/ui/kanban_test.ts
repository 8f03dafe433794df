/**
 * The Kanban page in a real Chromium against a real `herald dashboard`:
 * an empty board says how to add a task; a card dragged from Ready to
 * Blocked is moved and stays there after a reload, and a move the board
 * refuses shows why and the card snaps back; a triage task made with the
 * "New task" form is decomposed with the scripted model and its children
 * appear without a reload; the drawer edits a task and takes a comment;
 * the orchestration pill toggles `kanban.auto_decompose`; and a task
 * another process writes into `kanban.db` shows up live. Screenshots go
 * to .artifacts/ui/kanban-*.png.
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { openSqliteBoard } from "../../adapters/kanban/mod.ts";
import { NO_BROWSER, PHONE, startUiRig } from "./_browser.ts";

/** The browser logs each refused request (a move the board refuses, on purpose). */
const REFUSED = /the server responded with a status of 409/;

type Task = { id: string; title: string; status: string; priority: number; assignee: string };

Deno.test({
  name: "a card dragged to another column is moved and stays; a refused move snaps back",
  ignore: NO_BROWSER,
  async fn() {
    await using rig = await startUiRig({ open: null, allowConsole: [REFUSED] });
    await rig.open("/kanban");
    const page = rig.page;
    await page.getByText("No tasks on this board yet.").waitFor();
    await page.locator('.kanban-page[data-live="true"]').waitFor();
    await rig.screenshot("kanban-empty");

    const made = await rig.api<{ task: Task }>("POST", "/api/plugins/kanban/tasks", {
      title: "Ship the release",
      priority: 3,
    });
    await rig.api("POST", "/api/plugins/kanban/tasks", { title: "Write the changelog" });
    const ready = page.getByRole("list", { name: "Ready tasks" });
    const card = ready.getByRole("listitem", { name: "Ship the release" });
    // Made through the API, not the page: it arrives over the live events.
    await card.waitFor();
    assert.match(await card.innerText(), /P3/);

    await card.dragTo(page.locator('.kanban-column[data-status="blocked"]'));
    const blocked = page.getByRole("list", { name: "Blocked tasks" });
    await blocked.getByRole("listitem", { name: "Ship the release" }).waitFor();
    await page.waitForFunction(() => !document.querySelector(".kanban-card-pending"));
    const stored = await rig.api<{ task: Task }>(
      "GET",
      `/api/plugins/kanban/tasks/${made.task.id}`,
    );
    assert.equal(stored.task.status, "blocked");
    await rig.screenshot("kanban-dragged");

    await page.reload();
    await blocked.getByRole("listitem", { name: "Ship the release" }).waitFor();
    assert.equal(await ready.getByRole("listitem", { name: "Ship the release" }).count(), 0);

    // Only the dispatcher starts a task: the move is refused, said, and the card goes back.
    await blocked.getByRole("listitem", { name: "Ship the release" })
      .dragTo(page.locator('.kanban-column[data-status="running"]'));
    await page.locator(".toast-error").filter({ hasText: /Only the dispatcher starts a task/ })
      .waitFor();
    await blocked.getByRole("listitem", { name: "Ship the release" }).waitFor();
    assert.equal(
      await page.getByRole("list", { name: "Running tasks" }).getByRole("listitem").count(),
      0,
    );
    assert.equal(
      (await rig.api<{ task: Task }>("GET", `/api/plugins/kanban/tasks/${made.task.id}`)).task
        .status,
      "blocked",
    );
    await rig.screenshot("kanban-refused");
  },
});

Deno.test({
  name:
    "a triage task is decomposed and its children appear live; the drawer edits and comments; another process's task shows up",
  ignore: NO_BROWSER,
  async fn() {
    const graph = {
      fanout: true,
      rationale: "two independent parts, then a check",
      tasks: [
        { title: "Write the lexer", body: "Tokens.", assignee: null, parents: [] },
        { title: "Write the grammar", body: "Rules.", assignee: null, parents: [] },
        { title: "Check both", body: "Tests.", assignee: null, parents: [0, 1] },
      ],
    };
    await using rig = await startUiRig({
      open: null,
      replies: [{ text: JSON.stringify(graph) }],
      profiles: ["coder"],
    });
    await rig.open("/kanban");
    const page = rig.page;
    await page.locator('.kanban-page[data-live="true"]').waitFor();

    // The pill follows kanban.auto_decompose.
    const pill = page.getByRole("button", { name: "Orchestration: Auto" });
    await pill.click();
    await page.getByRole("button", { name: "Orchestration: Manual" }).waitFor();
    const settings = await rig.api<{ auto_decompose: boolean }>(
      "GET",
      "/api/plugins/kanban/orchestration",
    );
    assert.equal(settings.auto_decompose, false);

    // A triage task from the form.
    await page.getByRole("button", { name: "New task" }).click();
    const dialog = page.getByRole("dialog", { name: "New task" });
    await dialog.getByLabel("Title").fill("Build a parser");
    await dialog.getByLabel("Description").fill("A small expression parser.");
    await dialog.getByLabel("Start in triage").check();
    await rig.screenshot("kanban-new-task");
    await dialog.getByRole("button", { name: "Create task" }).click();
    await dialog.waitFor({ state: "detached" });
    const triage = page.getByRole("list", { name: "Triage tasks" });
    await triage.getByRole("listitem", { name: "Build a parser" }).waitFor();
    await rig.screenshot("kanban-triage");

    await triage.getByRole("button", { name: "Decompose Build a parser" }).click();
    const ready = page.getByRole("list", { name: "Ready tasks" });
    const todo = page.getByRole("list", { name: "Todo tasks" });
    await ready.getByRole("listitem", { name: "Write the lexer" }).waitFor();
    await ready.getByRole("listitem", { name: "Write the grammar" }).waitFor();
    await todo.getByRole("listitem", { name: "Check both" }).waitFor();
    await todo.getByRole("listitem", { name: "Build a parser" }).waitFor();
    assert.equal(await triage.getByRole("listitem").count(), 0);
    assert.equal(rig.model.requests.length, 1, "the decomposer asked the model once");
    await rig.screenshot("kanban-decomposed");

    // The root's drawer: what it waits for, an edit, a comment.
    await todo.getByRole("button", { name: "Open Build a parser" }).click();
    const drawer = page.getByRole("complementary", { name: /^Task / });
    await drawer.getByRole("heading", { name: "Build a parser" }).waitFor();
    await drawer.getByRole("region", { name: "Waits for" }).getByText("Check both").waitFor();
    assert.match(await drawer.innerText(), /decomposed/);
    await drawer.getByRole("button", { name: "Edit" }).click();
    await drawer.getByLabel("Title").fill("Build the parser");
    await drawer.getByLabel("Priority").fill("2");
    await drawer.getByLabel("Assignee").selectOption("coder");
    await drawer.getByRole("button", { name: "Save" }).click();
    await drawer.getByRole("heading", { name: "Build the parser" }).waitFor();
    await todo.getByRole("listitem", { name: "Build the parser" }).waitFor();
    await drawer.getByLabel("Add a comment").fill("Lexer first, please.");
    await drawer.getByRole("button", { name: "Comment" }).click();
    await drawer.getByRole("region", { name: "Comments" }).getByText("Lexer first, please.")
      .waitFor();
    const root = (await rig.api<{ columns: { tasks: Task[] }[] }>(
      "GET",
      "/api/plugins/kanban/board",
    )).columns.flatMap((column) => column.tasks).find((task) => task.title === "Build the parser")!;
    assert.deepEqual([root.priority, root.assignee], [2, "coder"]);
    await rig.screenshot("kanban-drawer");
    await drawer.getByRole("button", { name: "Close the task" }).click();
    await drawer.waitFor({ state: "detached" });

    // Another process writes to the same kanban.db: the card appears without a reload.
    const marker = await page.evaluate(() => (window as unknown as { marker: number }).marker = 7);
    const other = openSqliteBoard(join(rig.home, "kanban.db"));
    try {
      await other.createTask({ title: "From a worker", assignee: "coder" });
    } finally {
      other.close();
    }
    await ready.getByRole("listitem", { name: "From a worker" }).waitFor();
    assert.equal(
      await page.evaluate(() => (window as unknown as { marker?: number }).marker),
      marker,
      "the page was not reloaded",
    );
    await rig.screenshot("kanban-live");

    // On a phone the page itself does not scroll sideways (the board does).
    await page.setViewportSize(PHONE);
    await page.waitForFunction(() => document.querySelectorAll(".toast").length === 0);
    const overflow = await page.evaluate(() =>
      document.documentElement.scrollWidth - document.documentElement.clientWidth
    );
    assert.ok(overflow <= 0, `the page overflows by ${overflow}px`);
    await rig.screenshot("kanban-phone");
  },
});

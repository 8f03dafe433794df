/**
 * The Sessions page in a real Chromium against a real dashboard: a search
 * finds a message and opens the session scrolled to it (highlighted), a
 * session is renamed (a taken title refused at the field), exported as a
 * download and deleted after a confirmation, and the pages fit a phone.
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { openStateStore } from "../../adapters/sqlite/mod.ts";
import { Heights } from "../../server/ui/src/pages/sessions/heights.ts";
import { NO_BROWSER, PHONE, startUiRig, type UiRig } from "./_browser.ts";

/** A word only the deep message of the long session holds. */
const DEEP_WORD = "quokkaberry";

/** Runs one real chat turn (`herald chat -q`); returns the new session's id. */
async function chat(rig: UiRig, question: string, answer: string): Promise<string> {
  rig.model.enqueue({ text: answer });
  const before = await sessionIds(rig);
  const run = await rig.herald(["chat", "-q", question]);
  assert.equal(run.code, 0, run.stderr);
  const after = await sessionIds(rig);
  const made = after.filter((id) => !before.includes(id));
  assert.equal(made.length, 1);
  return made[0];
}

async function sessionIds(rig: UiRig): Promise<string[]> {
  const { sessions } = await rig.api<{ sessions: { id: string }[] }>(
    "GET",
    "/api/sessions?limit=200",
  );
  return sessions.map((session) => session.id);
}

/**
 * Stores a session of `count` messages (through the project's own store, as
 * an import would) whose message number `deep` holds {@link DEEP_WORD}.
 */
function seedLongSession(rig: UiRig, count: number, deep: number): string {
  const store = openStateStore(join(rig.home, "state.db"));
  try {
    const session = store.createSession({ source: "cli", title: "Long notebook" });
    store.appendMessages(
      session.id,
      Array.from({ length: count }, (_, i) => ({
        role: i % 2 === 0 ? "user" as const : "assistant" as const,
        content: i === deep
          ? `Note ${i}: the ${DEEP_WORD} harvest needs **three** baskets.`
          : `Note ${i}: ${"filler words about nothing much ".repeat(1 + (i % 7))}`,
      })),
    );
    return session.id;
  } finally {
    store.close();
  }
}

/** A word only the middle message of the short, tool-heavy session holds. */
const TOOL_WORD = "gannetwing";

/**
 * Stores a session with few user and assistant messages among many tool
 * results, so its first and last exchanges overlap: `You 0, Herald 1, tools,
 * You 8 (holding {@link TOOL_WORD}), tools, Herald 15`.
 */
function seedToolSession(rig: UiRig): string {
  const store = openStateStore(join(rig.home, "state.db"));
  const tool = (i: number) => ({
    role: "tool" as const,
    content: `Tool output ${i}`,
    toolCallId: `call_${i}`,
    toolName: "read_file",
  });
  try {
    const session = store.createSession({ source: "cli", title: "Tool log" });
    store.appendMessages(session.id, [
      { role: "user", content: "Step 0: open the log" },
      { role: "assistant", content: "Step 1: reading it" },
      ...[2, 3, 4, 5, 6, 7].map(tool),
      { role: "user", content: `Step 8: the ${TOOL_WORD} entry` },
      ...[9, 10, 11, 12, 13, 14].map(tool),
      { role: "assistant", content: "Step 15: done" },
    ]);
    return session.id;
  } finally {
    store.close();
  }
}

/** True when `selector`'s element lies inside the message list's visible area. */
async function inView(rig: UiRig, selector: string): Promise<boolean> {
  return await rig.page.evaluate((selector) => {
    const element = document.querySelector(selector);
    const list = document.querySelector('[aria-label="Messages"]');
    if (!element || !list) return false;
    const box = element.getBoundingClientRect();
    const view = list.getBoundingClientRect();
    return box.bottom > view.top && box.top < view.bottom;
  }, selector);
}

Deno.test({
  name: "a session search finds a message and opens the session scrolled to it, highlighted",
  ignore: NO_BROWSER,
  async fn() {
    await using rig = await startUiRig({ open: null });
    await chat(rig, "Where is the lighthouse key?", "Under the blue mat by the door.");
    const long = seedLongSession(rig, 600, 457);
    const deepId = (await rig.api<{ messages: { id: number; content: string }[] }>(
      "GET",
      `/api/sessions/${long}/messages?limit=1&offset=457`,
    )).messages[0].id;

    await rig.open("/sessions");
    const list = rig.page.getByRole("list", { name: "Sessions" });
    await list.getByRole("link", { name: /Long notebook/ }).waitFor();
    await list.getByRole("link", { name: /lighthouse key/ }).waitFor();
    await rig.screenshot("sessions");

    const search = rig.page.getByRole("searchbox", { name: "Search sessions" });
    await search.fill(DEEP_WORD);
    await search.press("Enter");
    const results = rig.page.getByRole("list", { name: "Search results" });
    const hit = results.locator("li.sessions-hit");
    await hit.first().waitFor();
    assert.equal(await hit.count(), 1);
    // The hit's window: the match with the messages around it, and the session's bookends.
    const match = hit.locator('[aria-current="true"]');
    assert.match(await match.innerText(), new RegExp(DEEP_WORD));
    // The excerpt is the text the Markdown reads as, without its markers.
    assert.match(await match.innerText(), /harvest needs three baskets/);
    assert.doesNotMatch(await hit.innerText(), /\*\*/);
    assert.equal(await match.locator("mark").first().innerText(), DEEP_WORD);
    const window = hit.getByRole("list", { name: "The match and the messages around it" });
    assert.equal(await window.locator("li").count(), 11, "five before, the match, five after");
    assert.match(await hit.getByRole("list", { name: "How it started" }).innerText(), /Note 0:/);
    assert.match(await hit.getByRole("list", { name: "How it ended" }).innerText(), /Note 599:/);
    await rig.screenshot("sessions-search");

    // Bookends that overlap each other or the window show each message once.
    seedToolSession(rig);
    await search.fill(TOOL_WORD);
    await search.press("Enter");
    const toolHit = results.locator("li.sessions-hit");
    await toolHit.getByRole("link", { name: "Tool log" }).first().waitFor();
    const texts = async (name: string) =>
      (await toolHit.getByRole("list", { name }).locator("li").allInnerTexts())
        .map((text) => /Step \d+|Tool output \d+/.exec(text)?.[0]);
    assert.deepEqual(await texts("How it started"), ["Step 0", "Step 1"]);
    assert.deepEqual(await texts("How it ended"), ["Step 15"]);
    const around = await texts("The match and the messages around it");
    assert.ok(around.includes("Step 8") && !around.includes("Step 1"), around.join(", "));
    await rig.screenshot("sessions-search-bookends");
    await search.fill(DEEP_WORD);
    await search.press("Enter");
    await results.getByRole("link", { name: "Long notebook" }).first().waitFor();

    await hit.getByRole("link", { name: /at the match/ }).click();
    await rig.page.waitForURL((url) => url.pathname === `/sessions/${long}`);
    assert.equal(new URL(rig.page.url()).searchParams.get("around"), String(deepId));
    const target = rig.page.locator(`#m-${deepId}`);
    await target.waitFor();
    assert.equal(await target.getAttribute("aria-current"), "true");
    assert.match(await target.getAttribute("class") ?? "", /is-target/);
    assert.match(await target.innerText(), new RegExp(DEEP_WORD));
    // Wait for the list to settle (heights measured), then the message is in view.
    await rig.page.waitForFunction(() =>
      new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve)))
    );
    assert.ok(await inView(rig, `#m-${deepId}`), "the hit is scrolled into view");
    // Only a window of the 600 messages is in the page.
    const rendered = await rig.page.locator('[aria-label="Messages"] article').count();
    assert.ok(rendered < 150, `${rendered} messages rendered`);
    await rig.screenshot("session-open");

    // Scrolling to the very start loads and shows the first message.
    await rig.page.getByRole("region", { name: "Messages" }).evaluate((element) => {
      element.scrollTop = 0;
    });
    await rig.page.getByText("Note 0:", { exact: false }).waitFor();
  },
});

Deno.test({
  name: "a session is renamed, exported as a download and deleted after confirming",
  ignore: NO_BROWSER,
  async fn() {
    // The taken title this test tries is a 409, which Chromium logs as a failed load.
    await using rig = await startUiRig({
      open: null,
      allowConsole: [/the server responded with a status of 409/],
    });
    const first = await chat(rig, "Plan the garden beds", "Start with the tomatoes.");
    const second = await chat(rig, "Fix the bike chain", "Oil it and check the tension.");
    await rig.api("PATCH", `/api/sessions/${first}`, { title: "Garden" });

    await rig.open(`/sessions/${second}`);
    await rig.page.getByRole("heading", { level: 1, name: /Fix the bike chain/ }).waitFor();
    assert.equal(
      await rig.page.getByRole("link", { name: "Continue in chat" }).getAttribute("href"),
      `/chat/${second}`,
    );

    // A title another session has is refused at the field, naming what to do.
    await rig.page.getByRole("button", { name: "Rename" }).click();
    const dialog = rig.page.getByRole("dialog", { name: "Rename the session" });
    const title = dialog.getByRole("textbox", { name: "Title" });
    await title.fill("garden");
    await dialog.getByRole("button", { name: "Save" }).click();
    const refusal = dialog.getByRole("alert");
    await refusal.waitFor();
    assert.match(await refusal.innerText(), /Garden|garden/);
    assert.equal(await dialog.getByRole("link", { name: "Open that session" }).count(), 1);
    await title.fill("Bike repairs");
    await dialog.getByRole("button", { name: "Save" }).click();
    await rig.page.getByRole("heading", { level: 1, name: "Bike repairs" }).waitFor();
    const stored = await rig.api<{ session: { title: string } }>("GET", `/api/sessions/${second}`);
    assert.equal(stored.session.title, "Bike repairs");

    // Export: a download of what `herald sessions export` prints.
    const [download] = await Promise.all([
      rig.page.waitForEvent("download"),
      rig.page.getByRole("button", { name: "Export" }).click(),
    ]);
    assert.equal(download.suggestedFilename(), `herald-${second}.json`);
    const saved = await Deno.readTextFile(await download.path());
    const cli = await rig.herald(["sessions", "export", second]);
    assert.equal(cli.code, 0, cli.stderr);
    assert.equal(saved, cli.stdout);
    assert.equal(JSON.parse(saved).format, "herald.session.v1");

    // Delete: Escape keeps the session; confirming deletes it and goes back to the list.
    await rig.page.getByRole("button", { name: "Delete" }).click();
    const confirm = rig.page.getByRole("dialog", { name: "Delete the session?" });
    await confirm.waitFor();
    await rig.page.keyboard.press("Escape");
    await confirm.waitFor({ state: "detached" });
    assert.ok((await sessionIds(rig)).includes(second));
    await rig.page.getByRole("button", { name: "Delete" }).click();
    await confirm.getByRole("button", { name: "Delete session" }).click();
    await rig.page.waitForURL((url) => url.pathname === "/sessions");
    const list = rig.page.getByRole("list", { name: "Sessions" });
    await list.getByRole("link", { name: /Garden/ }).waitFor();
    assert.equal(await list.getByRole("link", { name: /Bike repairs/ }).count(), 0);
    assert.deepEqual(await sessionIds(rig), [first]);
  },
});

Deno.test({
  name: "the sessions list, a search and an open session fit a phone screen",
  ignore: NO_BROWSER,
  async fn() {
    await using rig = await startUiRig({ open: null, viewport: PHONE });
    const id = await chat(rig, "Where is the lighthouse key?", "Under the **blue** mat.");
    seedLongSession(rig, 120, 60);
    const fits = async (what: string) => {
      const width = await rig.page.evaluate(() => document.documentElement.scrollWidth);
      assert.ok(width <= PHONE.width, `${what} is ${width}px wide on a phone`);
    };
    await rig.open("/sessions");
    await rig.page.getByRole("list", { name: "Sessions" }).getByRole("link").first().waitFor();
    await fits("the list");
    await rig.screenshot("sessions-phone");
    await rig.open(`/sessions?q=${DEEP_WORD}`);
    await rig.page.getByRole("list", { name: "Search results" }).waitFor();
    await fits("the search");
    await rig.screenshot("sessions-search-phone");
    await rig.open(`/sessions/${id}`);
    await rig.page.getByText("Under the").waitFor();
    await fits("a session");
    // The actions wrap tidily: Rename, Export and Delete share one row.
    const tops = await Promise.all(
      ["Rename", "Export", "Delete"].map(async (name) =>
        (await rig.page.getByRole("button", { name, exact: true }).boundingBox())?.y
      ),
    );
    assert.ok(tops[0] !== undefined && tops.every((top) => top === tops[0]), `tops ${tops}`);
    await rig.page.emulateMedia({ colorScheme: "dark" });
    await rig.screenshot("session-open-phone-dark");
  },
});

Deno.test("the message list's geometry uses measured heights, and their average elsewhere", () => {
  const heights = new Heights(5, 100);
  assert.equal(heights.total, 500, "the guess before anything is measured");
  assert.equal(heights.set(1, 300), true);
  assert.equal(heights.set(1, 300.2), false, "a change under half a pixel is none");
  heights.set(3, 100);
  // Measured: 300 and 100, so the others count as their average, 200.
  assert.equal(heights.estimate, 200);
  assert.deepEqual([0, 1, 2, 3, 4, 5].map((i) => heights.offset(i)), [0, 200, 500, 700, 800, 1000]);
  assert.equal(heights.indexAt(0), 0);
  assert.equal(heights.indexAt(499), 1);
  assert.equal(heights.indexAt(500), 2);
  assert.equal(heights.indexAt(5000), 4, "past the end is the last item");
  assert.equal(heights.indexAt(-10), 0);
});

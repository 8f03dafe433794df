/**
 * The Chat page in a real Chromium against a real `herald dashboard` and the
 * scripted model: a round trip with a tool call that asks for approval, the
 * slash autocomplete with a bundle's marker and the bundle used in chat,
 * interrupting a slow turn, `/exit --delete`, resuming from the side list
 * and from the URL, a profile without a model, and the phone layout.
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import type { Page } from "playwright-core";
import { skillMd, writeTree } from "../adapters/skills/_write.ts";
import { tempDir } from "../_helpers.ts";
import { NO_BROWSER, PHONE, startUiRig } from "./_browser.ts";

type Message = { role: string; content: unknown };

/** The messages of the model request `body`. */
function messages(body: unknown): Message[] {
  return (body as { messages: Message[] }).messages;
}

/** The text of the last user message the model was sent in `body`. */
function lastUser(body: unknown): string {
  return String(messages(body).findLast((m) => m.role === "user")?.content ?? "");
}

/** The session id the URL names (`/chat/<id>`). */
async function urlSession(page: Page): Promise<string> {
  await page.waitForURL(/\/chat\/[^/?]+/);
  return decodeURIComponent(new URL(page.url()).pathname.split("/")[2]);
}

/** Types `text` in the message box and presses Enter. */
async function send(page: Page, text: string): Promise<void> {
  const input = page.getByRole("textbox", { name: "Message" });
  await input.fill(text);
  await input.press("Enter");
}

Deno.test({
  name:
    "a chat round trip asks before a dangerous command, runs it once allowed and streams the answer",
  ignore: NO_BROWSER,
  async fn() {
    await using rig = await startUiRig({
      replies: [
        { toolCalls: [{ name: "terminal", arguments: { command: "rm -rv scratch" } }] },
        { text: "The **scratch** folder is gone.\n\n- one\n- two", chunkSize: 3 },
      ],
      configExtra: "approvals:\n  mode: ask\n",
    });
    await Deno.mkdir(join(rig.home, "scratch"));
    const { page } = rig;
    const input = page.getByRole("textbox", { name: "Message" });
    await send(page, "please clean up the scratch folder");
    assert.equal(await input.inputValue(), "", "the input is cleared after sending");

    const dialog = page.getByRole("dialog", { name: "Allow this terminal call?" });
    await dialog.waitFor();
    assert.match((await dialog.textContent()) ?? "", /rm -rv scratch/);
    assert.equal(
      await page.evaluate(() => document.activeElement?.textContent),
      "Deny",
      "the dialog takes focus on the safe answer",
    );
    await rig.screenshot("chat-approval");
    await dialog.getByRole("button", { name: "Allow once" }).click();
    await dialog.waitFor({ state: "hidden" });

    const tool = page.getByRole("region", { name: "Tool terminal: rm -rv scratch" });
    await tool.locator(".chat-tool-status").filter({ hasText: /^ok/ }).waitFor();
    await page.getByText("folder is gone").waitFor();
    assert.equal(
      await page.locator(".chat-bubble-assistant strong").first().textContent(),
      "scratch",
      "the answer is rendered as Markdown",
    );
    // The answer's text streams in before the turn ends; once it has ended, Stop goes away.
    await page.getByRole("button", { name: "Stop" }).waitFor({ state: "detached" });
    await page.getByRole("button", { name: "Send" }).waitFor();
    assert.equal(
      await Deno.stat(join(rig.home, "scratch")).then(() => true, () => false),
      false,
      "the allowed command ran",
    );
    const result = messages(rig.model.requests[1].body).find((m) => m.role === "tool");
    assert.equal(JSON.parse(String(result?.content)).exit_code, 0);
    assert.equal(
      await page.evaluate(() => document.activeElement?.getAttribute("aria-label")),
      "Message",
      "the input has the focus back",
    );
    const id = await urlSession(page);
    assert.match(id, /^ses_/);
    await page.getByRole("navigation", { name: "Recent sessions" })
      .getByRole("button", { name: /please clean up/ }).waitFor();
    await tool.getByText("Output: exit 0, 1 line").click();
    await tool.getByText("removed directory 'scratch'").waitFor();
    await rig.screenshot("chat-desktop");
  },
});

Deno.test({
  name:
    "the autocomplete shows a bundle with its marker, and the bundle sent from chat loads its skills",
  ignore: NO_BROWSER,
  async fn() {
    await using rig = await startUiRig({ replies: [{ text: "Reviewed with both skills." }] });
    await writeTree(rig.home, {
      "skills/dev/lint-rules/SKILL.md": skillMd("lint-rules", "LINT-RULES-BODY"),
      "skills/dev/test-plan/SKILL.md": skillMd("test-plan", "TEST-PLAN-BODY"),
    });
    await rig.api("POST", "/api/bundles", {
      name: "review-kit",
      description: "Careful review",
      skills: ["lint-rules", "test-plan"],
    });
    const { page } = rig;
    const input = page.getByRole("textbox", { name: "Message" });
    await input.fill("/");
    const menu = page.getByRole("listbox", { name: "Commands" });
    await menu.waitFor();
    await menu.getByRole("option", { name: /\/help/ }).waitFor();
    await input.pressSequentially("revi");
    const option = menu.getByRole("option", { name: /\/review-kit/ });
    await option.waitFor();
    assert.match((await option.textContent()) ?? "", /▣.*Careful review \(2 skills\)/);
    assert.equal(
      await menu.getByRole("option").count(),
      1,
      "the list is filtered as the name is typed",
    );
    await rig.screenshot("chat-autocomplete");
    await input.press("Tab");
    assert.equal(await input.inputValue(), "/review-kit ");
    await menu.waitFor({ state: "hidden" });
    await input.pressSequentially("src/app.ts");
    await input.press("Enter");

    await page.getByText("Reviewed with both skills.").waitFor();
    const sent = lastUser(rig.model.requests[0].body);
    assert.match(sent, /LINT-RULES-BODY/);
    assert.match(sent, /TEST-PLAN-BODY/);
    assert.match(sent, /src\/app\.ts/);
    assert.ok(
      await page.locator(".chat-bubble-user").filter({ hasText: "/review-kit src/app.ts" })
        .count() === 1,
      "the transcript shows the line as typed",
    );
  },
});

Deno.test({
  name: "Stop and Escape interrupt a slow turn and keep what came so far",
  ignore: NO_BROWSER,
  async fn() {
    const slow = (word: string) => ({
      text: `${word} `.repeat(200),
      chunkSize: 6,
      chunkDelayMs: 40,
    });
    await using rig = await startUiRig({ replies: [slow("alpha"), slow("beta")] });
    const { page } = rig;
    const input = page.getByRole("textbox", { name: "Message" });

    await send(page, "tell me a long story");
    await page.getByText(/alpha alpha/).waitFor();
    const list = page.getByRole("navigation", { name: "Recent sessions" });
    await list.locator('[aria-current="true"]').filter({ hasText: "tell me a long story" })
      .waitFor();
    assert.equal(await list.getByText("No sessions yet.").count(), 0);
    await page.getByRole("button", { name: "Stop" }).click();
    await page.getByText("Stopped. What came so far is kept.").waitFor();
    assert.equal(await page.getByRole("button", { name: "Stop" }).count(), 0);
    const id = await urlSession(page);

    await send(page, "another one");
    await page.getByText(/beta beta/).waitFor();
    await input.press("Escape");
    await page.getByText("Stopped. What came so far is kept.").nth(1).waitFor();
    assert.equal(await page.getByRole("button", { name: "Stop" }).count(), 0);

    const stored = await rig.api<{ messages: { role: string; content: string | null }[] }>(
      "GET",
      `/api/sessions/${id}/messages`,
    );
    const answers = stored.messages.filter((m) => m.role === "assistant");
    assert.equal(answers.length, 2);
    assert.match(String(answers[0].content), /^alpha alpha/);
    assert.ok(String(answers[0].content).length < 1200, "the first answer was cut short");
  },
});

Deno.test({
  name: "/exit --delete closes and deletes the session, says so and starts a new chat",
  ignore: NO_BROWSER,
  async fn() {
    await using rig = await startUiRig({ replies: [{ text: "hello back" }] });
    const { page } = rig;
    await send(page, "hello");
    await page.getByText("hello back").waitFor();
    const id = await urlSession(page);
    const list = page.getByRole("navigation", { name: "Recent sessions" });
    await list.getByRole("button", { name: /hello/ }).waitFor();

    await send(page, "/exit --delete");
    await page.getByText(`Session ${id} was closed and deleted.`).waitFor();
    await page.waitForURL((url) => url.pathname === "/chat");
    await list.getByText("No sessions yet.").waitFor();
    await assert.rejects(rig.api("GET", `/api/sessions/${id}`), /404/);
    // The page goes on with a fresh session.
    rig.model.enqueue({ text: "fresh start" });
    await send(page, "again");
    await page.getByText("fresh start").waitFor();
    assert.notEqual(await urlSession(page), id);
  },
});

Deno.test({
  name: "a session is resumed from the side list and reopened from its URL, in the dark theme",
  ignore: NO_BROWSER,
  async fn() {
    await using rig = await startUiRig({
      dark: true,
      replies: [{ text: "the first answer" }, { text: "the second answer" }],
    });
    const earlier = await rig.herald(["chat", "-q", "the first question"]);
    assert.equal(earlier.code, 0, earlier.stderr);
    const { page } = rig;
    await rig.open("/chat");
    const list = page.getByRole("navigation", { name: "Recent sessions" });
    await list.getByRole("button", { name: /the first question/ }).click();
    await page.getByText("the first answer").waitFor();
    const id = await urlSession(page);
    assert.match(id, /^ses_/);
    assert.equal(
      await list.locator('[aria-current="true"]').textContent().then((t) => t?.includes("first")),
      true,
    );

    await send(page, "a follow-up");
    await page.getByText("the second answer").waitFor();
    const history = messages(rig.model.requests[1].body).map((m) => m.content);
    assert.ok(history.includes("the first question"), "the resumed session's history was sent");
    assert.ok(history.includes("the first answer"));
    assert.equal(await urlSession(page), id);
    await rig.screenshot("chat-dark");

    await page.reload();
    const log = page.getByRole("log", { name: "Conversation" });
    await log.getByText("the second answer").waitFor();
    await log.getByText("the first question").waitFor();
    assert.equal(await urlSession(page), id);
  },
});

Deno.test({
  name: "switching profile starts a fresh session there; one without a model links to its setup",
  ignore: NO_BROWSER,
  async fn() {
    await using rig = await startUiRig({
      profiles: ["work", "bare"],
      replies: [{ text: "default answer" }, { text: "work answer" }],
    });
    await Deno.writeTextFile(join(rig.home, "profiles", "bare", "config.yaml"), "# nothing yet\n");
    const { page } = rig;
    const profile = page.getByRole("combobox", { name: "Profile" });
    await send(page, "in default");
    await page.getByText("default answer").waitFor();
    const first = await urlSession(page);

    await profile.selectOption("work");
    await page.waitForURL((url) => url.pathname === "/chat" && url.search === "?profile=work");
    assert.equal(await page.getByText("default answer").count(), 0, "a fresh transcript");
    await send(page, "in work");
    await page.getByText("work answer").waitFor();
    const second = await urlSession(page);
    assert.notEqual(second, first);
    type Listed = { sessions: { id: string }[] };
    const work = await rig.api<Listed>("GET", "/api/sessions?profile=work");
    assert.deepEqual(work.sessions.map((s) => s.id), [second]);
    const main = await rig.api<Listed>("GET", "/api/sessions");
    assert.deepEqual(main.sessions.map((s) => s.id), [first]);

    await profile.selectOption("bare");
    const link = page.getByRole("link", { name: "Set up a model" });
    await link.waitFor();
    assert.equal(await page.getByRole("textbox", { name: "Message" }).count(), 0);
    assert.match((await link.getAttribute("href")) ?? "", /^\/settings\/model\?profile=bare$/);
    await rig.screenshot("chat-setup");
  },
});

Deno.test({
  name: "on a phone the session list folds behind a button and a file edit shows as a diff",
  ignore: NO_BROWSER,
  async fn() {
    await using work = await tempDir();
    await Deno.writeTextFile(join(work.path, "notes.md"), "# Notes\n\nfirst line\n");
    await using rig = await startUiRig({
      viewport: PHONE,
      cwd: work.path,
      replies: [
        {
          toolCalls: [{
            name: "write_file",
            arguments: { path: "notes.md", content: "# Notes\n\nsecond line\n" },
          }],
        },
        { text: "Updated `notes.md`." },
        {
          toolCalls: [{
            name: "patch",
            arguments: { path: "notes.md", old_string: "no such text", new_string: "third line" },
          }],
        },
        { text: "The patch did not apply." },
      ],
    });
    const { page } = rig;
    const list = page.getByRole("navigation", { name: "Recent sessions" });
    assert.equal(await list.isVisible(), false, "the list is folded away");
    await send(page, "rewrite my notes");
    await page.getByText("Updated").waitFor();
    const tool = page.getByRole("region", { name: "Tool write_file: notes.md" });
    await tool.locator(".chat-tool-status").filter({ hasText: /^ok/ }).waitFor();
    const shown = (await tool.textContent()) ?? "";
    assert.match(shown, /first line/, "the diff shows the line the write replaced");
    assert.match(shown, /second line/);
    assert.equal(await Deno.readTextFile(join(work.path, "notes.md")), "# Notes\n\nsecond line\n");
    await rig.screenshot("chat-phone");

    await send(page, "patch my notes");
    await page.getByText("The patch did not apply.").waitFor();
    const patch = page.getByRole("region", { name: "Tool patch: notes.md" });
    await patch.locator(".chat-tool-status").filter({ hasText: /^failed/ }).waitFor();
    await patch.getByText(/^Not applied/).waitFor();
    assert.equal(
      await patch.getByText("third line").count(),
      0,
      "a failed edit shows no diff",
    );

    await page.getByRole("button", { name: "Sessions" }).click();
    await list.getByRole("button", { name: /rewrite my notes/ }).waitFor();
    await rig.screenshot("chat-phone-sessions");
    await page.getByRole("button", { name: "Close" }).click();
    await list.waitFor({ state: "hidden" });
  },
});

/** Whether `path` exists. */
async function exists(path: string): Promise<boolean> {
  return await Deno.stat(path).then(() => true, () => false);
}

/** Presses Escape in the open approval dialog until it closes (keys are ignored at first). */
async function escapeUntilClosed(page: Page): Promise<void> {
  const dialog = page.getByRole("dialog");
  while (await dialog.isVisible()) {
    await page.keyboard.press("Escape");
    await dialog.waitFor({ state: "hidden", timeout: 500 }).catch(() => {});
  }
}

Deno.test({
  name:
    "keys typed as the approval question opens answer nothing, and Escape then denies and tells the model",
  ignore: NO_BROWSER,
  async fn() {
    await using rig = await startUiRig({
      replies: [
        { toolCalls: [{ name: "terminal", arguments: { command: "rm -rv scratch" } }] },
        { text: "I left the folder alone." },
      ],
      configExtra: "approvals:\n  mode: ask\n",
    });
    await Deno.mkdir(join(rig.home, "scratch"));
    const config = await Deno.readTextFile(join(rig.home, "config.yaml"));
    const { page } = rig;
    const input = page.getByRole("textbox", { name: "Message" });
    await send(page, "clean up");
    // The user goes on typing while the question opens.
    const dialog = page.getByRole("dialog", { name: "Allow this terminal call?" });
    while (!(await dialog.isVisible())) await input.press("a").catch(() => {});
    await page.keyboard.type("as");
    await page.keyboard.press("Enter");
    assert.equal(await dialog.isVisible(), true, "the keys did not answer the question");
    assert.equal(await Deno.readTextFile(join(rig.home, "config.yaml")), config);
    assert.equal(await exists(join(rig.home, "scratch")), true, "the command did not run");
    assert.equal(rig.model.requests.length, 1);

    await escapeUntilClosed(page);
    await page.getByText("I left the folder alone.").waitFor();
    const tool = page.getByRole("region", { name: "Tool terminal: rm -rv scratch" });
    assert.match((await tool.textContent()) ?? "", /failed: The command was not approved/);
    const result = messages(rig.model.requests[1].body).find((m) => m.role === "tool");
    assert.match(String(result?.content), /The command was not approved/);
    assert.equal(await exists(join(rig.home, "scratch")), true);
    assert.equal(await Deno.readTextFile(join(rig.home, "config.yaml")), config);
  },
});

Deno.test({
  name:
    "allowing for the session stops asking for the same command; always allow is saved; deny is told",
  ignore: NO_BROWSER,
  async fn() {
    const rm = (target: string) => ({
      toolCalls: [{ name: "terminal", arguments: { command: `rm -rv ${target}` } }],
    });
    await using rig = await startUiRig({
      replies: [
        rm("scratch"),
        { text: "first done" },
        rm("scratch"),
        { text: "second done" },
        rm("build"),
        { text: "third done" },
        rm("keep"),
        { text: "fourth done" },
      ],
      configExtra: "approvals:\n  mode: ask\n",
    });
    for (const dir of ["scratch", "build", "keep"]) await Deno.mkdir(join(rig.home, dir));
    const { page } = rig;
    const dialog = page.getByRole("dialog");

    await send(page, "one");
    await dialog.getByRole("button", { name: "Allow for this session" }).click();
    await page.getByText("first done").waitFor();
    assert.equal(await exists(join(rig.home, "scratch")), false);

    // The same command again in this session runs without a question.
    await Deno.mkdir(join(rig.home, "scratch"));
    await send(page, "two");
    await page.getByText("second done").waitFor();
    assert.equal(await exists(join(rig.home, "scratch")), false);
    assert.equal(await dialog.count(), 0);

    await send(page, "three");
    await dialog.getByRole("button", { name: "Always allow" }).click();
    await page.getByText("third done").waitFor();
    assert.equal(await exists(join(rig.home, "build")), false);
    const config = await Deno.readTextFile(join(rig.home, "config.yaml"));
    assert.match(config, /rm_recursive:build/, "the rule is in approvals.allow");

    await send(page, "four");
    await dialog.getByRole("button", { name: "Deny" }).click();
    await page.getByText("fourth done").waitFor();
    assert.equal(await exists(join(rig.home, "keep")), true, "the denied command did not run");
    const tool = page.getByRole("region", { name: "Tool terminal: rm -rv keep" });
    assert.match((await tool.textContent()) ?? "", /failed: The command was not approved/);
    const told = messages(rig.model.requests[7].body).findLast((m) => m.role === "tool");
    assert.match(String(told?.content), /The command was not approved/);
  },
});

Deno.test({
  name: "an approval question that expires closes its dialog and says the command did not run",
  ignore: NO_BROWSER,
  async fn() {
    await using rig = await startUiRig({
      replies: [
        { toolCalls: [{ name: "terminal", arguments: { command: "rm -rv scratch" } }] },
        { text: "Nobody answered." },
      ],
      configExtra: "approvals:\n  mode: ask\n  timeout: 1\n",
    });
    await Deno.mkdir(join(rig.home, "scratch"));
    const { page } = rig;
    await send(page, "clean up");
    // The notice comes only from the open question's approval.expire.
    await page.getByText("The approval question expired unanswered").waitFor();
    assert.equal(await page.getByRole("dialog").count(), 0, "the dialog closed");
    await page.getByText("Nobody answered.").waitFor();
    assert.equal(await exists(join(rig.home, "scratch")), true);
  },
});

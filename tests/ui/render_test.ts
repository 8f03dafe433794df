/**
 * The renderers in a real Chromium, through the Chat page: a streamed answer
 * becomes headings, tables, nested and task lists, quotes, safe links and a
 * code block whose highlighter chunk is fetched only once a block with a
 * language shows; no raw markup shows while the answer streams; text that
 * looks like HTML stays text; a patch's diff folds and unfolds its
 * unchanged lines; the phone layout does not scroll sideways.
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import type { Page } from "playwright-core";
import { tempDir } from "../_helpers.ts";
import { NO_BROWSER, PHONE, startUiRig, type UiRig } from "./_browser.ts";

const ANSWER = [
  "## Release notes",
  "",
  "Herald renders **Markdown** with `inline code`, a [safe link](https://example.com/docs) " +
  "and an [unsafe one](javascript:alert(1)).",
  "",
  "| Feature | Status |",
  "| :-- | --: |",
  "| Tables | done |",
  "| Lists | 2 levels |",
  "",
  "- first",
  "  - nested",
  "- [x] task done",
  "- [ ] task open",
  "",
  "> A quote",
  "",
  "```ts",
  "const answer: number = 42; // the answer",
  "function greet(name: string) {",
  "  return `hi ${name}`;",
  "}",
  "```",
  "",
  '<img src=x onerror="window.__xss=1"> stays text.',
].join("\n");

/** Raw markers that must never show in a rendered answer, even mid-stream. */
const RAW_MARKUP = ["```", "**", "| :--", "](https"];

/** Types `text` in the message box and sends it. */
async function send(page: Page, text: string): Promise<void> {
  await page.getByRole("textbox", { name: "Message" }).fill(text);
  await page.getByRole("button", { name: "Send" }).click();
}

/** Records every text an answer's Markdown showed (each DOM change), in `window.__shown`. */
async function watchAnswers(page: Page): Promise<void> {
  await page.evaluate(() => {
    const shown: string[] = [];
    (window as unknown as { __shown: string[] }).__shown = shown;
    new MutationObserver(() => {
      for (const md of document.querySelectorAll(".chat-row-assistant .md")) {
        shown.push(md.textContent ?? "");
      }
    }).observe(document.body, { subtree: true, childList: true, characterData: true });
  });
}

/** Opens the chat, sends a question and waits for the answer's code to be highlighted. */
async function askForTheAnswer(rig: UiRig, requests: string[]): Promise<void> {
  await rig.open("/chat");
  const { page } = rig;
  await page.getByRole("textbox", { name: "Message" }).waitFor();
  assert.ok(
    !requests.some((url) => /\/assets\/highlight-/.test(url)),
    `the highlighter is not part of the initial load: ${requests.join(", ")}`,
  );
  await watchAnswers(page);
  await send(page, "what changed?");
  await page.locator(".chat-row-assistant code[data-highlighted]").waitFor();
  await page.getByRole("button", { name: "Send" }).waitFor();
}

Deno.test({
  name:
    "a streamed answer renders as Markdown with a table, lists, safe links and lazily highlighted code",
  ignore: NO_BROWSER,
  async fn() {
    await using rig = await startUiRig({
      replies: [{ text: ANSWER, chunkSize: 3, delayMs: 2 }],
      open: null,
    });
    const { page } = rig;
    const requests: string[] = [];
    page.on("request", (request) => requests.push(request.url()));
    await page.context().grantPermissions(["clipboard-read", "clipboard-write"], {
      origin: rig.url.origin,
    });
    await askForTheAnswer(rig, requests);
    assert.ok(
      requests.some((url) => /\/assets\/highlight-[\w-]+\.js$/.test(url)),
      "the highlighter chunk is fetched once a code block with a language shows",
    );
    const answer = page.locator(".chat-row-assistant .md");

    await answer.getByRole("heading", { name: "Release notes", level: 2 }).waitFor();
    assert.equal(await answer.locator("strong").first().textContent(), "Markdown");
    assert.equal(await answer.locator("p code").first().textContent(), "inline code");

    const table = answer.getByRole("table");
    assert.deepEqual(await table.getByRole("columnheader").allTextContents(), [
      "Feature",
      "Status",
    ]);
    assert.deepEqual(await table.getByRole("cell").allTextContents(), [
      "Tables",
      "done",
      "Lists",
      "2 levels",
    ]);
    assert.equal(
      await table.getByRole("cell", { name: "done" }).evaluate((cell) =>
        getComputedStyle(cell).textAlign
      ),
      "right",
    );

    const nested = answer.getByRole("listitem").filter({ hasText: "first" });
    assert.equal(await nested.getByRole("listitem").textContent(), "nested");
    assert.equal(
      await answer.getByRole("checkbox", { name: "Done", exact: true }).isChecked(),
      true,
    );
    assert.equal(await answer.getByRole("checkbox", { name: "Not done" }).isChecked(), false);
    assert.equal(await answer.locator("blockquote").textContent(), "A quote");

    const safe = answer.getByRole("link", { name: "safe link" });
    assert.equal(await safe.getAttribute("href"), "https://example.com/docs");
    assert.equal(await safe.getAttribute("rel"), "noopener noreferrer");
    assert.equal(await safe.getAttribute("target"), "_blank");
    assert.equal(await answer.getByRole("link", { name: "unsafe one" }).count(), 0);
    assert.equal(await answer.getByText("unsafe one").count(), 1, "the unsafe link's text stays");

    const code = answer.locator("pre code");
    assert.equal(
      await code.textContent(),
      "const answer: number = 42; // the answer\nfunction greet(name: string) {\n  return `hi ${name}`;\n}",
    );
    assert.deepEqual(await code.locator(".tok-keyword").allTextContents(), [
      "const",
      "function",
      "return",
    ]);
    assert.deepEqual(await code.locator(".tok-comment").allTextContents(), ["// the answer"]);
    assert.deepEqual(await code.locator(".tok-number").allTextContents(), ["42"]);
    assert.deepEqual(await code.locator(".tok-string").allTextContents(), ["`hi ${name}`"]);

    await answer.getByRole("button", { name: "Copy code" }).click();
    await answer.getByRole("button", { name: "Copy code" }).filter({ hasText: "Copied" }).waitFor();
    assert.equal(
      await page.evaluate(() => navigator.clipboard.readText()),
      await code.textContent(),
    );

    assert.equal(
      await answer.getByText('<img src=x onerror="window.__xss=1"> stays text.').count(),
      1,
    );
    assert.equal(await answer.locator("img, script").count(), 0);
    assert.equal(await page.evaluate(() => "__xss" in window), false);

    const shown = await page.evaluate(() => (window as unknown as { __shown: string[] }).__shown);
    assert.ok(shown.length > 3, `the answer rendered while it streamed (${shown.length} renders)`);
    for (const text of shown) {
      for (const marker of RAW_MARKUP) {
        assert.ok(!text.includes(marker), `raw ${JSON.stringify(marker)} showed: ${text}`);
      }
    }
    await rig.screenshot("render-light");
  },
});

Deno.test({
  name: "the rendered answer follows the dark theme and fits a phone screen",
  ignore: NO_BROWSER,
  async fn() {
    for (const [name, viewport] of [["render-dark", undefined], ["render-phone", PHONE]] as const) {
      await using rig = await startUiRig({
        replies: [{ text: ANSWER }],
        dark: true,
        viewport,
        open: null,
      });
      await askForTheAnswer(rig, []);
      const { page } = rig;
      const colours = await page.locator(".chat-row-assistant pre code").evaluate((code) => ({
        keyword: getComputedStyle(code.querySelector(".tok-keyword")!).color,
        text: getComputedStyle(code).color,
        background: getComputedStyle(code.closest(".codeblock")!).backgroundColor,
      }));
      assert.notEqual(colours.keyword, colours.text, "keywords have their own colour");
      assert.equal(
        colours.background,
        "rgb(38, 38, 35)",
        "the code block takes the dark code background",
      );
      if (viewport) {
        const overflow = await page.evaluate(() => ({
          page: document.documentElement.scrollWidth - document.documentElement.clientWidth,
          main: document.querySelector(".main")!.scrollWidth -
            document.querySelector(".main")!.clientWidth,
        }));
        assert.deepEqual(overflow, { page: 0, main: 0 }, "nothing scrolls the page sideways");
      }
      await rig.screenshot(name);
    }
  },
});

Deno.test({
  name: "a patch shows as a diff whose folded unchanged lines open on demand",
  ignore: NO_BROWSER,
  async fn() {
    const lines = Array.from({ length: 16 }, (_, i) => `line ${i + 1}`);
    const before = lines.join("\n") + "\n";
    const after = lines.map((line, i) => i === 1 ? "LINE 2" : i === 14 ? "LINE 15" : line).join(
      "\n",
    ) + "\n";
    // The file tools never write inside Herald's home: the file lives beside it.
    await using dir = await tempDir();
    const path = join(dir.path, "notes.txt");
    await Deno.writeTextFile(path, before);
    await using rig = await startUiRig({
      replies: [
        {
          toolCalls: [{
            name: "patch",
            arguments: { path, old_string: before, new_string: after },
          }],
        },
        { text: "Both lines are upper case now." },
      ],
      open: null,
    });
    await rig.open("/chat");
    const { page } = rig;
    await send(page, "shout lines 2 and 15");
    // A write outside the working directory asks first.
    await page.getByRole("dialog", { name: "Allow this patch call?" })
      .getByRole("button", { name: "Allow once" }).click();
    await page.getByText("Both lines are upper case now.").waitFor();
    const diff = page.getByRole("figure", { name: `Changes to ${path}` });
    await diff.waitFor();
    assert.equal(await diff.locator(".diff-stat-add").textContent(), "+2");
    assert.equal(await diff.locator(".diff-stat-del").textContent(), "−2");
    assert.deepEqual(await diff.locator(".diff-del .diff-text").allTextContents(), [
      "line 2",
      "line 15",
    ]);
    assert.deepEqual(await diff.locator(".diff-add .diff-text").allTextContents(), [
      "LINE 2",
      "LINE 15",
    ]);
    await rig.screenshot("render-diff");
    const shownBefore = await diff.locator(".diff-ctx").count();
    const unfold = diff.getByRole("button", { name: "⋯ Show 6 unchanged lines" });
    await unfold.click();
    await unfold.waitFor({ state: "detached" });
    assert.equal(await diff.locator(".diff-ctx").count(), shownBefore + 6);
    assert.equal(
      await diff.locator(".diff-ctx .diff-text").filter({ hasText: /^line 8$/ }).count(),
      1,
    );
    assert.equal(await Deno.readTextFile(path), after);
    await page.setViewportSize(PHONE);
    await rig.screenshot("render-diff-phone");
  },
});

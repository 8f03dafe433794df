/**
 * The Terminal page in a real Chromium against a real `herald dashboard
 * --shell`: xterm.js loads on demand, takes the keyboard, echoes what is
 * typed through the real pty, tells the server its new size when the window
 * changes (the shell's `stty size` follows), and offers a restart when the
 * program ends.
 */

import assert from "node:assert/strict";
import type { Page } from "playwright-core";
import { NO_BROWSER, PHONE, startUiRig } from "./_browser.ts";

/** The terminal's visible rows as text. */
async function screenText(page: Page): Promise<string> {
  return (await page.locator(".xterm-rows").innerText()).replace(/\u00a0/g, " ");
}

/** Waits until the terminal shows a line matching `pattern` and returns the match. */
async function waitForLine(page: Page, pattern: RegExp): Promise<RegExpMatchArray> {
  await page.waitForFunction(
    (source) => {
      const rows = document.querySelector(".xterm-rows");
      const text = (rows as HTMLElement | null)?.innerText.replace(/\u00a0/g, " ") ?? "";
      return new RegExp(source, "m").test(text);
    },
    pattern.source,
  );
  return new RegExp(pattern.source, "m").exec(await screenText(page))!;
}

/** The size the page last told the server, from the terminal element. */
async function sentSize(page: Page): Promise<{ cols: number; rows: number }> {
  const screen = page.getByRole("group", { name: "Terminal" });
  return {
    cols: Number(await screen.getAttribute("data-cols")),
    rows: Number(await screen.getAttribute("data-rows")),
  };
}

Deno.test({
  name: "the terminal echoes what is typed and follows the window's size",
  ignore: NO_BROWSER,
  async fn() {
    await using rig = await startUiRig({ dashboardArgs: ["--shell"], open: "/status" });
    const page = rig.page;
    const scripts: string[] = [];
    page.on("request", (request) => {
      if (request.resourceType() === "script") scripts.push(request.url());
    });
    await page.getByRole("navigation", { name: "Pages" }).getByRole("link", { name: "Terminal" })
      .click();
    await page.getByRole("status").filter({ hasText: "Connected" }).waitFor();
    assert.ok(
      scripts.some((url) => /\/assets\/.+\.js$/.test(url)),
      `xterm.js loads when the page opens, not with the app (${scripts.length} scripts)`,
    );
    assert.equal(
      await page.evaluate(() =>
        document.activeElement?.classList.contains("xterm-helper-textarea")
      ),
      true,
      "the keyboard focus is in the terminal",
    );

    await page.keyboard.type("echo hi-$((6*7))");
    await page.keyboard.press("Enter");
    await waitForLine(page, /^hi-42\s*$/);

    await page.keyboard.type("stty size");
    await page.keyboard.press("Enter");
    const before = await sentSize(page);
    const first = await waitForLine(page, new RegExp(`^${before.rows} ${before.cols}\\s*$`));
    assert.ok(first, "stty size is the size the page sent");
    await rig.screenshot("terminal");

    await page.setViewportSize(PHONE);
    await page.waitForFunction(
      (cols) =>
        Number(document.querySelector(".terminal-screen")?.getAttribute("data-cols")) < cols,
      before.cols,
    );
    const after = await sentSize(page);
    assert.notDeepEqual(after, before);
    await page.keyboard.type("clear; stty size");
    await page.keyboard.press("Enter");
    await waitForLine(page, new RegExp(`^${after.rows} ${after.cols}\\s*$`));
    await rig.screenshot("terminal-phone");
  },
});

Deno.test({
  name: "when the shell exits the page says the terminal ended and Restart starts a new one",
  ignore: NO_BROWSER,
  async fn() {
    await using rig = await startUiRig({
      dashboardArgs: ["--shell"],
      open: "/terminal",
      dark: true,
    });
    const page = rig.page;
    await page.getByRole("status").filter({ hasText: "Connected" }).waitFor();
    await page.keyboard.type("exit 3");
    await page.keyboard.press("Enter");
    const ended = page.getByRole("alert").filter({ hasText: "Terminal ended" });
    await ended.waitFor();
    assert.match(await ended.innerText(), /exited with code 3/);
    await rig.screenshot("terminal-ended-dark");

    const restart = page.getByRole("button", { name: "Restart" });
    assert.equal(await restart.evaluate((button) => button === document.activeElement), true);
    await page.keyboard.press("Enter");
    await page.getByRole("status").filter({ hasText: "Connected" }).waitFor();
    assert.equal(await ended.count(), 0);
    await page.keyboard.type("echo again-$((2+3))");
    await page.keyboard.press("Enter");
    await waitForLine(page, /^again-5\s*$/);
  },
});

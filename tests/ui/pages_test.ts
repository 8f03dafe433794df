/**
 * Every page of the web app opens with no console error at 1280x800 and on a
 * 390x844 phone, in the light and the dark theme, and is written as a
 * screenshot (.artifacts/ui/page-<name>-<size>-<theme>.png). On the phone the
 * navigation folds behind the menu button, opens from the keyboard, takes
 * the focus, and closes with Escape or a tap beside it; a chosen page gets
 * the focus.
 */

import assert from "node:assert/strict";
import type { Page } from "playwright-core";
import { DESKTOP, NO_BROWSER, PHONE, startUiRig } from "./_browser.ts";

const PAGES: [string, string][] = [
  ["chat", "/chat"],
  ["sessions", "/sessions"],
  ["skills", "/skills"],
  ["profiles", "/profiles"],
  ["kanban", "/kanban"],
  ["automations", "/automations"],
  ["settings", "/settings"],
  ["terminal", "/terminal"],
  ["status", "/status"],
];

/** Waits until the page is what a person would see: the terminal drawn, the data loaded. */
async function settled(page: Page, name: string): Promise<void> {
  if (name === "terminal") {
    // The chat TUI runs in the page's terminal: connected, and its first screen drawn.
    await page.getByRole("status").filter({ hasText: "Connected" }).waitFor();
    await page.waitForFunction(() =>
      ((document.querySelector(".xterm-rows") as HTMLElement | null)?.innerText ?? "").trim() !==
        ""
    );
  }
  // Let the page's first data load settle before the picture.
  await page.waitForLoadState("networkidle");
}

/** The label (or id) of the element that has the keyboard focus. */
function focused(page: Page): Promise<string> {
  return page.evaluate(() => {
    const active = document.activeElement;
    return active?.getAttribute("aria-label") || active?.id || active?.textContent || "";
  });
}

for (const [size, viewport] of [["desktop", DESKTOP], ["phone", PHONE]] as const) {
  for (const dark of [false, true]) {
    const theme = dark ? "dark" : "light";
    Deno.test({
      name: `every page opens without a console error (${size}, ${theme})`,
      ignore: NO_BROWSER,
      async fn() {
        await using rig = await startUiRig({ viewport, dark });
        for (const [name, path] of PAGES) {
          await rig.open(path);
          await rig.page.locator("main h1").first().waitFor({ state: "attached" });
          await settled(rig.page, name);
          await rig.screenshot(`page-${name}-${size}-${theme}`);
          const width = await rig.page.evaluate(() => document.documentElement.scrollWidth);
          assert.ok(
            width <= viewport.width,
            `${path} is ${width}px wide on a ${viewport.width}px screen`,
          );
        }
      },
    });
  }
}

Deno.test({
  name: "on a phone the navigation opens from the menu button and from the keyboard",
  ignore: NO_BROWSER,
  async fn() {
    await using rig = await startUiRig({ viewport: PHONE });
    const nav = rig.page.getByRole("navigation", { name: "Pages" });
    assert.equal(await nav.isVisible(), false, "folded away at first");
    const menu = rig.page.getByRole("button", { name: "Menu" });
    await menu.focus();
    await rig.page.keyboard.press("Enter");
    await nav.waitFor({ state: "visible" });
    await rig.screenshot("nav-phone-open");
    await nav.getByRole("link", { name: "Status" }).click();
    await rig.page.getByRole("heading", { level: 1 }).first().waitFor();
    assert.match(new URL(rig.page.url()).pathname, /^\/status$/);
    assert.equal(await nav.isVisible(), false, "folds again after choosing a page");
  },
});

Deno.test({
  name:
    "on a phone the open navigation takes the focus, Escape or a tap beside it closes it, and a chosen page gets the focus",
  ignore: NO_BROWSER,
  async fn() {
    await using rig = await startUiRig({ viewport: PHONE });
    const page = rig.page;
    const nav = page.getByRole("navigation", { name: "Pages" });
    const menu = page.getByRole("button", { name: "Menu" });

    await menu.click();
    await nav.waitFor({ state: "visible" });
    assert.equal(await focused(page), "Chat", "the current page's link has the focus");
    assert.equal(await page.locator("main").evaluate((main) => main.inert), true, "page is inert");
    await page.keyboard.press("Escape");
    await nav.waitFor({ state: "hidden" });
    assert.equal(await focused(page), "Menu", "Escape gives the focus back to the menu button");
    assert.equal(await menu.getAttribute("aria-expanded"), "false");

    // A tap on the dimmed page beside the navigation closes it too.
    await menu.click();
    await nav.waitFor({ state: "visible" });
    await rig.screenshot("nav-phone-scrim");
    await page.mouse.click(PHONE.width - 40, PHONE.height / 2);
    await nav.waitFor({ state: "hidden" });
    assert.equal(await focused(page), "Menu");
    assert.match(new URL(page.url()).pathname, /^\/chat$/, "the tap did not reach the page");

    // From the keyboard: open, move to Sessions, choose it; the new page has the focus.
    await page.keyboard.press("Enter");
    await nav.waitFor({ state: "visible" });
    await page.keyboard.press("Tab");
    assert.equal(await focused(page), "Sessions");
    await page.keyboard.press("Enter");
    await page.getByRole("heading", { name: "Sessions", level: 1 }).waitFor();
    await nav.waitFor({ state: "hidden" });
    await page.waitForFunction(() => document.activeElement?.id === "main");
  },
});

Deno.test({
  name: "a link inside the app moves the focus to the new page",
  ignore: NO_BROWSER,
  async fn() {
    await using rig = await startUiRig({ open: "/status" });
    const page = rig.page;
    const link = page.getByRole("navigation", { name: "Pages" }).getByRole("link", {
      name: "Skills",
    });
    await link.focus();
    await page.keyboard.press("Enter");
    await page.getByRole("heading", { name: "Skills", level: 1 }).waitFor();
    assert.equal(await focused(page), "main");
    // Opening "/" lands on the chat (a redirect, not a new history entry).
    await rig.open("/");
    await page.waitForURL((url) => url.pathname === "/chat");
  },
});

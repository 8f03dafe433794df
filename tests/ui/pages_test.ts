/**
 * Every page of the web app opens with no console error at 1280x800 and on a
 * 390x844 phone, in the light and the dark theme, and is written as a
 * screenshot (.artifacts/ui/page-<name>-<size>-<theme>.png). On the phone the
 * navigation folds behind the menu button and opens from the keyboard.
 */

import assert from "node:assert/strict";
import { DESKTOP, NO_BROWSER, PHONE, startUiRig } from "./_browser.ts";

const PAGES: [string, string][] = [
  ["chat", "/chat"],
  ["sessions", "/sessions"],
  ["skills", "/skills"],
  ["profiles", "/profiles"],
  ["kanban", "/kanban"],
  ["automations", "/automations"],
  ["settings", "/settings"],
  ["status", "/status"],
];

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
          // Let the page's first data load settle before the picture.
          await rig.page.waitForLoadState("networkidle");
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

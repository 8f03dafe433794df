/**
 * The Status page in a real Chromium against a real `herald dashboard`:
 * version, a ticking uptime, home, profiles, the gateway (stopped: it does
 * not run yet), the selected profile's model, and a background action with
 * its status and output.
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { NO_BROWSER, PHONE, startUiRig, type UiRig } from "./_browser.ts";

/** How many of the four cards stand on each row of the grid, top to bottom. */
async function cardRows(rig: UiRig): Promise<number[]> {
  const tops = await rig.page.locator(".status-grid > .status-card").evaluateAll((cards) =>
    cards.map((card) => Math.round(card.getBoundingClientRect().top))
  );
  const rows = new Map<number, number>();
  for (const top of tops) rows.set(top, (rows.get(top) ?? 0) + 1);
  return [...rows].sort(([a], [b]) => a - b).map(([, count]) => count);
}

Deno.test({
  name: "the status page shows the dashboard, the gateway, the model and the actions",
  ignore: NO_BROWSER,
  async fn() {
    await using rig = await startUiRig({
      profiles: ["work"],
      open: "/status",
      env: { HERALD_GATEWAY_RESTART_COMMAND: '["echo","gateway restarted"]' },
    });
    const page = rig.page;
    await Deno.writeTextFile(
      join(rig.home, "profiles", "work", "config.yaml"),
      `model:\n  provider: custom\n  base_url: ${rig.model.openaiBaseUrl}\n  default: work-model\n`,
    );
    const herald = page.getByRole("region", { name: "Herald" });
    await herald.getByText(rig.home).waitFor();
    const status = await rig.api<{ version: string }>("GET", "/api/status");
    assert.match(await herald.innerText(), new RegExp(`Version\\s+${status.version}`));

    const uptime = page.getByTestId("uptime");
    const first = await uptime.innerText();
    await page.waitForFunction(
      (shown) => document.querySelector("[data-testid=uptime]")?.textContent !== shown,
      first,
    );

    const gateway = page.getByRole("region", { name: "Gateway" });
    assert.match(await gateway.innerText(), /Stopped/);
    const profiles = page.getByRole("list", { name: "Profiles served" });
    const names = await profiles.getByRole("listitem").allInnerTexts();
    assert.deepEqual(names.map((text) => text.split(/\s/)[0]), ["default", "work"]);
    assert.match(await profiles.locator("[aria-current]").innerText(), /^default\s*selected$/);
    const model = page.getByRole("region", { name: "Model of default" });
    assert.equal(await model.getByTestId("model-name").innerText(), "test-model");
    assert.match(await model.innerText(), /Ready/);

    await rig.api("POST", "/api/gateway/restart");
    await page.getByRole("button", { name: "Refresh" }).click();
    const actions = page.getByRole("list", { name: "Actions" });
    await actions.getByText("succeeded").waitFor();
    assert.match(await actions.innerText(), /Gateway restart/);
    await actions.getByText(/^Output/).click();
    await actions.getByText("gateway restarted").waitFor();
    await rig.screenshot("status");
    assert.deepEqual(await cardRows(rig), [2, 2], "no card stands alone on its row");

    await page.getByRole("combobox", { name: "Profile" }).selectOption("work");
    await page.getByRole("region", { name: "Model of work" }).getByText("work-model").waitFor();
    assert.match(await profiles.locator("[aria-current]").innerText(), /^work\s*selected$/);

    await page.setViewportSize(PHONE);
    await page.emulateMedia({ colorScheme: "dark" });
    assert.deepEqual(await cardRows(rig), [1, 1, 1, 1], "the cards stack on a phone");
    const width = await page.evaluate(() => document.documentElement.scrollWidth);
    assert.ok(width <= PHONE.width, `the page is ${width}px wide on a phone`);
    await rig.screenshot("status-phone-dark");
  },
});

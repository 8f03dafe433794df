/**
 * The app shell in a real Chromium: it loads with the embedded token, a
 * wrong token shows the message to reopen the printed URL, not a blank page.
 */

import assert from "node:assert/strict";
import { NO_BROWSER, RIG_TOKEN, startUiRig } from "./_browser.ts";

Deno.test({
  name: "the app loads on loopback with the embedded token and shows the navigation",
  ignore: NO_BROWSER,
  async fn() {
    await using rig = await startUiRig();
    await rig.page.getByRole("navigation", { name: "Pages" }).waitFor();
    for (
      const label of [
        "Chat",
        "Sessions",
        "Skills",
        "Profiles",
        "Kanban",
        "Automations",
        "Terminal",
        "Settings",
        "Status",
      ]
    ) {
      assert.equal(
        await rig.page.getByRole("navigation").getByRole("link", { name: new RegExp(label) })
          .count(),
        1,
        label,
      );
    }
    await rig.screenshot("shell");
  },
});

Deno.test({
  name: "on a public bind the page takes the token from #token= and drops it from the address bar",
  ignore: NO_BROWSER,
  async fn() {
    await using rig = await startUiRig({
      dashboardArgs: ["--host", "0.0.0.0", "--insecure"],
      open: null,
    });
    await rig.open(`/sessions#token=${RIG_TOKEN}`);
    await rig.page.getByRole("heading", { name: "Sessions" }).waitFor();
    assert.equal(new URL(rig.page.url()).hash, "", "the token left the address bar");
    assert.equal(await rig.page.getByText("session has ended").count(), 0);
    // A reload keeps working: the tab remembers the token.
    await rig.page.reload();
    await rig.page.getByRole("heading", { name: "Sessions" }).waitFor();
    assert.equal(await rig.page.getByText("session has ended").count(), 0);
  },
});

Deno.test({
  name: "a wrong token shows the message to reopen the printed URL, never a blank page",
  ignore: NO_BROWSER,
  async fn() {
    await using rig = await startUiRig({
      dashboardArgs: ["--host", "0.0.0.0", "--insecure"],
      open: null,
      // The refused calls are logged by the browser itself ("401 Unauthorized").
      allowConsole: [/status of 401/],
    });
    await rig.open("/sessions#token=not-the-token");
    const alert = rig.page.getByRole("alert");
    await alert.getByRole("heading", { name: "This page's session has ended" }).waitFor();
    assert.match(await alert.innerText(), /Reopen the URL that herald dashboard printed/);
    await rig.screenshot("token-refused");
  },
});

Deno.test({
  name: "a page whose dashboard restarted with a new token shows the message on its next call",
  ignore: NO_BROWSER,
  async fn() {
    await using rig = await startUiRig({ open: null, allowConsole: [/status of 401/] });
    // The page as a dashboard started earlier served it: with that run's token.
    await rig.page.route(new URL("/sessions", rig.url).href, async (route) => {
      const response = await route.fetch();
      const html = (await response.text()).replace(RIG_TOKEN, "token-of-an-earlier-run");
      await route.fulfill({
        response,
        body: html,
        headers: { ...response.headers(), "content-encoding": "" },
      });
    });
    await rig.open("/sessions");
    await rig.page.getByRole("heading", { name: "This page's session has ended" }).waitFor();
  },
});

Deno.test({
  name: "a chat whose dashboard restarted with a new token shows the token screen on the next send",
  ignore: NO_BROWSER,
  async fn() {
    await using rig = await startUiRig({
      // The browser logs the refused handshake and the REST check's 401 itself.
      allowConsole: [/status of 401/, /WebSocket connection to .* failed/],
    });
    const page = rig.page;
    // The chat's session is open over the live connection (no REST call is needed again).
    await page.getByRole("main").getByText("custom:test-model").waitFor();
    await page.getByRole("img", { name: "Connected" }).waitFor();

    // `herald dashboard` stopped and started again on the same port: a new token.
    await rig.restartDashboard("token-of-the-next-run");
    await page.getByRole("img", { name: "Not connected" }).waitFor();
    assert.equal(await page.getByText("session has ended").count(), 0);

    // Only the socket meets the new dashboard: it refuses the upgrade (HTTP 401).
    const input = page.getByRole("textbox", { name: "Message" });
    await input.fill("Are you still there?");
    await input.press("Enter");
    await page.getByRole("alert").getByRole("heading", { name: "This page's session has ended" })
      .waitFor();
    await rig.screenshot("token-refused-after-restart");
  },
});

Deno.test({
  name: "a page whose code is gone after an update says to reload, and Reload brings it back",
  ignore: NO_BROWSER,
  async fn() {
    await using rig = await startUiRig({
      // The browser logs the missing chunk itself.
      allowConsole: [/status of 404/, /Failed to fetch dynamically imported module/],
    });
    const page = rig.page;
    await page.getByRole("navigation", { name: "Pages" }).waitFor();
    // The tab was opened before an update: the Settings page's chunk has another name now.
    const chunk = /\/assets\/SettingsPage-[^/]+\.js$/;
    await page.route(chunk, (route) => route.fulfill({ status: 404, body: "No such asset" }));
    await page.getByRole("navigation").getByRole("link", { name: "Settings" }).click();
    const alert = page.getByRole("main").getByRole("alert");
    await alert.getByText("This page could not be loaded").waitFor();
    assert.match(await alert.innerText(), /reload the page/);
    await rig.screenshot("page-chunk-missing");

    await page.unroute(chunk);
    await alert.getByRole("button", { name: "Reload" }).click();
    await page.getByRole("heading", { name: "Settings" }).waitFor();
  },
});

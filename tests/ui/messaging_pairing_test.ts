/**
 * Settings › Messaging in a real Chromium against a real `herald dashboard`:
 * a pairing request written through the profile's pairing store (as the
 * gateway writes it) is approved in the page, moves to the paired people
 * and is revoked after a confirmation; the Test button asks a fake Telegram
 * Bot API on 127.0.0.1 who the bot is and shows its username, or why the
 * token was refused. Screenshots go to .artifacts/ui/.
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { openPairingStore } from "../../adapters/channels/pairing_store.ts";
import { FAKE_TELEGRAM_TOKEN, startFakeTelegram } from "../fakes/telegram_api.ts";
import { NO_BROWSER, PHONE, startUiRig } from "./_browser.ts";

/** Adds `lines` to the `.env` of the profile at `home` (the dashboard reads it on every call). */
async function addEnv(home: string, lines: Record<string, string>): Promise<void> {
  const text = Object.entries(lines).map(([name, value]) => `${name}=${value}\n`).join("");
  await Deno.writeTextFile(join(home, ".env"), text, { append: true, mode: 0o600 });
}

Deno.test({
  name:
    "a pairing request is approved in the page, shows as paired, and is revoked after a confirmation",
  ignore: NO_BROWSER,
  async fn() {
    await using rig = await startUiRig({ open: null });
    const store = openPairingStore(rig.home);
    const request = await store.request(
      { platform: "telegram", userId: "424242", userName: "Ann", chatId: "424242" },
      Date.now(),
    );
    assert.ok(request);
    await rig.open("/settings/messaging");
    const page = rig.page;

    const pending = page.getByRole("list", { name: "Pending pairing requests" });
    const row = pending.getByRole("listitem", { name: "Telegram Ann (424242)" });
    await row.waitFor();
    assert.match(await row.innerText(), new RegExp(request.code));
    assert.match(await row.innerText(), /asked (just now|\d+ min ago) · expires in \d+ min/);
    await page.getByRole("heading", { name: "Pairing" }).scrollIntoViewIfNeeded();
    await rig.screenshot("messaging-pairing-pending");

    await row.getByRole("button", { name: "Approve Ann (424242) on Telegram" }).click();
    const paired = page.getByRole("list", { name: "Paired people" })
      .getByRole("listitem", { name: "Telegram Ann (424242)" });
    await paired.waitFor();
    await page.getByText("No pending pairing requests.").waitFor();
    assert.equal(await store.isPaired("telegram", "424242"), true);
    assert.match(await paired.innerText(), /paired just now/);
    await rig.screenshot("messaging-pairing-approved");

    // Revoke asks first; Cancel keeps the person paired.
    const revoke = paired.getByRole("button", { name: "Revoke Ann (424242) on Telegram" });
    await revoke.click();
    const dialog = page.getByRole("dialog", { name: "Revoke Ann (424242)?" });
    await dialog.waitFor();
    await rig.screenshot("messaging-pairing-revoke-confirm");
    await dialog.getByRole("button", { name: "Cancel" }).click();
    await dialog.waitFor({ state: "detached" });
    assert.equal(await store.isPaired("telegram", "424242"), true, "Cancel revokes nothing");

    await revoke.click();
    await dialog.getByRole("button", { name: "Revoke", exact: true }).click();
    await page.getByText("Nobody is paired yet.").waitFor();
    assert.equal(await store.isPaired("telegram", "424242"), false);
    const listed = await rig.api<{ pending: unknown[]; approved: unknown[] }>(
      "GET",
      "/api/pairing",
    );
    assert.deepEqual([listed.pending, listed.approved], [[], []]);

    // The panel on a phone: a new request, laid out to fit the screen.
    await store.request(
      { platform: "line", userId: "U0123456789abcdef", chatId: "C1" },
      Date.now(),
    );
    await page.setViewportSize(PHONE);
    await page.getByRole("button", { name: "Refresh pairing requests" }).click();
    const line = pending.getByRole("listitem", { name: "LINE U0123456789abcdef" });
    await line.waitFor();
    await line.scrollIntoViewIfNeeded();
    // The toasts of the approval and the revocation go after a few seconds; the row is below them.
    await page.waitForFunction(() => document.querySelectorAll(".toast").length === 0);
    const overflow = await page.evaluate(() =>
      document.documentElement.scrollWidth - document.documentElement.clientWidth
    );
    assert.ok(overflow <= 0, `the page is ${overflow}px wider than the phone`);
    await rig.screenshot("messaging-pairing-phone");
  },
});

Deno.test({
  name:
    "the Test button asks the fake Telegram who the bot is and shows its @username, or why it refused",
  ignore: NO_BROWSER,
  async fn() {
    await using telegram = await startFakeTelegram();
    await using rig = await startUiRig({
      open: null,
      env: { TELEGRAM_API_BASE: telegram.baseUrl },
    });
    await addEnv(rig.home, { TELEGRAM_BOT_TOKEN: FAKE_TELEGRAM_TOKEN });
    await rig.open("/settings/messaging");
    const page = rig.page;
    const card = page.getByRole("listitem", { name: "Telegram" });
    await card.getByRole("button", { name: "Test Telegram" }).click();
    const username = `@${telegram.bot().username}`;
    await card.getByText(username).waitFor();
    assert.match(await card.getByRole("status").innerText(), /Reached Telegram: the bot is @/);
    assert.deepEqual(telegram.bot().calls.map((call) => call.method), ["getMe"]);
    await card.scrollIntoViewIfNeeded();
    await rig.screenshot("messaging-test-telegram");

    // A well-formed token Telegram does not know: the error says which variable to check.
    const unknown = "987654321:AAHsomeOtherTokenThatTelegramDoesNotKnow";
    await Deno.writeTextFile(
      join(rig.home, ".env"),
      (await Deno.readTextFile(join(rig.home, ".env"))).replace(FAKE_TELEGRAM_TOKEN, unknown),
    );
    await card.getByRole("button", { name: "Test Telegram" }).click();
    await card.getByText(/Telegram refused the bot token \(401\)/).waitFor();
    assert.match(await card.getByRole("status").innerText(), /TELEGRAM_BOT_TOKEN/);
    const html = await page.content();
    assert.ok(!html.includes(unknown) && !html.includes(FAKE_TELEGRAM_TOKEN), "no token shown");
    await rig.screenshot("messaging-test-telegram-refused");

    // The API server has no bot and no allowlist: its form shows its key and its own settings.
    const server = page.getByRole("listitem", { name: "API server" });
    await server.getByRole("button", { name: "Set up API server" }).click();
    await server.getByLabel("API key").waitFor();
    assert.equal(await server.getByRole("group", { name: "Allowed users" }).count(), 0);
    assert.match(await server.innerText(), /platforms\.api_server\.port/);
    await server.getByRole("button", { name: "Test API server" }).click();
    await server.getByText(/Missing: API key \(API_SERVER_KEY\)/).waitFor();
    await server.scrollIntoViewIfNeeded();
    await rig.screenshot("messaging-api-server");
  },
});

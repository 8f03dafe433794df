/**
 * The Settings page in a real Chromium against a real `herald dashboard`:
 * a form edit persists and keeps config.yaml's comments, a raw YAML parse
 * error is shown at its line and column and writes nothing, a secret stays
 * masked until revealed, an MCP server is added, tested, disabled and
 * removed, the model, messaging and phone layouts work.
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { ConfigParseError } from "../../core/errors.ts";
import { parseConfig } from "../../core/config/mod.ts";
import { REPO_ROOT } from "../_helpers.ts";
import { NO_BROWSER, PHONE, startUiRig, type UiRig } from "./_browser.ts";
import { startFakeTelegram } from "../fakes/telegram_api.ts";

type Json = Record<string, unknown>;

/**
 * Chromium logs every answer with an error status as a console error. The
 * tests that provoke one on purpose (a refused value, a YAML parse error, a
 * stale save) allow exactly those statuses, nothing else.
 */
function expectedStatuses(...statuses: number[]): RegExp[] {
  return [
    new RegExp(
      `^Failed to load resource: the server responded with a status of (${statuses.join("|")})\\b`,
    ),
  ];
}

/**
 * Everywhere `secret` could be read in the page: its text, its markup, the
 * value of any input, text area or select (a typed value is in no markup),
 * and the browser console. Empty when it is nowhere.
 */
async function secretSeen(rig: UiRig, secret: string): Promise<string[]> {
  const inPage = await rig.page.evaluate((secret) => {
    const found: string[] = [];
    if (document.body.innerText.includes(secret)) found.push("the page's text");
    if (document.documentElement.outerHTML.includes(secret)) found.push("the page's markup");
    for (const control of document.querySelectorAll("input, textarea, select")) {
      const value = (control as HTMLInputElement).value;
      if (value.includes(secret)) {
        found.push(
          `the value of ${control.id || control.getAttribute("aria-label") || "a control"}`,
        );
      }
    }
    return found;
  }, secret);
  const logged = rig.consoleMessages.some((message) => message.includes(secret));
  return logged ? [...inPage, "the console"] : inPage;
}

/** The fake stdio MCP server's command line (as tests/server/_routes.ts starts it). */
function fakeMcpCommand(): { command: string; args: string[] } {
  return {
    command: Deno.execPath(),
    args: [
      "run",
      "--quiet",
      "--allow-env",
      "--allow-write",
      join(REPO_ROOT, "tests", "fakes", "mcp_stdio_server.ts"),
    ],
  };
}

Deno.test({
  name: "a config form edit persists across a reload and keeps the comments in config.yaml",
  ignore: NO_BROWSER,
  async fn() {
    await using rig = await startUiRig({ open: null, allowConsole: expectedStatuses(400) });
    const file = join(rig.home, "config.yaml");
    const written = await Deno.readTextFile(file);
    assert.match(written, /^model:/, "configureModel wrote the model section");
    await Deno.writeTextFile(
      file,
      `# my settings\n${written}agent:\n  max_turns: 12 # keep turns short\n# the end\n`,
    );
    await rig.open("/settings/config");
    const page = rig.page;
    const maxTurns = page.getByLabel("Max turns", { exact: true });
    assert.equal(await maxTurns.inputValue(), "12");
    await maxTurns.fill("30");
    await page.getByRole("switch", { name: "Dump requests" }).check();
    await page.getByText("2 changes").waitFor();
    await rig.screenshot("settings-config");
    await page.getByRole("button", { name: "Save", exact: true }).click();
    await page.getByText("No changes").waitFor();

    await page.reload();
    await page.getByLabel("Max turns", { exact: true }).waitFor();
    assert.equal(await page.getByLabel("Max turns", { exact: true }).inputValue(), "30");
    assert.equal(await page.getByRole("switch", { name: "Dump requests" }).isChecked(), true);
    const text = await Deno.readTextFile(file);
    for (const comment of ["# my settings", "# keep turns short", "# the end"]) {
      assert.ok(text.includes(comment), `${comment} kept in:\n${text}`);
    }
    assert.match(text, /max_turns: 30/);
    assert.match(text, /dump_requests: true/);
    assert.match(text, /default: test-model/, "the model section is untouched");

    // A value the schema refuses: the server's message at the field, nothing written.
    const threshold = page.getByLabel("Threshold", { exact: true });
    await threshold.fill("5");
    await page.getByRole("button", { name: "Save", exact: true }).click();
    const error = page.locator("#config-compression-threshold-error");
    await error.waitFor();
    assert.match(await error.innerText(), /compression\.threshold/);
    assert.equal(await threshold.getAttribute("aria-invalid"), "true");
    assert.equal(await Deno.readTextFile(file), text);
  },
});

Deno.test({
  name:
    "a raw YAML edit that does not parse shows the error at its line and column and writes nothing",
  ignore: NO_BROWSER,
  async fn() {
    await using rig = await startUiRig({
      open: "/settings/config",
      allowConsole: expectedStatuses(422, 409),
    });
    const file = join(rig.home, "config.yaml");
    const before = await Deno.readTextFile(file);
    const page = rig.page;
    await page.getByRole("tab", { name: "Raw YAML" }).click();
    const editor = page.getByRole("textbox", { name: "config.yaml" });
    assert.equal(await editor.inputValue(), before);

    const broken = `# edited by hand\n${before}agent:\n  max_turns: 5: 6\n`;
    let expected: ConfigParseError | undefined;
    try {
      parseConfig(broken, file);
    } catch (error) {
      if (error instanceof ConfigParseError) expected = error;
    }
    assert.ok(expected, "the text does not parse");
    const { line, column } = expected;
    assert.ok(line > 1 && column > 1, `a position inside the text (${line}:${column})`);

    await editor.fill(broken);
    await page.getByRole("button", { name: "Save", exact: true }).click();
    const problem = page.locator("#raw-problem");
    await problem.waitFor();
    assert.match(await problem.innerText(), new RegExp(`Line ${line}, column ${column}:`));
    assert.match(await problem.innerText(), /Nothing was written/);
    const marked = page.locator(".settings-raw-line-error");
    assert.equal(await marked.count(), 1);
    assert.equal(await marked.getAttribute("data-line"), String(line));
    assert.equal(await editor.getAttribute("aria-invalid"), "true");
    const caret = await editor.evaluate((element) => {
      const area = element as HTMLTextAreaElement;
      return {
        start: area.selectionStart,
        end: area.selectionEnd,
        focused: document.activeElement === area,
      };
    });
    const lines = broken.split("\n");
    const offset = lines.slice(0, line - 1).join("\n").length + 1 + column - 1;
    assert.deepEqual(caret, { start: offset, end: offset, focused: true });
    assert.equal(await Deno.readTextFile(file), before, "nothing was written");
    await rig.screenshot("settings-raw-error");

    // Someone else saves meanwhile: the page says so and offers to reload.
    await rig.api("PUT", "/api/config", { set: { "agent.max_turns": 44 } });
    await editor.fill(`${before}agent:\n  max_turns: 6\n`);
    await page.getByRole("button", { name: "Save", exact: true }).click();
    await page.getByText(/changed by someone else since you loaded it/).waitFor();
    await page.getByRole("button", { name: "Reload config.yaml" }).click();
    await page.waitForFunction(() =>
      (document.querySelector("textarea") as HTMLTextAreaElement | null)?.value.includes(
        "max_turns: 44",
      )
    );
    assert.match(await Deno.readTextFile(file), /max_turns: 44/);
  },
});

Deno.test({
  name: "a secret is shown masked until Reveal, and Hide masks it again",
  ignore: NO_BROWSER,
  async fn() {
    const value = "demo-secret-value-8842";
    await using rig = await startUiRig({ open: null });
    await rig.api("PUT", "/api/env", { key: "DEMO_SERVICE_TOKEN", value });
    await rig.open("/settings/secrets");
    const page = rig.page;
    await page.getByText("DEMO_SERVICE_TOKEN").waitFor();
    await page.getByLabel("DEMO_SERVICE_TOKEN preview").waitFor();
    assert.deepEqual(await secretSeen(rig, value), [], "the value is nowhere in the page");
    assert.match(await page.getByLabel("DEMO_SERVICE_TOKEN preview").innerText(), /8842$/);
    await rig.screenshot("settings-secrets");

    await page.getByRole("button", { name: "Reveal DEMO_SERVICE_TOKEN" }).click();
    const shown = page.getByLabel("DEMO_SERVICE_TOKEN value");
    await shown.waitFor();
    assert.equal(await shown.innerText(), value);
    const stored = await page.evaluate(() =>
      JSON.stringify({ ...localStorage }) + JSON.stringify({ ...sessionStorage }) + location.href
    );
    assert.ok(!stored.includes(value), "the value is in no storage and not in the URL");

    await page.getByRole("button", { name: "Hide DEMO_SERVICE_TOKEN" }).click();
    await page.getByLabel("DEMO_SERVICE_TOKEN preview").waitFor();
    assert.deepEqual(await secretSeen(rig, value), [], "hidden again");
  },
});

Deno.test({
  name: "an MCP stdio server is added, tested, disabled and removed from the page",
  ignore: NO_BROWSER,
  async fn() {
    await using rig = await startUiRig({ open: "/settings/mcp" });
    const page = rig.page;
    const fake = fakeMcpCommand();
    await page.getByRole("button", { name: "Add a server" }).click();
    const dialog = page.getByRole("dialog", { name: "Add an MCP server" });
    await dialog.getByLabel("Name", { exact: true }).fill("fake");
    await dialog.getByLabel("Command", { exact: true }).fill(fake.command);
    await dialog.getByLabel("Arguments").fill(fake.args.join("\n"));

    // A value named like a secret is typed masked (shown on demand), any other in clear.
    const secret = "ghp_demoToken1234567890";
    await dialog.getByRole("button", { name: "Add a variable" }).click();
    await dialog.getByLabel("Environment, variable 1 name").fill("GITHUB_TOKEN");
    const secretBox = dialog.getByLabel("Environment, variable 1 value");
    await secretBox.fill(secret);
    assert.equal(await secretBox.getAttribute("type"), "password");
    await dialog.getByRole("button", { name: "Add a variable" }).click();
    await dialog.getByLabel("Environment, variable 2 name").fill("LOG_LEVEL");
    const plainBox = dialog.getByLabel("Environment, variable 2 value");
    await plainBox.fill("debug");
    assert.equal(await plainBox.getAttribute("type"), "text");
    await dialog.getByRole("button", { name: "Show the value of GITHUB_TOKEN" }).click();
    assert.equal(await secretBox.getAttribute("type"), "text");
    await dialog.getByRole("button", { name: "Hide the value of GITHUB_TOKEN" }).click();
    assert.equal(await secretBox.getAttribute("type"), "password");
    await rig.screenshot("settings-mcp-add-env");
    await dialog.getByRole("button", { name: "Add", exact: true }).click();
    await dialog.waitFor({ state: "detached" });
    assert.deepEqual(await secretSeen(rig, secret), [], "the secret is nowhere in the page");
    assert.match(
      await Deno.readTextFile(join(rig.home, ".env")),
      new RegExp(`^GITHUB_TOKEN=${secret}$`, "m"),
    );

    const row = page.getByRole("listitem", { name: "fake" });
    await row.waitFor();
    await row.getByRole("button", { name: "Test fake" }).click();
    await row.getByText(/Connected to fake-mcp/).waitFor({ timeout: 30_000 });
    // The tools it lists, under the names the agent's model calls them by.
    await row.getByText("1 tool offered to the agent").waitFor();
    assert.deepEqual(
      await row.getByRole("list", { name: "fake tools" }).getByRole("listitem").allTextContents(),
      ["mcp_fake_echo"],
    );
    await rig.screenshot("settings-mcp");

    await row.getByRole("switch", { name: "Enable fake" }).uncheck();
    await row.getByText("disabled").waitFor();
    // The switch moves at once; the toast says when the server has stored it.
    await page.getByText("fake disabled", { exact: true }).waitFor();
    const listed = await rig.api<{ servers: Json[] }>("GET", "/api/mcp/servers");
    assert.deepEqual(listed.servers.map((server) => [server.name, server.enabled]), [[
      "fake",
      false,
    ]]);
    assert.deepEqual(listed.servers[0].args, fake.args);
    assert.deepEqual(listed.servers[0].env, {
      GITHUB_TOKEN: "${GITHUB_TOKEN}",
      LOG_LEVEL: "debug",
    });

    await row.getByRole("button", { name: "Remove fake" }).click();
    const confirm = page.getByRole("dialog", { name: "Remove fake?" });
    await confirm.getByRole("button", { name: "Remove", exact: true }).click();
    await row.waitFor({ state: "detached" });
    const after = await rig.api<{ servers: Json[] }>("GET", "/api/mcp/servers");
    assert.deepEqual(after.servers, []);
  },
});

Deno.test({
  name: "a refused MCP toggle puts the switch back and a refused removal is told in its dialog",
  ignore: NO_BROWSER,
  async fn() {
    await using rig = await startUiRig({ open: null, allowConsole: expectedStatuses(404) });
    await rig.api("POST", "/api/mcp/servers", { name: "fake", ...fakeMcpCommand() });
    await rig.open("/settings/mcp");
    const page = rig.page;
    const row = page.getByRole("listitem", { name: "fake" });
    const toggle = row.getByRole("switch", { name: "Enable fake" });
    assert.equal(await toggle.isChecked(), true);

    // The server goes away behind the page's back: the change is refused.
    await rig.api("DELETE", "/api/mcp/servers/fake");
    let disabledInFlight: boolean | undefined;
    let checkedInFlight: boolean | undefined;
    await page.route("**/api/mcp/servers/fake/enabled**", async (route) => {
      disabledInFlight = await toggle.isDisabled();
      checkedInFlight = await toggle.isChecked();
      await route.continue();
    });
    await toggle.click();
    const refusal = row.getByRole("alert");
    await refusal.waitFor();
    assert.match(await refusal.innerText(), /fake/);
    assert.equal(disabledInFlight, true, "the switch waits while the change is sent");
    assert.equal(checkedInFlight, false, "it moved at once");
    assert.equal(await toggle.isChecked(), true, "and went back when refused");
    assert.equal(await toggle.isDisabled(), false);

    // Removing it is refused too: the reason is shown in the dialog, which stays open.
    await row.getByRole("button", { name: "Remove fake" }).click();
    const confirm = page.getByRole("dialog", { name: "Remove fake?" });
    await confirm.getByRole("button", { name: "Remove", exact: true }).click();
    const told = confirm.getByRole("alert");
    await told.waitFor();
    assert.match(await told.innerText(), /fake/);
    assert.equal(
      await confirm.getByRole("button", { name: "Remove", exact: true }).isDisabled(),
      false,
      "it can be tried again",
    );
    await rig.screenshot("settings-mcp-refused");
    await page.keyboard.press("Escape");
    await confirm.waitFor({ state: "detached" });
  },
});

Deno.test({
  name: "the model tab lists the providers and saves an auxiliary slot as config keys",
  ignore: NO_BROWSER,
  async fn() {
    await using rig = await startUiRig({ open: "/settings" });
    const page = rig.page;
    await page.waitForURL(/\/settings\/model$/);
    const provider = page.getByLabel("Provider", { exact: true }).first();
    assert.equal(await provider.inputValue(), "custom");
    assert.equal(
      await page.getByLabel("Model", { exact: true }).first().inputValue(),
      "test-model",
    );
    assert.ok((await provider.locator("option").count()) > 3, "choices from /api/model/options");
    await rig.screenshot("settings-model");

    await page.getByRole("button", { name: "Edit profile_describer" }).click();
    await page.locator("#aux-profile_describer-model").fill("cheap-model");
    await page.getByRole("button", { name: "Save profile_describer" }).click();
    await page.getByText("custom / cheap-model").waitFor();
    const slots = await rig.api<{ tasks: { task: string; configured: Json }[] }>(
      "GET",
      "/api/model/auxiliary",
    );
    const slot = slots.tasks.find((entry) => entry.task === "profile_describer")!;
    assert.equal(slot.configured.model, "cheap-model");
    assert.match(
      await Deno.readTextFile(join(rig.home, "config.yaml")),
      /profile_describer:\n\s+model: cheap-model/,
    );
  },
});

Deno.test({
  name: "a messaging platform is set up with its token masked and checked",
  ignore: NO_BROWSER,
  async fn() {
    const token = "123456789:AAbbCCddEEffGGhhIIjjKKllMMnnOOppQQr";
    await using telegram = await startFakeTelegram({
      bots: [{ token, username: "herald_settings_bot" }],
    });
    await using rig = await startUiRig({
      open: "/settings/messaging",
      env: { TELEGRAM_API_BASE: telegram.baseUrl },
    });
    const page = rig.page;
    const card = page.getByRole("listitem", { name: "Telegram" });
    await card.getByRole("button", { name: "Set up Telegram" }).click();
    const input = card.getByLabel("Bot token");
    assert.equal(await input.getAttribute("type"), "password");
    await input.fill(token);
    // The check below can fail: a typed value is found in the box until the form closes.
    assert.deepEqual(await secretSeen(rig, token), [
      "the value of platform-telegram-TELEGRAM_BOT_TOKEN",
    ]);
    await card.getByRole("switch", { name: "Enable Telegram" }).check();
    await card.getByRole("button", { name: "Save Telegram" }).click();
    await card.getByText("enabled", { exact: true }).waitFor();
    await card.getByRole("button", { name: "Test Telegram" }).click();
    await card.getByText("@herald_settings_bot").waitFor();
    assert.deepEqual(await secretSeen(rig, token), [], "the token is nowhere in the page");
    assert.match(await Deno.readTextFile(join(rig.home, ".env")), /^TELEGRAM_BOT_TOKEN=/m);
    await rig.screenshot("settings-messaging");
  },
});

Deno.test({
  name: "on a phone the sections are a select and the page fits the screen",
  ignore: NO_BROWSER,
  async fn() {
    await using rig = await startUiRig({ viewport: PHONE, open: "/settings/config" });
    const page = rig.page;
    const select = page.getByRole("combobox", { name: "Settings section" });
    await select.waitFor();
    assert.equal(
      await page.getByRole("navigation", { name: "Settings sections" }).isVisible(),
      false,
    );
    await page.getByLabel("Max turns", { exact: true }).waitFor();
    const overflow = await page.evaluate(() =>
      document.documentElement.scrollWidth > document.documentElement.clientWidth
    );
    assert.equal(overflow, false, "nothing is wider than the screen");
    await rig.screenshot("settings-phone");
    await select.selectOption("secrets");
    await page.waitForURL(/\/settings\/secrets/);
    await page.getByRole("button", { name: "Add a secret" }).waitFor();

    // The MCP form's environment rows fit too.
    await select.selectOption("mcp");
    await page.getByRole("button", { name: "Add a server" }).click();
    const dialog = page.getByRole("dialog", { name: "Add an MCP server" });
    await dialog.getByRole("button", { name: "Add a variable" }).click();
    await dialog.getByLabel("Environment, variable 1 name").fill("GITHUB_TOKEN");
    await dialog.getByLabel("Environment, variable 1 value").fill("ghp_phone");
    const dialogOverflow = await dialog.evaluate((element) =>
      element.scrollWidth > element.clientWidth
    );
    assert.equal(dialogOverflow, false, "the form is no wider than its dialog");
    await rig.screenshot("settings-mcp-add-phone");
  },
});

Deno.test({
  name: "the settings sections follow the dark theme",
  ignore: NO_BROWSER,
  async fn() {
    await using rig = await startUiRig({ dark: true, open: "/settings/config" });
    await rig.page.getByLabel("Max turns", { exact: true }).waitFor();
    const background = await rig.page.evaluate(() =>
      getComputedStyle(document.body).backgroundColor
    );
    assert.equal(background, "rgb(20, 20, 19)");
    await rig.screenshot("settings-config-dark");
    await rig.open("/settings/mcp");
    await rig.page.getByRole("button", { name: "Browse the catalog" }).click();
    await rig.page.getByRole("heading", { name: "Catalog" }).waitFor();
    await rig.page.getByRole("button", { name: /^Install / }).first().waitFor();
    await rig.screenshot("settings-mcp-catalog-dark");
    await rig.page.getByRole("button", { name: "Add a server" }).click();
    await rig.screenshot("settings-mcp-add-dark");
  },
});

/**
 * The Profiles page in a real Chromium against a real `herald dashboard`:
 * create and clone a profile, edit a description, generate one with the
 * auxiliary model (the scripted model server answers) and see it marked
 * generated; the header's switcher lists what was created. And switching
 * the profile in the header changes what every page shows.
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import type { Locator, Page } from "playwright-core";
import { NO_BROWSER, PHONE, startUiRig } from "./_browser.ts";

function card(page: Page, name: string): Locator {
  return page.getByRole("article", { name, exact: true });
}

async function readYaml(home: string, profile: string): Promise<string> {
  return await Deno.readTextFile(join(home, "profiles", profile, "profile.yaml"));
}

Deno.test({
  name: "profiles are created, cloned, described by a person and by the auxiliary model",
  ignore: NO_BROWSER,
  async fn() {
    await using rig = await startUiRig({
      open: "/profiles",
      replies: [{ text: "Drafts research notes. Summarises papers. Extra sentence." }],
      // Chromium logs the 400 that the deliberately bad name below gets.
      allowConsole: [/the server responded with a status of 400/],
    });
    const page = rig.page;
    await card(page, "default").waitFor();

    // A fresh profile, with a description typed in the dialog.
    await page.getByRole("button", { name: "New profile" }).click();
    const dialog = page.getByRole("dialog", { name: "New profile" });
    await dialog.getByLabel("Name").fill("research");
    await dialog.getByLabel("Description (optional)").fill("Reads papers.");
    await dialog.getByRole("button", { name: "Create" }).click();
    await card(page, "research").waitFor();
    assert.equal(await dialog.count(), 0);
    assert.match(await card(page, "research").innerText(), /Reads papers\./);
    assert.equal(await card(page, "research").getByText("generated").count(), 0);

    // A bad name says what to do and keeps the dialog open.
    await page.getByRole("button", { name: "New profile" }).click();
    await dialog.getByLabel("Name").fill("Not a name");
    await dialog.getByRole("button", { name: "Create" }).click();
    await dialog.getByRole("alert").getByText(/Invalid profile name/).waitFor();
    await page.keyboard.press("Escape");
    await dialog.waitFor({ state: "detached" });

    // A clone of default (config only), from the card's Clone button.
    await card(page, "default").getByRole("button", { name: "Clone default" }).click();
    assert.equal(await dialog.getByLabel("Clone from").inputValue(), "default");
    await dialog.getByLabel("Name").fill("writer");
    await dialog.getByLabel(/Config only/).check();
    await rig.screenshot("profiles-clone-dialog");
    await dialog.getByRole("button", { name: "Clone" }).click();
    await card(page, "writer").waitFor();
    const config = await Deno.readTextFile(join(rig.home, "profiles", "writer", "config.yaml"));
    assert.match(config, /default: test-model/, "config.yaml was cloned");

    // The header's switcher lists both at once.
    const switcher = page.getByRole("combobox", { name: "Profile" });
    assert.deepEqual(await switcher.locator("option").allInnerTexts(), [
      "default",
      "research",
      "writer",
    ]);

    // A person's edit.
    await card(page, "research").getByRole("button", { name: "Edit the description of research" })
      .click();
    const box = page.getByRole("textbox", { name: "Description of research" });
    await box.fill("Reads papers and keeps notes.");
    await card(page, "research").getByRole("button", { name: "Save" }).click();
    await card(page, "research").getByText("Reads papers and keeps notes.").waitFor();
    assert.match(await readYaml(rig.home, "research"), /description_auto: false/);

    // A generated description, marked until a person edits it.
    const writer = card(page, "writer");
    await writer.getByRole("button", { name: "Generate a description of writer" }).click();
    await writer.getByText("Drafts research notes. Summarises papers.").waitFor();
    await writer.getByText("generated", { exact: true }).waitFor();
    assert.match(await readYaml(rig.home, "writer"), /description_auto: true/);
    const asked = rig.model.requests.at(-1)!.body as { messages: { content: string }[] };
    assert.match(asked.messages.at(-1)!.content, /Profile name: writer/);
    await rig.screenshot("profiles");

    await writer.getByRole("button", { name: "Edit the description of writer" }).click();
    await page.getByRole("textbox", { name: "Description of writer" }).fill(
      "Writes the newsletter.",
    );
    await page.keyboard.press("Control+Enter");
    await writer.getByText("Writes the newsletter.").waitFor();
    assert.equal(await writer.getByText("generated", { exact: true }).count(), 0);

    // Generating over a person's words asks first; "Keep it" keeps them.
    await writer.getByRole("button", { name: "Generate a description of writer" }).click();
    const confirm = page.getByRole("dialog", { name: "Replace your description?" });
    await confirm.getByRole("button", { name: "Keep it" }).click();
    await confirm.waitFor({ state: "detached" });
    assert.match(await readYaml(rig.home, "writer"), /Writes the newsletter\./);

    // Switching from a card selects the profile in the header.
    await writer.getByRole("button", { name: "Switch to writer" }).click();
    assert.equal(await switcher.inputValue(), "writer");
    await writer.getByText("selected", { exact: true }).waitFor();
    assert.match(page.url(), /[?&]profile=writer/);

    await page.setViewportSize(PHONE);
    await page.emulateMedia({ colorScheme: "dark" });
    await rig.screenshot("profiles-phone-dark");
  },
});

/** A SKILL.md named `name` in `home`. */
async function writeSkill(home: string, name: string): Promise<void> {
  await Deno.mkdir(join(home, "skills", name), { recursive: true });
  await Deno.writeTextFile(
    join(home, "skills", name, "SKILL.md"),
    `---\nname: ${name}\ndescription: The ${name} skill.\n---\n# ${name}\n`,
  );
}

Deno.test({
  name: "switching the profile in the header changes what every page shows",
  ignore: NO_BROWSER,
  async fn() {
    await using rig = await startUiRig({
      profiles: ["work"],
      open: null,
      replies: [{ text: "Noted." }, { text: "Noted." }],
    });
    const work = join(rig.home, "profiles", "work");
    await Deno.writeTextFile(
      join(work, "config.yaml"),
      `model:\n  provider: custom\n  base_url: ${rig.model.openaiBaseUrl}\n  default: work-model\n` +
        "agent:\n  max_turns: 23\n",
    );
    await Deno.writeTextFile(join(rig.home, "config.yaml"), "agent:\n  max_turns: 17\n", {
      append: true,
    });
    await writeSkill(rig.home, "almanac");
    await writeSkill(work, "ledger");
    for (
      const [profile, text, title] of [
        ["default", "Errands for the weekend", "Default errands"],
        ["work", "Plan the quarterly budget", "Budget planning"],
      ]
    ) {
      const ran = await rig.herald(["-p", profile, "chat", "-q", text, "--json"]);
      assert.equal(ran.code, 0, ran.stderr);
      const { session_id } = JSON.parse(ran.stdout) as { session_id: string };
      const renamed = await rig.herald(["-p", profile, "sessions", "rename", session_id, title]);
      assert.equal(renamed.code, 0, renamed.stderr);
    }
    const described = await rig.herald(["profile", "describe", "work", "--text", "Office work."]);
    assert.equal(described.code, 0, described.stderr);

    const page = rig.page;
    await rig.open("/sessions");
    const main = page.getByRole("main");
    const switcher = page.getByRole("combobox", { name: "Profile" });
    const nav = (label: string) =>
      page.getByRole("navigation", { name: "Pages" }).getByRole("link", { name: label }).click();
    /** Shows `mine` (and not `theirs`) under `profile`, once selected in the header. */
    const shows = async (profile: string, mine: Locator, theirs: Locator) => {
      await switcher.selectOption(profile);
      await mine.waitFor();
      assert.equal(await theirs.count(), 0, `${profile} shows the other profile's data`);
    };
    const both = async (forDefault: Locator, forWork: Locator) => {
      await shows("default", forDefault, forWork);
      await shows("work", forWork, forDefault);
    };

    // Sessions.
    await both(main.getByText("Default errands"), main.getByText("Budget planning"));
    // Skills.
    await nav("Skills");
    await both(
      main.getByText("almanac", { exact: true }).first(),
      main.getByText("ledger", { exact: true }).first(),
    );
    // Settings: the model.
    await nav("Settings");
    await switcher.selectOption("default");
    await page.waitForFunction(() =>
      [...document.querySelectorAll("main input")].some((input) =>
        (input as HTMLInputElement).value === "test-model"
      )
    );
    await switcher.selectOption("work");
    await page.waitForFunction(() =>
      [...document.querySelectorAll("main input")].some((input) =>
        (input as HTMLInputElement).value === "work-model"
      ) &&
      ![...document.querySelectorAll("main input")].some((input) =>
        (input as HTMLInputElement).value === "test-model"
      )
    );
    // Settings: the config form, which copies what it loaded into its fields once.
    await page.getByRole("navigation", { name: "Settings sections" }).getByRole("link", {
      name: "Config",
    }).click();
    const maxTurns = page.getByLabel("Max turns", { exact: true });
    /** Waits until the form's Max turns field shows `value` (the form loads after a switch). */
    const turnsShown = (value: string) =>
      page.waitForFunction(
        (want) =>
          (document.getElementById("config-agent-max_turns") as HTMLInputElement | null)
            ?.value === want,
        value,
      );
    await switcher.selectOption("default");
    await turnsShown("17");
    await switcher.selectOption("work");
    await turnsShown("23");
    assert.equal(await maxTurns.inputValue(), "23");
    await switcher.selectOption("default");
    await turnsShown("17");
    // Profiles: the selected card.
    await nav("Profiles");
    await both(
      card(page, "default").getByText("selected", { exact: true }),
      card(page, "work").getByText("selected", { exact: true }),
    );
    assert.match(await card(page, "work").innerText(), /Office work\./);
    // Status: the selected profile's model.
    await nav("Status");
    await both(
      page.getByRole("region", { name: "Model of default" }).getByText("test-model"),
      page.getByRole("region", { name: "Model of work" }).getByText("work-model"),
    );
    // Chat: a new session starts on the selected profile.
    await nav("Chat");
    await both(main.getByText("custom:test-model"), main.getByText("custom:work-model"));
    rig.model.enqueue({ text: "Hello from the work model." });
    const input = page.getByRole("textbox", { name: "Message" });
    await input.fill("Which profile is this?");
    await input.press("Enter");
    await main.getByText("Hello from the work model.").waitFor();
    const body = rig.model.requests.at(-1)!.body as { model: string };
    assert.equal(body.model, "work-model");
    await rig.screenshot("profiles-switch-chat");
  },
});

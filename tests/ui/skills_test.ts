/**
 * The Skills page in a real Chromium against a real dashboard: a SKILL.md
 * is rendered, the list filters, and a bundle is created (refused at the
 * field until it names a skill), listed by `herald bundles list`, edited
 * and deleted.
 */

import assert from "node:assert/strict";
import { dirname, join } from "node:path";
import { NO_BROWSER, PHONE, startUiRig } from "./_browser.ts";

const SKILL_MD = `---
name: lighthouse
description: Keep the lamp lit through the night
category: coast
---
# Lighthouse keeping

Check the lamp every evening.

\`\`\`sh
herald chat -q "is the lamp lit?"
\`\`\`
`;

Deno.test({
  name: "a skill's SKILL.md is rendered, reached from the filtered list",
  ignore: NO_BROWSER,
  async fn() {
    // The missing skill opened at the end is a 404, which Chromium logs as a failed load.
    await using rig = await startUiRig({
      open: null,
      allowConsole: [/the server responded with a status of 404/],
    });
    const file = join(rig.home, "skills", "coast", "lighthouse", "SKILL.md");
    await Deno.mkdir(dirname(file), { recursive: true });
    await Deno.writeTextFile(file, SKILL_MD);

    await rig.open("/skills");
    const grid = rig.page.getByRole("list", { name: "Skills" });
    await grid.getByRole("link", { name: "lighthouse" }).waitFor();
    assert.ok(await grid.locator("li").count() > 1, "the bundled skills are listed too");
    await rig.screenshot("skills");
    await rig.page.getByRole("searchbox", { name: "Filter skills" }).fill("lamp");
    assert.equal(await grid.locator("li").count(), 1);
    await rig.page.getByRole("searchbox", { name: "Filter skills" }).fill("");
    await rig.page.getByRole("group", { name: "Categories" }).getByRole("button", { name: /coast/ })
      .click();
    assert.equal(await grid.locator("li").count(), 1);

    await grid.getByRole("link", { name: "lighthouse" }).click();
    await rig.page.waitForURL((url) => url.pathname === "/skills/lighthouse");
    const body = rig.page.getByRole("article", { name: "SKILL.md" });
    await body.getByRole("heading", { name: "Lighthouse keeping" }).waitFor();
    assert.match(await body.locator("pre").innerText(), /herald chat -q "is the lamp lit\?"/);
    assert.equal(await rig.page.getByText("/lighthouse", { exact: true }).count(), 1);
    await rig.screenshot("skill-view");

    await rig.open("/skills/no-such-skill");
    assert.match(await rig.page.getByRole("alert").innerText(), /Skill "no-such-skill" not found/);
  },
});

Deno.test({
  name: "a bundle is created in the Skills page, listed by the CLI, edited and deleted",
  ignore: NO_BROWSER,
  async fn() {
    // The refusals this test provokes are logged by Chromium as failed loads.
    await using rig = await startUiRig({
      open: null,
      allowConsole: [/the server responded with a status of (400|409)/],
    });
    await rig.open("/skills");
    await rig.page.getByRole("tab", { name: "Bundles" }).click();
    await rig.page.waitForURL((url) => url.searchParams.get("tab") === "bundles");
    await rig.page.getByRole("button", { name: "New bundle" }).click();
    const dialog = rig.page.getByRole("dialog", { name: "New bundle" });
    await dialog.getByRole("textbox", { name: "Name" }).fill("Review kit");
    await dialog.getByRole("textbox", { name: "Description" }).fill("Look before merging");

    // A click in the dialog's own padding, or on the backdrop, keeps the form and what was typed.
    const box = (await dialog.boundingBox())!;
    await rig.page.mouse.click(box.x + 6, box.y + box.height / 2);
    await rig.page.mouse.click(box.x + box.width - 6, box.y + 6);
    await rig.page.mouse.click(Math.max(2, box.x / 2), 4);
    assert.equal(await dialog.isVisible(), true, "the form is still open");
    assert.equal(await dialog.getByRole("textbox", { name: "Name" }).inputValue(), "Review kit");

    // No skill picked: the server's check is shown at the skills.
    await dialog.getByRole("button", { name: "Create bundle" }).click();
    const skillsError = dialog.locator("#bundle-skills-error");
    await skillsError.waitFor();
    assert.match(await skillsError.innerText(), /at least one skill/);
    await rig.screenshot("bundle-form");

    await dialog.getByRole("checkbox", { name: /code-review/ }).check();
    await dialog.getByRole("searchbox", { name: "Find a skill" }).fill("debug");
    await dialog.getByRole("checkbox", { name: /systematic-debugging/ }).check();
    assert.deepEqual(
      await dialog.getByRole("list", { name: "Picked skills" }).locator("li > span")
        .allInnerTexts(),
      ["code-review", "systematic-debugging"],
    );
    await dialog.getByRole("button", { name: "Create bundle" }).click();
    await dialog.waitFor({ state: "detached" });
    const card = rig.page.getByRole("listitem", { name: "Bundle Review kit" });
    await card.waitFor();
    assert.match(await card.innerText(), /\/review-kit/);
    assert.match(await card.innerText(), /Look before merging \(2 skills\)/);
    await rig.screenshot("bundles");

    const listed = await rig.herald(["bundles", "list", "--json"]);
    assert.equal(listed.code, 0, listed.stderr);
    const bundles = JSON.parse(listed.stdout) as { slug: string; skills: string[] }[];
    assert.deepEqual(bundles.map((b) => [b.slug, b.skills]), [
      ["review-kit", ["code-review", "systematic-debugging"]],
    ]);

    // A second bundle of the same name is refused at the name field.
    await rig.page.getByRole("button", { name: "New bundle" }).click();
    await dialog.getByRole("textbox", { name: "Name" }).fill("review kit");
    await dialog.getByRole("checkbox", { name: /code-review/ }).check();
    await dialog.getByRole("button", { name: "Create bundle" }).click();
    const nameError = dialog.locator("#bundle-name-error");
    await nameError.waitFor();
    assert.match(await nameError.innerText(), /already exists/);
    await rig.page.keyboard.press("Escape");
    await dialog.waitFor({ state: "detached" });

    // Edit: drop a skill and rename it; the bundle moves to the new name.
    await card.getByRole("button", { name: "Edit Review kit" }).click();
    const edit = rig.page.getByRole("dialog", { name: "Edit /review-kit" });
    await edit.getByRole("button", { name: "Remove systematic-debugging" }).click();
    await edit.getByRole("textbox", { name: "Name" }).fill("Quick review");
    await edit.getByRole("button", { name: "Save bundle" }).click();
    await edit.waitFor({ state: "detached" });
    const moved = rig.page.getByRole("listitem", { name: "Bundle Quick review" });
    await moved.waitFor();
    assert.match(await moved.innerText(), /\(1 skill\)/);
    assert.equal(await card.count(), 0);
    const shown = await rig.herald(["bundles", "show", "quick-review", "--json"]);
    assert.deepEqual(JSON.parse(shown.stdout).skills, ["code-review"]);

    // The confirmation starts on Cancel; a click on its backdrop closes it and deletes nothing.
    await moved.getByRole("button", { name: "Delete Quick review" }).click();
    const confirm = rig.page.getByRole("dialog", { name: /Delete the bundle/ });
    await confirm.waitFor();
    assert.equal(await rig.page.evaluate(() => document.activeElement?.textContent), "Cancel");
    await rig.page.mouse.click(4, 4);
    await confirm.waitFor({ state: "detached" });
    assert.equal(await moved.isVisible(), true);
    await moved.getByRole("button", { name: "Delete Quick review" }).click();
    await confirm.getByRole("button", { name: "Delete bundle" }).click();
    await moved.waitFor({ state: "detached" });
    const after = await rig.herald(["bundles", "list", "--json"]);
    assert.deepEqual(JSON.parse(after.stdout), []);
  },
});

Deno.test({
  name: "the category filter starts over in another profile and a filter can always be cleared",
  ignore: NO_BROWSER,
  async fn() {
    await using rig = await startUiRig({ open: null, profiles: ["work"] });
    const file = join(rig.home, "skills", "coast", "lighthouse", "SKILL.md");
    await Deno.mkdir(dirname(file), { recursive: true });
    await Deno.writeTextFile(file, SKILL_MD);
    const workSkill = join(rig.home, "profiles", "work", "skills", "desk", "ledger", "SKILL.md");
    await Deno.mkdir(dirname(workSkill), { recursive: true });
    await Deno.writeTextFile(
      workSkill,
      "---\nname: ledger\ndescription: Balance the books\ncategory: desk\n---\nAdd it up.\n",
    );
    const second = join(rig.home, "profiles", "work", "skills", "stamps", "SKILL.md");
    await Deno.mkdir(dirname(second), { recursive: true });
    await Deno.writeTextFile(
      second,
      "---\nname: stamps\ndescription: Stamp the letters\n---\nLick and stick.\n",
    );

    await rig.open("/skills");
    const grid = rig.page.getByRole("list", { name: "Skills" });
    await grid.getByRole("link", { name: "lighthouse" }).waitFor();
    const categories = rig.page.getByRole("group", { name: "Categories" });
    await categories.getByRole("button", { name: /coast/ }).click();
    assert.equal(await grid.locator("li").count(), 1);

    // In "work" there is no "coast": all its skills are listed, "All" pressed.
    await rig.page.getByRole("combobox", { name: "Profile" }).selectOption("work");
    await grid.getByRole("link", { name: "ledger" }).waitFor();
    assert.equal(await grid.locator("li").count(), 2);
    assert.equal(
      await categories.getByRole("button", { name: /All/ }).getAttribute("aria-pressed"),
      "true",
    );

    // A filter that matches nothing offers to clear it.
    await categories.getByRole("button", { name: /desk/ }).click();
    await rig.page.getByRole("searchbox", { name: "Filter skills" }).fill("stamp");
    await rig.page.getByText("No skill matches this filter.").waitFor();
    await rig.page.getByRole("button", { name: "Clear the filter" }).click();
    await grid.getByRole("link", { name: "stamps" }).waitFor();
    assert.equal(await grid.locator("li").count(), 2);
    assert.equal(await rig.page.getByRole("searchbox", { name: "Filter skills" }).inputValue(), "");
  },
});

Deno.test({
  name: "a skill card's tags keep together and its chips are one height",
  ignore: NO_BROWSER,
  async fn() {
    await using rig = await startUiRig({ open: "/skills" });
    const cards = rig.page.getByRole("list", { name: "Skills" }).locator("li");
    await cards.first().waitFor();
    const problems = await cards.evaluateAll((items) =>
      items.flatMap((card) => {
        const tags = [...card.querySelectorAll(".skills-card-meta .skills-tag")];
        const boxes = tags.map((tag) => tag.getBoundingClientRect());
        const name = card.querySelector("a")?.textContent ?? "?";
        const found: string[] = [];
        if (new Set(boxes.map((box) => Math.round(box.height))).size > 1) {
          found.push(`${name}: chips of different heights`);
        }
        // The origin pill (the last) never starts a row alone.
        const last = boxes.at(-1);
        const before = boxes.at(-2);
        if (last && before && Math.abs(last.top - before.top) > 1) {
          const lineOf = boxes.filter((box) => Math.abs(box.top - last.top) <= 1);
          if (lineOf.length === 1) found.push(`${name}: the origin wraps alone`);
        }
        return found;
      })
    );
    assert.deepEqual(problems, []);
  },
});

Deno.test({
  name: "the skills, a skill and the bundle form fit a phone screen in the dark theme",
  ignore: NO_BROWSER,
  async fn() {
    await using rig = await startUiRig({ open: null, viewport: PHONE, dark: true });
    const file = join(rig.home, "skills", "coast", "lighthouse", "SKILL.md");
    await Deno.mkdir(dirname(file), { recursive: true });
    await Deno.writeTextFile(file, SKILL_MD);
    const fits = async (what: string) => {
      const width = await rig.page.evaluate(() => document.documentElement.scrollWidth);
      assert.ok(width <= PHONE.width, `${what} is ${width}px wide on a phone`);
    };
    await rig.open("/skills");
    await rig.page.getByRole("list", { name: "Skills" }).getByRole("link").first().waitFor();
    await fits("the skills");
    await rig.screenshot("skills-phone-dark");
    await rig.open("/skills/lighthouse");
    await rig.page.getByRole("heading", { name: "Lighthouse keeping" }).waitFor();
    await fits("a skill");
    await rig.screenshot("skill-view-phone-dark");
    await rig.open("/skills?tab=bundles");
    await rig.page.getByRole("button", { name: "New bundle" }).click();
    const dialog = rig.page.getByRole("dialog", { name: "New bundle" });
    await dialog.getByRole("checkbox", { name: /lighthouse/ }).check();
    await fits("the bundle form");
    await rig.screenshot("bundle-form-phone-dark");
  },
});

/**
 * The whole way a person makes and uses a bundle in the web app: created in
 * the Skills page from the profile's skills, then offered by the chat's
 * slash completion with its marker and sent, loading its skill into the
 * model's request.
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { NO_BROWSER, startUiRig } from "./_browser.ts";

Deno.test({
  name: "a bundle created in the Skills page is offered in the chat and loads its skill there",
  ignore: NO_BROWSER,
  async fn() {
    await using rig = await startUiRig({ open: null, replies: [{ text: "Reviewed." }] });
    await Deno.mkdir(join(rig.home, "skills", "dev", "release-check"), { recursive: true });
    await Deno.writeTextFile(
      join(rig.home, "skills", "dev", "release-check", "SKILL.md"),
      "---\nname: release-check\ndescription: Check a release\n---\n\nRELEASE-CHECK-BODY: tag, notes, sums.\n",
    );
    const { page } = rig;
    await rig.open("/skills?tab=bundles");
    await page.getByRole("button", { name: "New bundle" }).click();
    const dialog = page.getByRole("dialog", { name: "New bundle" });
    await dialog.getByRole("textbox", { name: "Name" }).fill("Ship it");
    await dialog.getByRole("textbox", { name: "Description" }).fill("Before a release");
    await dialog.getByRole("searchbox", { name: "Find a skill" }).fill("release");
    await dialog.getByRole("checkbox", { name: /release-check/ }).check();
    await dialog.getByRole("button", { name: "Create bundle" }).click();
    await dialog.waitFor({ state: "detached" });
    await page.getByRole("listitem", { name: "Bundle Ship it" }).waitFor();

    await page.getByRole("navigation", { name: "Pages" }).getByRole("link", { name: "Chat" })
      .click();
    const input = page.getByRole("textbox", { name: "Message" });
    await input.pressSequentially("/ship");
    const option = page.getByRole("listbox", { name: "Commands" })
      .getByRole("option", { name: /\/ship-it/ });
    await option.waitFor();
    assert.match((await option.textContent()) ?? "", /Before a release \(1 skill\)/);
    await input.press("Tab");
    await input.pressSequentially("v1.2");
    await input.press("Enter");
    await page.getByText("Reviewed.").waitFor();
    const body = rig.model.requests[0].body as { messages: { role: string; content: unknown }[] };
    const sent = String(body.messages.findLast((m) => m.role === "user")?.content ?? "");
    assert.match(sent, /RELEASE-CHECK-BODY/);
    assert.match(sent, /v1\.2/);
  },
});

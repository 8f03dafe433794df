/**
 * The Automations page in a real Chromium against a real `herald
 * dashboard`: a blueprint's form rendered from its slot schema, the
 * preview following a changed time (and naming the slot of a bad value),
 * "Schedule it" creating the job that then shows in the jobs list with
 * its next run; pausing it, running a script job now and reading its
 * output in the history, deleting after a confirmation, and the plain
 * "New job" form refusing a bad schedule. Screenshots go to
 * .artifacts/ui/automations-*.png.
 */

import assert from "node:assert/strict";
import { NO_BROWSER, PHONE, startUiRig } from "./_browser.ts";

/** The browser logs each refused request (a bad value the test types on purpose). */
const BAD_REQUEST = /the server responded with a status of 400/;

type Job = {
  id: string;
  name: string;
  state: string;
  next_run_at: number | null;
  schedule: { kind: string; text: string; expression?: string };
};

Deno.test({
  name:
    "a job is scheduled from a blueprint form with a live preview, listed with its next run, and paused",
  ignore: NO_BROWSER,
  async fn() {
    await using rig = await startUiRig({
      open: null,
      configExtra: "timezone: UTC\n",
      allowConsole: [BAD_REQUEST],
    });
    await rig.open("/automations?tab=blueprints");
    const page = rig.page;

    // The catalog, grouped by category.
    await page.getByRole("heading", { name: "Briefings" }).waitFor();
    assert.ok(await page.getByRole("link", { name: /^Set up / }).count() >= 10);
    await rig.screenshot("automations-catalog");

    await page.getByRole("link", { name: "Set up Morning briefing" }).click();
    const form = page.getByRole("form", { name: "Morning briefing" });
    await form.waitFor();
    // Each slot as its type calls for: a time input, a select of days, a suggestion box.
    const time = form.getByLabel("What time?");
    assert.equal(await time.getAttribute("type"), "time");
    assert.equal(await time.inputValue(), "08:00");
    const days = form.getByLabel("Which days?");
    assert.equal(await days.evaluate((element) => element.tagName), "SELECT");
    assert.equal(await days.inputValue(), "everyday");
    const deliver = form.getByLabel("Where to deliver?");
    assert.equal(await deliver.evaluate((element) => element.tagName), "INPUT");
    assert.ok(await deliver.getAttribute("list"), "the delivery targets are suggestions");

    const preview = page.getByRole("complementary", { name: "Preview" });
    await preview.getByText("daily at 08:00").waitFor();
    assert.equal(
      await preview.getByRole("list", { name: "Next runs" }).getByRole("listitem").count(),
      3,
    );
    await preview.getByText("/blueprint morning-brief time=08:00 days=everyday deliver=origin")
      .waitFor();

    // Another time and weekdays: the preview follows.
    await time.fill("07:30");
    await days.selectOption("weekdays");
    await preview.getByText("weekdays at 07:30").waitFor();
    await preview.getByText("/blueprint morning-brief time=07:30 days=weekdays deliver=origin")
      .waitFor();
    const runs = await preview.getByRole("list", { name: "Next runs" }).locator("time")
      .evaluateAll((elements) => elements.map((element) => element.getAttribute("datetime")));
    assert.equal(runs.length, 3);
    for (const at of runs) {
      const date = new Date(at!);
      assert.deepEqual([date.getUTCHours(), date.getUTCMinutes()], [7, 30], at!);
      assert.ok(date.getUTCDay() >= 1 && date.getUTCDay() <= 5, `${at} is a weekday`);
      assert.ok(date.getTime() > Date.now());
    }
    await rig.screenshot("automations-blueprint-form");

    // A bad value: the preview names the slot, and the field is marked.
    await deliver.fill("by pigeon");
    await preview.getByText(/Slot "deliver"/).waitFor();
    assert.equal(await deliver.getAttribute("aria-invalid"), "true");
    await rig.screenshot("automations-blueprint-invalid");
    await deliver.fill("local");
    await preview.getByText("/blueprint morning-brief time=07:30 days=weekdays deliver=local")
      .waitFor();

    await form.getByRole("button", { name: "Schedule it" }).click();
    const list = page.getByRole("list", { name: "Scheduled jobs" });
    const card = list.getByRole("listitem", { name: "Morning briefing" });
    await card.waitFor();
    const { jobs } = await rig.api<{ jobs: Job[] }>("GET", "/api/cron/jobs");
    assert.equal(jobs.length, 1);
    const job = jobs[0];
    assert.deepEqual(job.schedule, {
      kind: "cron",
      text: "weekdays at 07:30",
      expression: "30 7 * * 1-5",
    });
    assert.ok(job.next_run_at !== null);
    const next = card.getByTestId("next-run").locator("time");
    assert.equal(await next.getAttribute("datetime"), new Date(job.next_run_at).toISOString());
    assert.match(await next.innerText(), /30/);
    assert.match(await card.innerText(), /scheduled/);
    // The schedule in words: the cron the form's slots made is not what people read.
    assert.match(await card.innerText(), /weekdays at 07:30/);
    assert.equal(new URL(page.url()).searchParams.get("job"), job.id, "the new job is marked");
    await rig.screenshot("automations-scheduled");

    // Pause: the state shows, and the next run goes.
    await card.getByRole("button", { name: "Pause Morning briefing" }).click();
    await card.getByRole("button", { name: "Resume Morning briefing" }).waitFor();
    assert.match(await card.getByTestId("next-run").innerText(), /paused/);
    assert.equal(
      (await rig.api<{ jobs: Job[] }>("GET", "/api/cron/jobs")).jobs[0].state,
      "paused",
    );
    await rig.screenshot("automations-paused");
    await card.getByRole("button", { name: "Resume Morning briefing" }).click();
    await card.getByRole("button", { name: "Pause Morning briefing" }).waitFor();
    await card.getByTestId("next-run").locator("time").waitFor();
  },
});

Deno.test({
  name:
    "Run now runs a job, its history opens the output, delete asks first; a bad schedule is refused in place",
  ignore: NO_BROWSER,
  async fn() {
    await using rig = await startUiRig({ open: null, allowConsole: [BAD_REQUEST] });
    await rig.open("/automations");
    const page = rig.page;
    await page.getByText("No scheduled jobs yet.").waitFor();
    await page.locator('.automations-page[data-live="true"]').waitFor();
    // A job made elsewhere (here, the REST API) shows at once: its event reaches the page over
    // /api/ws, well before the half-minute poll.
    await rig.api("POST", "/api/cron/jobs", {
      schedule: "every 1d",
      name: "Disk report",
      script: "printf '# Disk report\\n\\n- **root**: fine\\n'",
      script_only: true,
    });
    const card = page.getByRole("list", { name: "Scheduled jobs" })
      .getByRole("listitem", { name: "Disk report" });
    await card.waitFor();

    await card.getByRole("button", { name: "Run Disk report now" }).click();
    await page.getByText('Ran "Disk report": ok').waitFor();
    await card.getByRole("button", { name: "History of Disk report" }).click();
    const history = card.getByRole("region", { name: "Runs of Disk report" });
    await history.getByRole("listitem").first().waitFor();
    assert.match(await history.innerText(), /ok/);
    assert.match(await history.innerText(), /kept locally/);
    await history.getByRole("button", { name: /^Open the run of / }).first().click();
    const dialog = page.getByRole("dialog", { name: /^Disk report: run of / });
    await dialog.getByRole("heading", { name: "Disk report", exact: true }).waitFor();
    assert.equal(await dialog.locator("strong").filter({ hasText: "root" }).count(), 1);
    await rig.screenshot("automations-run-output");
    await dialog.getByRole("button", { name: "Close" }).click();
    await dialog.waitFor({ state: "detached" });

    // Delete asks first; Cancel keeps the job.
    await card.getByRole("button", { name: "Delete Disk report" }).click();
    const confirm = page.getByRole("dialog", { name: 'Delete "Disk report"?' });
    await confirm.getByRole("button", { name: "Cancel" }).click();
    await confirm.waitFor({ state: "detached" });
    assert.equal((await rig.api<{ jobs: Job[] }>("GET", "/api/cron/jobs")).jobs.length, 1);
    await card.getByRole("button", { name: "Delete Disk report" }).click();
    await confirm.getByRole("button", { name: "Delete job" }).click();
    await card.waitFor({ state: "detached" });
    assert.deepEqual((await rig.api<{ jobs: Job[] }>("GET", "/api/cron/jobs")).jobs, []);

    // The plain form: a bad schedule is refused under its field, and nothing is created.
    await page.getByRole("button", { name: "New job" }).click();
    const dialogForm = page.getByRole("dialog", { name: "New job" });
    await dialogForm.getByLabel("Schedule").fill("every blue moon");
    await dialogForm.getByLabel("Prompt").fill("Howl");
    await dialogForm.getByRole("button", { name: "Create job" }).click();
    await dialogForm.getByText(/"every blue moon"/).waitFor();
    assert.equal(await dialogForm.getByLabel("Schedule").getAttribute("aria-invalid"), "true");
    assert.deepEqual((await rig.api<{ jobs: Job[] }>("GET", "/api/cron/jobs")).jobs, []);
    await rig.screenshot("automations-new-job-invalid");
    await dialogForm.getByLabel("Schedule").fill("weekdays at 08:30");
    await dialogForm.getByRole("button", { name: "Create job" }).click();
    const made = page.getByRole("list", { name: "Scheduled jobs" })
      .getByRole("listitem", { name: "Howl" });
    await made.waitFor();
    assert.match(await made.innerText(), /weekdays at 08:30/);

    // On a phone the page fits the screen.
    await page.setViewportSize(PHONE);
    await page.waitForFunction(() => document.querySelectorAll(".toast").length === 0);
    const overflow = await page.evaluate(() =>
      document.documentElement.scrollWidth - document.documentElement.clientWidth
    );
    assert.ok(overflow <= 0, `the page is ${overflow}px wider than the phone`);
    await rig.screenshot("automations-phone");
    await rig.open("/automations?tab=blueprints&blueprint=custom-reminder");
    await page.getByRole("form", { name: "Custom reminder" }).waitFor();
    await page.getByRole("complementary", { name: "Preview" }).getByRole("list", {
      name: "Next runs",
    }).waitFor();
    const formOverflow = await page.evaluate(() =>
      document.documentElement.scrollWidth - document.documentElement.clientWidth
    );
    assert.ok(formOverflow <= 0, `the form is ${formOverflow}px wider than the phone`);
    await rig.screenshot("automations-phone-form");
  },
});

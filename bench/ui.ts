/**
 * The dashboard's web app in a real Chromium (playwright-core) on loopback
 * against a real `herald dashboard` started from source:
 *
 * - what the first load needs: the embedded module's initial scripts and
 *   stylesheets (index.html's tags and their static imports) against the
 *   ones loaded on demand, and what Chromium actually downloaded for /chat;
 * - first contentful paint and the time until the chat's "Message" box
 *   takes typing, against a static page with such a box served by a bare
 *   Hono process (bench/fixtures/ui_baseline_server.ts), in alternation,
 *   each run in a new browser context, visiting once and then again with
 *   the context's cache;
 * - a session of 2,000 messages seeded into the profile's state.db through
 *   the store, opened and scrolled while a `longtask` observer runs;
 * - the dashboard's RSS idle, after Chromium loaded /chat once, and at the end.
 *
 * Run alone with `deno run --allow-all bench/ui.ts`; `deno task bench` runs it
 * with the others. Environment: `BENCH_UI_RUNS` (visits of each page, default
 * 15), `BENCH_UI_PAIRS` (user/assistant pairs of the long session, default
 * 1,000). A trace of the session run is written to .bench/ when it had long
 * tasks.
 *
 * @module
 */

import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { UI_ASSETS, UI_PAGE } from "../server/ui_assets.gen.ts";
import { type StartupSample, summariseTimes } from "./cli_startup.ts";
import { firstLine, startDashboardProcess } from "./_dashboard_process.ts";
import { type EmbeddedAppSizes, embeddedAppSizes } from "./_ui_assets.ts";
import {
  CHROMIUM,
  DESKTOP,
  launchChromium,
  type LoadedResource,
  type VisitPair,
  visitTwice,
} from "./_ui_browser.ts";
import { type ScrollRun, scrollSession } from "./_ui_scroll.ts";
import {
  FIRST_MESSAGE_MARK,
  LAST_MESSAGE_MARK,
  type SeededSession,
  seedLongSession,
} from "./_session_corpus.ts";
import { describeTracedTask, summariseLongTasks } from "./_trace_summary.ts";

const ROOT = fileURLToPath(new URL("../", import.meta.url));
const TOKEN = "bench-ui-token-0123456789abcdefghijkl";
/** The issue's budget for the initial JS and CSS, gzipped. */
export const INITIAL_BUDGET_BYTES = 150 * 1024;
/** Scroll steps of the traced run (enough to see where the time goes; a trace grows fast). */
const TRACED_STEPS = 200;
/** The issue's ceiling for the dashboard's RSS. */
export const RSS_TARGET_MB = 80;

/** Paint and typing figures of one page, first visits and repeat visits. */
export interface PageTimes {
  label: string;
  firstPaint: StartupSample;
  firstTyping?: StartupSample;
  repeatPaint: StartupSample;
  repeatTyping?: StartupSample;
}

/** Everything the web app bench measured. */
export interface UiBenchResult {
  chromium: string;
  sizes: EmbeddedAppSizes;
  /** The JS and CSS Chromium fetched for /chat's first visit. */
  downloaded: LoadedResource[];
  app: PageTimes;
  baseline: PageTimes;
  /** Why typing was not timed on /chat (no "Message" box), when it was not. */
  typingNote?: string;
  session: SeededSession & {
    run: ScrollRun;
    /** The traced second run's three longest tasks, described, when the first had long tasks. */
    traced?: string[];
    tracePath?: string;
  };
  rss: { idleMb: number; afterFirstLoadMb: number; afterBenchMb: number };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Runs the whole web app bench. */
export async function benchUi(runs = 15, pairs = 1000): Promise<UiBenchResult> {
  const home = await Deno.makeTempDir({ prefix: "herald-bench-ui-" });
  try {
    // The model is never called: it points at a closed loopback port.
    await Deno.writeTextFile(
      join(home, "config.yaml"),
      "model:\n  provider: custom\n  base_url: http://127.0.0.1:9/v1\n  default: bench-model\n",
    );
    const seeded = seedLongSession(join(home, "state.db"), pairs);
    await using dashboard = await startDashboardProcess({
      home,
      token: TOKEN,
      env: { CUSTOM_API_KEY: "bench-key" },
    });
    await using baseline = await startBaselineServer();
    const browser = await launchChromium();
    try {
      await sleep(3000);
      const idleMb = await dashboard.rssMb();
      const chat = new URL("/chat", dashboard.url).href;

      // The first visit loads the embedded module into the server: a warm-up, and the
      // visit whose downloads are listed.
      let typingNote: string | undefined;
      let warmUp: VisitPair;
      try {
        warmUp = await visitTwice(browser, chat, { typing: true });
      } catch (error) {
        typingNote = `/chat showed no textbox named "Message" that took a key press (${
          error instanceof Error ? error.message.split("\n")[0] : String(error)
        })`;
        warmUp = await visitTwice(browser, chat, { typing: false });
      }
      const typing = typingNote === undefined;
      await sleep(3000);
      const afterFirstLoadMb = await dashboard.rssMb();
      await visitTwice(browser, baseline.url, { typing: true });

      const appVisits: VisitPair[] = [];
      const baselineVisits: VisitPair[] = [];
      for (let i = 0; i < runs; i++) {
        // Alternate which goes first, so neither profits from the machine's state.
        if (i % 2 === 0) baselineVisits.push(await visitTwice(browser, baseline.url, { typing }));
        appVisits.push(await visitTwice(browser, chat, { typing }));
        if (i % 2 === 1) baselineVisits.push(await visitTwice(browser, baseline.url, { typing }));
      }

      const sessionUrl = new URL(`/sessions/${seeded.id}`, dashboard.url).href;
      const marks = { first: FIRST_MESSAGE_MARK, last: LAST_MESSAGE_MARK };
      const run = await scrollSession(browser, sessionUrl, marks);
      let traced: string[] | undefined;
      let tracePath: string | undefined;
      if (run.openTasks.length + run.scrollTasks.length > 0) {
        // A second run, traced, to say where the time went (tracing slows the page a little).
        const tracedRun = await scrollSession(browser, sessionUrl, marks, {
          trace: true,
          maxSteps: TRACED_STEPS,
        });
        traced = summariseLongTasks(tracedRun.trace!, 0, 3).map(describeTracedTask);
        tracePath = join(ROOT, ".bench", "ui-session-trace.json");
        await Deno.mkdir(join(ROOT, ".bench"), { recursive: true });
        await Deno.writeFile(tracePath, tracedRun.trace!);
      }
      const afterBenchMb = await dashboard.rssMb();
      return {
        chromium: browser.version(),
        sizes: await embeddedAppSizes(UI_ASSETS, UI_PAGE),
        downloaded: warmUp.resources.filter((file) => /\.(js|css)$/.test(file.path)),
        app: pageTimes("/chat", appVisits, typing),
        baseline: pageTimes("static page", baselineVisits, typing),
        typingNote,
        session: { ...seeded, run, traced, tracePath },
        rss: { idleMb, afterFirstLoadMb, afterBenchMb },
      };
    } finally {
      await browser.close();
    }
  } finally {
    await Deno.remove(home, { recursive: true });
  }
}

function pageTimes(label: string, visits: VisitPair[], typing: boolean): PageTimes {
  const sample = (what: string, times: number[]) =>
    summariseTimes(`${label} ${what}`, label, times);
  return {
    label,
    firstPaint: sample("first paint", visits.map((v) => v.first.firstContentfulPaintMs)),
    repeatPaint: sample("repeat paint", visits.map((v) => v.repeat.firstContentfulPaintMs)),
    firstTyping: typing ? sample("first typing", visits.map((v) => v.first.typingMs!)) : undefined,
    repeatTyping: typing
      ? sample("repeat typing", visits.map((v) => v.repeat.typingMs!))
      : undefined,
  };
}

async function startBaselineServer(): Promise<{ url: string } & AsyncDisposable> {
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", "--allow-all", join(ROOT, "bench/fixtures/ui_baseline_server.ts")],
    cwd: ROOT,
    stdout: "piped",
    stderr: "inherit",
    stdin: "null",
  }).spawn();
  const text = await firstLine(child.stdout);
  child.stdout.cancel().catch(() => {});
  const stop = async () => {
    try {
      child.kill("SIGTERM");
    } catch {
      // Already gone.
    }
    await child.status;
  };
  const port = Number(text);
  if (!Number.isInteger(port) || port <= 0) {
    await stop();
    throw new Error(`the baseline page server did not start: ${JSON.stringify(text)}`);
  }
  return { url: `http://127.0.0.1:${port}/`, [Symbol.asyncDispose]: stop };
}

const kb = (bytes: number) => (bytes / 1024).toFixed(1);
const ms = (value: number) => value.toFixed(1);

/** The bench's section of the Markdown report (docs/BENCHMARKS.md). */
export function formatUiReport(result: UiBenchResult, heading: string): string {
  const { sizes, app, baseline, session, rss } = result;
  const initialPaths = new Set(sizes.initial.map((asset) => asset.path));
  const sum = (files: LoadedResource[]) => files.reduce((total, f) => total + f.encodedBytes, 0);
  const fetchedInitial = result.downloaded.filter((file) => initialPaths.has(file.path));
  const fetchedLazy = result.downloaded.filter((file) => !initialPaths.has(file.path));
  const lazyBefore = fetchedLazy.filter((file) => file.beforeTyping);
  const built = (list: { bytes: number }[]) => list.reduce((total, a) => total + a.bytes, 0);
  const withinBudget = sizes.initialGzipBytes <= INITIAL_BUDGET_BYTES;
  const downloadedInitial = sum(fetchedInitial) + sum(lazyBefore);
  const run = session.run;
  const until = result.typingNote ? "the load event" : "the Message box took a key";
  const longTasks = [...run.openTasks, ...run.scrollTasks];
  const longest = (tasks: { durationMs: number }[]) =>
    tasks.length === 0
      ? "none"
      : `${tasks.length}, longest ${ms(Math.max(...tasks.map((task) => task.durationMs)))} ms`;
  // The target is the idle dashboard's; a dashboard with a chat open holds the agent runtime.
  const rssLine = (label: string, mb: number, target: boolean) =>
    `| ${label} | ${mb.toFixed(1)} | ${
      target ? (mb <= RSS_TARGET_MB ? "yes" : "**no**") : "in use: no target"
    } |`;
  const timesRow = (page: PageTimes, visit: string, paint: StartupSample, typing?: StartupSample) =>
    `| ${page.label} | ${visit} | ${paint.runs} | ${ms(paint.medianMs)} | ${ms(paint.p90Ms)} | ${
      typing ? ms(typing.medianMs) : "n/a"
    } | ${typing ? ms(typing.p90Ms) : "n/a"} |`;
  const ratio = (a?: StartupSample, b?: StartupSample) =>
    a && b ? `${(a.medianMs / b.medianMs).toFixed(2)}x` : "n/a";

  return [
    `## Web app in Chromium (${heading})`,
    "",
    `Chromium ${result.chromium} (headless, ${DESKTOP.width}x${DESKTOP.height}) on 127.0.0.1 ` +
    "against `herald dashboard` run from source, which sends the embedded app gzipped.",
    "",
    "### What the first load downloads",
    "",
    "| files | count | built KB | gzipped KB (as sent) |",
    "| --- | --- | --- | --- |",
    `| initial: index.html's script and stylesheet tags and their static imports | ${sizes.initial.length} | ${
      kb(built(sizes.initial))
    } | **${kb(sizes.initialGzipBytes)}** |`,
    `| on demand: every other script and stylesheet | ${sizes.lazy.length} | ${
      kb(built(sizes.lazy))
    } | ${kb(sizes.lazyGzipBytes)} |`,
    `| Chromium, /chat until ${until}: initial files | ${fetchedInitial.length} | ${
      kb(fetchedInitial.reduce((total, f) => total + f.decodedBytes, 0))
    } | ${kb(sum(fetchedInitial))} |`,
    `| Chromium, /chat until ${until}: on-demand files | ${lazyBefore.length} | ${
      kb(lazyBefore.reduce((total, f) => total + f.decodedBytes, 0))
    } | ${kb(sum(lazyBefore))} |`,
    `| Chromium, /chat after that (until the network was idle) | ${
      fetchedLazy.length - lazyBefore.length
    } | | ${kb(sum(fetchedLazy) - sum(lazyBefore))} |`,
    "",
    `Initial JS and CSS: **${kb(sizes.initialGzipBytes)} KB gzipped** (target: at most ${
      INITIAL_BUDGET_BYTES / 1024
    } KB): ${withinBudget ? "**met**" : "**over the budget**"}. Chromium fetched ${
      kb(downloadedInitial)
    } KB of JS and CSS until ${until}` +
    (fetchedInitial.length === sizes.initial.length
      ? "."
      : ` (**${sizes.initial.length - fetchedInitial.length} initial file(s) not fetched**).`),
    ...(sizes.lazy.length > 0
      ? [
        "",
        `On demand: ${
          sizes.lazy.map((asset) =>
            `\`${asset.path.replace("/assets/", "")}\` ${kb(asset.gzipBytes)} KB`
          )
            .join(", ")
        }.`,
      ]
      : []),
    "",
    "### First paint and typing",
    "",
    "Each run opens a new browser context (empty cache) and visits the page, then navigates the " +
    "same tab to it again (cached hashed assets; the document itself is never cached). Times are " +
    "from navigation start. Typing: when the first frame drawn after the textbox named " +
    '"Message" is in the document, enabled and writable (seen by a MutationObserver the bench ' +
    "installs before the page's scripts) is done, counted only when a real key pressed right " +
    "after shows in the box.",
    "",
    "| page | visit | runs | FCP median ms | FCP p90 ms | typing median ms | typing p90 ms |",
    "| --- | --- | --- | --- | --- | --- | --- |",
    timesRow(app, "first", app.firstPaint, app.firstTyping),
    timesRow(app, "repeat", app.repeatPaint, app.repeatTyping),
    timesRow(baseline, "first", baseline.firstPaint, baseline.firstTyping),
    timesRow(baseline, "repeat", baseline.repeatPaint, baseline.repeatTyping),
    "",
    `Ratios of medians, /chat / static page: first paint **${
      ratio(app.firstPaint, baseline.firstPaint)
    }**, typing **${ratio(app.firstTyping, baseline.firstTyping)}** (first visits); ${
      ratio(app.repeatPaint, baseline.repeatPaint)
    } and ${ratio(app.repeatTyping, baseline.repeatTyping)} (repeat visits). No target: reported.` +
    (result.typingNote ? ` Typing not timed: ${result.typingNote}.` : ""),
    "",
    `### A session of ${session.messages.toLocaleString("en-US")} messages`,
    "",
    `Seeded into the profile's state.db through the store's bulk import: ${
      session.messages / 2
    } user/assistant pairs, ${
      (session.characters / 1e6).toFixed(2)
    } MB of Markdown, ${session.withCode} messages with code blocks. ` +
    "`/sessions/<id>` opened with a `longtask` observer registered before the page's scripts; " +
    "then a jump to the top, one viewport down every two frames to the bottom (waiting for more to " +
    "load at either end), a jump to the top and one to the end.",
    "",
    "| measurement | value |",
    "| --- | --- |",
    `| opened: first or last message in the page, its frame drawn | ${
      run.opened ? `${ms(run.openMs!)} ms from navigation start` : "**no**"
    } |`,
    `| long tasks over 50 ms while opening | ${longest(run.openTasks)} |`,
    `| scrolled | ${
      run.scroller
        ? `${run.scroller}, ${run.steps} steps, ${run.scrollHeight.toLocaleString("en-US")} px high`
        : "nothing scrollable"
    } |`,
    `| long tasks over 50 ms while scrolling | ${longest(run.scrollTasks)} |`,
    `| first message in the document at the top, last at the end | ${
      run.firstShownAtTop ? "yes" : "no"
    }, ${run.lastShownAtEnd ? "yes" : "no"} |`,
    `| elements in the document at the end | ${run.domElements.toLocaleString("en-US")} |`,
    "",
    !run.opened
      ? "**Not measured**: the Sessions page did not show the session's messages."
      : longTasks.length === 0
      ? "No long task over 50 ms (target: none): **met**."
      : `**${longTasks.length} long task(s) over 50 ms** (target: none): **not met**.`,
    ...(session.traced && session.traced.length > 0
      ? [
        "",
        `Where: the three longest tasks of a second run traced by Chromium (its first ${TRACED_STEPS} ` +
        `steps down; \`${
          session.tracePath!.replace(ROOT, "")
        }\` opens in DevTools' Performance panel; tracing slows the page a little):`,
        "",
        ...session.traced.map((line) => `- ${line}`),
      ]
      : []),
    ...(run.benchTasks > 0
      ? ["", `(${run.benchTasks} long task(s) overlapping the bench's own DOM reads not counted.)`]
      : []),
    "",
    "### Dashboard memory with the app",
    "",
    "| `herald dashboard` RSS | MB | idle: at most 80 MB |",
    "| --- | --- | --- |",
    rssLine("idle, 3 s after start", rss.idleMb, true),
    rssLine("3 s after Chromium loaded /chat once (a chat open)", rss.afterFirstLoadMb, false),
    rssLine(
      `after the whole bench (${app.firstPaint.runs * 2 + 2} /chat visits, the session)`,
      rss.afterBenchMb,
      false,
    ),
    "",
  ].join("\n");
}

/**
 * Runs the bench and returns its report section, or a line saying it was
 * skipped when Chromium is not installed.
 */
export async function uiReport(runs: number, pairs: number, heading: string): Promise<string> {
  if (!CHROMIUM) {
    return `## Web app in Chromium (${heading})\n\nSkipped: Chromium is not installed ` +
      "(apt-get install -y chromium, or set HERALD_CHROMIUM).\n";
  }
  return formatUiReport(await benchUi(runs, pairs), heading);
}

if (import.meta.main) {
  const runs = Number(Deno.env.get("BENCH_UI_RUNS") ?? "15");
  const pairs = Number(Deno.env.get("BENCH_UI_PAIRS") ?? "1000");
  const heading = `${
    new Date().toISOString().slice(0, 10)
  }, Deno ${Deno.version.deno}, ${navigator.hardwareConcurrency} cores`;
  console.log(await uiReport(runs, pairs, heading));
}

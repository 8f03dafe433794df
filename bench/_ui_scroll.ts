/**
 * Scrolling a long session in Chromium while a `longtask` observer
 * (registered before the page's own scripts) records every task over 50 ms.
 *
 * @module
 */

import type { Browser, Page } from "playwright-core";
import { DESKTOP, type PageElement, type PageGlobals } from "./_ui_browser.ts";

/** A task over 50 ms the page's `longtask` observer saw. */
export interface LongTask {
  /** ms from navigation start. */
  startMs: number;
  durationMs: number;
}

/** What scrolling a long session showed. */
export interface ScrollRun {
  /** The session's first or last message came into the document. */
  opened: boolean;
  /** ms from navigation start until the frame drawn after it did was done. */
  openMs?: number;
  /** Tasks over 50 ms from navigation start until the page settled after opening. */
  openTasks: LongTask[];
  /** Tasks over 50 ms while scrolling to the top, down in steps, and jumping to either end. */
  scrollTasks: LongTask[];
  /** Long tasks left out because they overlap the bench's own reads of the page. */
  benchTasks: number;
  /** Scroll steps taken (each one viewport, two frames apart). */
  steps: number;
  /** The scrolled element's final scroll height in px. */
  scrollHeight: number;
  /** The element scrolled (tag, id, classes), or null when nothing could scroll. */
  scroller: string | null;
  /** The first message was in the document at the top. */
  firstShownAtTop: boolean;
  /** The last message was in the document after scrolling to the end. */
  lastShownAtEnd: boolean;
  /** Elements in the document at the end (how much a long session keeps in the DOM). */
  domElements: number;
  /** Chromium's trace of the run, when asked for. */
  trace?: Uint8Array;
}

/** What the session page's init script keeps. */
interface SessionWatch {
  /** Every task over 50 ms (the `longtask` observer). */
  tasks: LongTask[];
  /** ms from navigation start when the frame after a mark first appeared in the document was done. */
  openedAt?: number;
  /** Times the bench's own text searches ran (long tasks overlapping them are not counted). */
  excluded: [number, number][];
}

/** The page's global once the session init script ran. */
type SessionWatched = { __benchSession: SessionWatch };

/**
 * The session page's init script (runs before the page's own scripts):
 * a `longtask` observer, and a search of the document's text for either
 * mark at most once a frame while the DOM changes, until one shows.
 */
function watchSession(marks: { first: string; last: string }) {
  const page = globalThis as unknown as PageGlobals & SessionWatched;
  const watch: SessionWatch = { tasks: [], excluded: [] };
  page.__benchSession = watch;
  new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) {
      watch.tasks.push({ startMs: entry.startTime, durationMs: entry.duration });
    }
  }).observe({ type: "longtask", buffered: true });
  let found = false;
  let scheduled = false;
  const look = () => {
    scheduled = false;
    if (found) return;
    const start = performance.now();
    const text = page.document.body?.textContent ?? "";
    found = text.includes(marks.first) || text.includes(marks.last);
    watch.excluded.push([start, performance.now()]);
    if (found) {
      page.requestAnimationFrame(() => setTimeout(() => watch.openedAt = performance.now(), 0));
    }
  };
  new page.MutationObserver(() => {
    if (found || scheduled) return;
    scheduled = true;
    page.requestAnimationFrame(look);
  }).observe(page.document, { childList: true, subtree: true, characterData: true });
}

/**
 * Opens `url` (a session page) in a new context with a `longtask` observer
 * registered before any page script, waits until one of `marks` shows, then
 * jumps to the top (until nothing more loads), scrolls to the bottom one
 * viewport every two frames (waiting for more to load at the bottom),
 * jumps to the top and to the end; `maxSteps` caps the steps down. With
 * `trace`, Chromium records a performance trace of the whole run.
 */
export async function scrollSession(
  browser: Browser,
  url: string,
  marks: { first: string; last: string },
  options: { trace?: boolean; openTimeoutMs?: number; maxSteps?: number } = {},
): Promise<ScrollRun> {
  const context = await browser.newContext({ viewport: DESKTOP });
  try {
    await context.addInitScript(watchSession, marks);
    const page = await context.newPage();
    if (options.trace) await browser.startTracing(page, { screenshots: false });
    let run: Omit<ScrollRun, "trace">;
    let trace: Uint8Array | undefined;
    try {
      run = await openAndScroll(
        page,
        url,
        marks,
        options.openTimeoutMs ?? 30_000,
        options.maxSteps ?? 20_000,
      );
    } finally {
      if (options.trace) trace = new Uint8Array(await browser.stopTracing());
    }
    return { ...run, trace };
  } finally {
    await context.close();
  }
}

async function openAndScroll(
  page: Page,
  url: string,
  marks: { first: string; last: string },
  openTimeoutMs: number,
  maxSteps: number,
): Promise<Omit<ScrollRun, "trace">> {
  await page.goto(url, { waitUntil: "commit" });
  let openMs: number | undefined;
  try {
    await page.waitForFunction(
      () => (globalThis as unknown as SessionWatched).__benchSession.openedAt !== undefined,
      undefined,
      { polling: 100, timeout: openTimeoutMs },
    );
    openMs = await page.evaluate(() =>
      (globalThis as unknown as SessionWatched).__benchSession.openedAt!
    );
  } catch {
    // Reported as not opened.
  }
  await settle(page);
  const openedUntil = await page.evaluate(() => performance.now());
  const { excluded, ...scrolled } = openMs === undefined
    ? {
      steps: 0,
      scrollHeight: 0,
      scroller: null,
      firstShownAtTop: false,
      lastShownAtEnd: false,
      excluded: [],
    }
    : await page.evaluate(scrollThrough, { marks, maxSteps });
  const watched = await page.evaluate(() => {
    const { tasks, excluded } = (globalThis as unknown as SessionWatched).__benchSession;
    return { tasks, excluded };
  });
  const tasks = watched.tasks;
  const windows = [...watched.excluded, ...excluded];
  const ours = (task: LongTask) =>
    windows.some(([start, end]) => task.startMs <= end && start <= task.startMs + task.durationMs);
  const domElements = await page.evaluate(() =>
    (globalThis as unknown as PageGlobals).document.getElementsByTagName("*").length
  );
  return {
    opened: openMs !== undefined,
    openMs,
    openTasks: tasks.filter((task) => task.startMs < openedUntil && !ours(task)),
    scrollTasks: tasks.filter((task) => task.startMs >= openedUntil && !ours(task)),
    benchTasks: tasks.filter(ours).length,
    ...scrolled,
    domElements,
  };
}

/** Waits two frames and an idle period (bounded), so the page's own work is done. */
async function settle(page: Page): Promise<void> {
  await page.evaluate(() => {
    const window = globalThis as unknown as PageGlobals;
    return new Promise<void>((resolve) =>
      window.requestAnimationFrame(() =>
        window.requestAnimationFrame(() =>
          window.requestIdleCallback(() => resolve(), { timeout: 2000 })
        )
      )
    );
  });
}

/**
 * Runs in the page: the scrolling itself. Between frames the bench only
 * reads and writes scroll positions; its heavier reads (finding the
 * scrolled element, searching the document's text) are timed and returned
 * as `excluded`, so a long task overlapping one is not blamed on the page.
 */
async function scrollThrough(
  { marks, maxSteps }: { marks: { first: string; last: string }; maxSteps: number },
) {
  const { document, requestAnimationFrame, getComputedStyle } =
    globalThis as unknown as PageGlobals;
  const frames = (count: number) =>
    new Promise<void>((resolve) => {
      const next = (left: number) =>
        left <= 0 ? resolve() : requestAnimationFrame(() => next(left - 1));
      next(count);
    });
  const pickScroller = (): PageElement | null => {
    const root = document.scrollingElement;
    let best: PageElement | null = null;
    let bestRange = 0;
    for (const element of [root, ...document.querySelectorAll("body *")]) {
      if (!element) continue;
      const range = element.scrollHeight - element.clientHeight;
      if (range <= 1 || range <= bestRange) continue;
      if (element !== root && !/(auto|scroll|overlay)/.test(getComputedStyle(element).overflowY)) {
        continue;
      }
      best = element;
      bestRange = range;
    }
    return best;
  };
  // The bench's own heavier reads (finding the scroller, searching the text) are timed, and
  // a long task overlapping one is not counted against the page.
  const excluded: [number, number][] = [];
  const timed = <T>(work: () => T): T => {
    const start = performance.now();
    try {
      return work();
    } finally {
      excluded.push([start, performance.now()]);
    }
  };
  let scroller = timed(pickScroller);
  if (!scroller) {
    return {
      steps: 0,
      scrollHeight: 0,
      scroller: null,
      firstShownAtTop: false,
      lastShownAtEnd: false,
      excluded,
    };
  }
  const current = () =>
    scroller!.isConnected ? scroller! : (scroller = timed(pickScroller) ?? scroller!);
  const atBottom = () => {
    const element = current();
    return element.scrollTop + element.clientHeight >= element.scrollHeight - 2;
  };
  // After reaching an end, wait (up to 1.5 s) for the page to load more there.
  const grows = async () => {
    const height = current().scrollHeight;
    const until = performance.now() + 1500;
    while (performance.now() < until) {
      await frames(1);
      if (current().scrollHeight !== height) return true;
    }
    return false;
  };
  const toTop = async () => {
    for (let i = 0; i < 100; i++) {
      current().scrollTop = 0;
      await frames(2);
      if (!(await grows()) && current().scrollTop === 0) return;
    }
  };
  const toEnd = async () => {
    for (let i = 0; i < 100; i++) {
      current().scrollTop = current().scrollHeight;
      await frames(2);
      if (!(await grows()) && atBottom()) return;
    }
  };
  const shows = (text: string) => timed(() => document.body?.textContent?.includes(text) ?? false);

  await toTop();
  const firstShownAtTop = shows(marks.first);
  let steps = 0;
  const deadline = performance.now() + 180_000;
  while (steps < maxSteps && performance.now() < deadline) {
    const element = current();
    element.scrollTop += element.clientHeight;
    steps++;
    await frames(2);
    if (atBottom() && !(await grows()) && atBottom()) break;
  }
  await toTop();
  await toEnd();
  const element = current();
  const describe = (node: PageElement) =>
    node === document.scrollingElement
      ? "the document"
      : `<${node.tagName.toLowerCase()}${node.id ? ` id="${node.id}"` : ""}${
        node.className && typeof node.className === "string" ? ` class="${node.className}"` : ""
      }>`;
  return {
    steps,
    scrollHeight: element.scrollHeight,
    scroller: describe(element),
    firstShownAtTop,
    lastShownAtEnd: shows(marks.last),
    excluded,
  };
}

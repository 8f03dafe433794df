/**
 * The web app bench's Chromium (playwright-core): launching it, and timing
 * a page until its first contentful paint and until its chat input takes
 * typing, with the list of files the load downloaded.
 *
 * @module
 */

import type { Browser, Page } from "playwright-core";
export { CHROMIUM, launchChromium } from "../tests/ui/mod.ts";

// bench/ is type-checked with Deno's libraries, without the DOM's (which would change the
// types of the whole program), so the functions that run in the page describe the few browser
// globals they use here and reach them through `globalThis`.

/** An element, as far as the in-page functions read it. */
export interface PageElement {
  scrollTop: number;
  readonly scrollHeight: number;
  readonly clientHeight: number;
  readonly isConnected: boolean;
  readonly tagName: string;
  readonly id: string;
  readonly className: unknown;
}

/** The browser globals the in-page functions use. */
export interface PageGlobals {
  document: {
    scrollingElement: PageElement | null;
    body: { textContent: string | null } | null;
    querySelectorAll(selector: string): Iterable<PageElement>;
    getElementsByTagName(name: string): { length: number };
    addEventListener(
      type: string,
      listener: (event: { target: unknown }) => void,
      capture: boolean,
    ): void;
  };
  requestAnimationFrame(callback: () => void): number;
  requestIdleCallback(callback: () => void, options?: { timeout: number }): number;
  getComputedStyle(element: PageElement): { overflowY: string };
  MutationObserver: new (callback: () => void) => {
    observe(target: unknown, options: Record<string, unknown>): void;
  };
}

/** A Resource Timing entry, as far as the bench reads it. */
interface ResourceEntry {
  name: string;
  startTime: number;
  encodedBodySize: number;
  decodedBodySize: number;
}

/** The desktop screen the issue names. */
export const DESKTOP = { width: 1280, height: 800 } as const;

/** One visit of a page, in ms from navigation start. */
export interface VisitTimes {
  firstContentfulPaintMs: number;
  /** Until the textbox named "Message" takes typing (see {@link visitTwice}); absent without one. */
  typingMs?: number;
}

/** A first visit (empty cache) and a repeat visit (the same page navigated again) of one URL. */
export interface VisitPair {
  first: VisitTimes;
  repeat: VisitTimes;
  /** Files the first visit fetched, by the page's Resource Timing. */
  resources: LoadedResource[];
}

/** One file a page load fetched. */
export interface LoadedResource {
  /** URL path. */
  path: string;
  /** Body bytes as sent (gzip when the server compressed it). */
  encodedBytes: number;
  /** Body bytes after decoding. */
  decodedBytes: number;
  /** Started before the chat input accepted typing (or before the load event without one). */
  beforeTyping: boolean;
}

/** An input element, as far as the in-page functions read it. */
interface PageInput {
  value: string;
  disabled: boolean;
  readOnly: boolean;
  getAttribute(name: string): string | null;
  labels?: Iterable<{ textContent: string | null }> | null;
}

/** What the init script keeps about the textbox named "Message". */
interface MessageBoxWatch {
  /**
   * ms from navigation start when the first frame drawn after the box was in the document,
   * enabled and writable, was done.
   */
  readyAt?: number;
  /** ms from navigation start when an `input` event showed the typed "x" in it. */
  typedAt?: number;
  /** Looks for the box (on every DOM change until found). */
  check(): void;
  /** Forgets the box and looks again (after a key press that did not land). */
  reset(): void;
}

/** The page's global once the init script ran. */
type Watched = { __benchMessageBox: MessageBoxWatch };

/**
 * The init script (runs in every document before its own scripts): watches
 * DOM changes for the textbox named "Message" (its `aria-label` or its
 * label's text) becoming enabled and writable, takes the time once the next
 * frame (the one showing it) is drawn, and watches for the `input` event
 * that shows the typed "x". The times are taken in the page, so the
 * harness's round trips do not count.
 */
function watchMessageBox() {
  const page = globalThis as unknown as PageGlobals & Watched;
  const named = (element: PageInput) =>
    (element.getAttribute("aria-label") ??
      [...(element.labels ?? [])].map((label) => label.textContent ?? "").join(" ")).trim() ===
      "Message";
  let seen = 0;
  const watch: MessageBoxWatch = {
    check() {
      if (watch.readyAt !== undefined || seen > 0) return;
      const found = page.document.querySelectorAll("textarea, input") as Iterable<unknown>;
      for (const element of found as Iterable<PageInput>) {
        if (named(element) && !element.disabled && !element.readOnly) {
          // Ready once the frame showing it is drawn: the task after the next animation frame.
          const mark = seen = performance.now();
          page.requestAnimationFrame(() =>
            setTimeout(() => {
              if (seen === mark) watch.readyAt = performance.now();
            }, 0)
          );
          return;
        }
      }
    },
    reset() {
      seen = 0;
      watch.readyAt = undefined;
      watch.check();
    },
  };
  page.__benchMessageBox = watch;
  new page.MutationObserver(() => watch.check()).observe(page.document, {
    childList: true,
    subtree: true,
    attributes: true,
    attributeFilter: ["disabled", "readonly", "aria-label"],
  });
  page.document.addEventListener("input", (event) => {
    const target = event.target as PageInput;
    if (
      watch.typedAt === undefined && typeof target.value === "string" && named(target) &&
      target.value.includes("x")
    ) {
      watch.typedAt = performance.now();
    }
  }, true);
}

/**
 * Visits `url` twice in a new browser context (so the first visit starts
 * with an empty cache): once, then the same page navigated to it again
 * (cached assets). With `typing`, each visit lasts until the textbox named
 * "Message" took a real key press; its time is when the first frame drawn
 * after the box was enabled and writable was done, provided the key pressed
 * then shows in it.
 * `typingTimeoutMs` bounds the wait for the box.
 */
export async function visitTwice(
  browser: Browser,
  url: string,
  options: { typing: boolean; typingTimeoutMs?: number },
): Promise<VisitPair> {
  const context = await browser.newContext({ viewport: DESKTOP });
  try {
    await context.addInitScript(watchMessageBox);
    const page = await context.newPage();
    const first = await visit(page, url, options);
    const resources = await loadedResources(page, first.typingMs);
    const repeat = await visit(page, url, options);
    return { first, repeat, resources };
  } finally {
    await context.close();
  }
}

async function visit(
  page: Page,
  url: string,
  options: { typing: boolean; typingTimeoutMs?: number },
): Promise<VisitTimes> {
  await page.goto(url, { waitUntil: "commit" });
  let typingMs: number | undefined;
  if (options.typing) {
    const timeout = options.typingTimeoutMs ?? 15_000;
    const box = page.getByRole("textbox", { name: "Message", exact: true });
    for (let attempt = 0; attempt < 20 && typingMs === undefined; attempt++) {
      await page.waitForFunction(
        () => (globalThis as unknown as Watched).__benchMessageBox.readyAt !== undefined,
        undefined,
        { polling: "raf", timeout },
      );
      await box.focus({ timeout });
      await page.keyboard.press("x");
      const seen = await page.evaluate(() => {
        const state = (globalThis as unknown as Watched).__benchMessageBox;
        return { readyAt: state.readyAt, typedAt: state.typedAt };
      });
      if (seen.typedAt !== undefined) typingMs = seen.readyAt;
      else {
        // The key did not land: the box was not really ready. Look again.
        await page.evaluate(() => (globalThis as unknown as Watched).__benchMessageBox.reset());
      }
    }
    if (typingMs === undefined) throw new Error(`${url}: the Message box never took a key press`);
  } else {
    await page.waitForLoadState("load");
  }
  const firstContentfulPaintMs = await page.evaluate(() =>
    new Promise<number>((resolve) => {
      new PerformanceObserver((list, observer) => {
        const entry = list.getEntriesByName("first-contentful-paint")[0];
        if (entry) {
          observer.disconnect();
          resolve(entry.startTime);
        }
      }).observe({ type: "paint", buffered: true });
    })
  );
  return { firstContentfulPaintMs, typingMs };
}

async function loadedResources(
  page: Page,
  typingMs: number | undefined,
): Promise<LoadedResource[]> {
  await page.waitForLoadState("networkidle");
  const limit = typingMs ??
    await page.evaluate(() =>
      (performance.getEntriesByType("navigation")[0] as unknown as { loadEventEnd: number })
        .loadEventEnd
    );
  const entries = await page.evaluate(() =>
    (performance.getEntriesByType("resource") as unknown as ResourceEntry[]).map((entry) => ({
      path: new URL(entry.name).pathname,
      encodedBytes: entry.encodedBodySize,
      decodedBytes: entry.decodedBodySize,
      startTime: entry.startTime,
    }))
  );
  return entries.map(({ startTime, ...entry }) => ({ ...entry, beforeTyping: startTime < limit }));
}

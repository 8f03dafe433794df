/**
 * Client-side routing over the History API. Every path outside /api is
 * answered with the app by the server, so deep links and reloads work. The
 * profile query (`?profile=`) is carried over on every navigation.
 */

import { useEffect, useState } from "preact/hooks";

/** The current location, split for the pages. */
export interface Route {
  /** The path, e.g. `/sessions/abc`. */
  path: string;
  /** The path's segments, e.g. `["sessions", "abc"]`. */
  segments: string[];
  /** The query parameters (the profile among them). */
  query: URLSearchParams;
}

type Listener = (route: Route) => void;
const listeners = new Set<Listener>();

function read(): Route {
  const path = location.pathname;
  return {
    path,
    segments: path.split("/").filter(Boolean).map((part) => decodeURIComponent(part)),
    query: new URLSearchParams(location.search),
  };
}

function notify(): void {
  const route = read();
  for (const listener of listeners) listener(route);
}

addEventListener("popstate", notify);

/** Options of {@link navigate}. */
export interface NavigateOptions {
  /** Replaces the current history entry (a redirect, the URL following the page's state). */
  replace?: boolean;
  /**
   * Moves the keyboard focus to the page's `<main>`, so keyboard and
   * screen-reader users land on the new page. By default it does on a new
   * history entry for another path, unless the focus is in a form field
   * (a search box or a section picker that drives the URL keeps it).
   */
  focus?: boolean;
}

/**
 * Goes to `to` (a path with an optional query), keeping the selected profile
 * unless `to` names one.
 *
 * @example
 * ```ts
 * navigate("/sessions/ses_123"); // a new page: the focus moves to <main>
 * navigate("/settings/model", { replace: true }); // a redirect: the focus stays
 * ```
 */
export function navigate(to: string, options: NavigateOptions = {}): void {
  const url = new URL(to, location.origin);
  const profile = new URLSearchParams(location.search).get("profile");
  if (profile && !url.searchParams.has("profile")) url.searchParams.set("profile", profile);
  const next = url.pathname + url.search + url.hash;
  if (next === location.pathname + location.search + location.hash) return;
  const otherPage = url.pathname !== location.pathname;
  if (options.replace) history.replaceState(null, "", next);
  else history.pushState(null, "", next);
  notify();
  const main = document.getElementById("main");
  scrollTo(0, 0);
  // A new page starts at its top (a replaced entry is the same page's URL following it).
  if (main && otherPage && !options.replace) main.scrollTop = 0;
  if (options.focus ?? (otherPage && !options.replace && !inFormField())) {
    main?.focus({ preventScroll: true });
  }
}

/** True while the keyboard focus is in a text box, a select or a text area. */
function inFormField(): boolean {
  const active = document.activeElement;
  return active instanceof HTMLInputElement || active instanceof HTMLSelectElement ||
    active instanceof HTMLTextAreaElement;
}

/** The href for a link to `to` that keeps the selected profile. */
export function hrefFor(to: string): string {
  const url = new URL(to, location.origin);
  const profile = new URLSearchParams(location.search).get("profile");
  if (profile && !url.searchParams.has("profile")) url.searchParams.set("profile", profile);
  return url.pathname + url.search + url.hash;
}

/** The current route, re-rendering the component on every navigation. */
export function useRoute(): Route {
  const [route, setRoute] = useState(read);
  useEffect(() => {
    listeners.add(setRoute);
    return () => void listeners.delete(setRoute);
  }, []);
  return route;
}

/** A click handler for an `<a href>` that navigates in the app (plain clicks only). */
export function linkClick(event: MouseEvent): void {
  const anchor = event.currentTarget as HTMLAnchorElement;
  if (
    event.defaultPrevented || event.button !== 0 || event.metaKey || event.ctrlKey ||
    event.shiftKey || event.altKey
  ) return;
  if (anchor.target || anchor.origin !== location.origin) return;
  event.preventDefault();
  navigate(anchor.pathname + anchor.search + anchor.hash);
}

/**
 * The profile every page works on. It lives in the URL (`?profile=`), so a
 * reload or a shared link keeps it; the header's switcher changes it, and
 * every REST call and `session.start` passes it on.
 */

import { useEffect, useState } from "preact/hooks";

type Listener = (profile: string) => void;
const listeners = new Set<Listener>();

function fromUrl(): string {
  return new URLSearchParams(location.search).get("profile") ?? "";
}

let current = fromUrl();

/** The selected profile's name, or "" for the server's default (or pinned) profile. */
export function currentProfile(): string {
  return current;
}

/** Selects a profile: the URL's `?profile=` changes and every page reloads its data. */
export function setProfile(name: string): void {
  if (name === current) return;
  current = name;
  const url = new URL(location.href);
  if (name) url.searchParams.set("profile", name);
  else url.searchParams.delete("profile");
  history.pushState(history.state, "", url);
  for (const listener of listeners) listener(name);
}

addEventListener("popstate", () => {
  const next = fromUrl();
  if (next === current) return;
  current = next;
  for (const listener of listeners) listener(next);
});

/** The selected profile, re-rendering the component when it changes. */
export function useProfile(): string {
  const [profile, setState] = useState(current);
  useEffect(() => {
    listeners.add(setState);
    setState(current);
    return () => void listeners.delete(setState);
  }, []);
  return profile;
}

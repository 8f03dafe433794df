/**
 * Whether the server has refused the page's token. Any 401 (REST) or 4401
 * close (WebSocket) flips it, and the app shell then shows the
 * "reopen the URL" screen instead of a page.
 */

type Listener = (refused: boolean) => void;
let refused = false;
const listeners = new Set<Listener>();

/** Marks the token as refused; the app shell re-renders into the token screen. */
export function tokenRefused(): void {
  if (refused) return;
  refused = true;
  for (const listener of listeners) listener(true);
}

/** True once the server refused the token. */
export function isTokenRefused(): boolean {
  return refused;
}

/** Calls `listener` when the token is refused; returns the unsubscribe function. */
export function onTokenRefused(listener: Listener): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

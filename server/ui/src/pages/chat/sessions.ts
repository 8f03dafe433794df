/**
 * What the chat reads over REST: the profile's recent sessions for the
 * side list and the `/resume` picker (`GET /api/sessions?limit=20`), and a
 * resumed session's messages (`GET /api/sessions/:id/messages`).
 */

import { api } from "../../lib/api.ts";
import type { MessageView, SessionView } from "../../../../../core/sessions/views.ts";

/** How many sessions the side list shows. */
export const RECENT_LIMIT = 20;

/** The newest sessions of `profile` ("" for the default). */
export async function recentSessions(
  profile: string,
  signal?: AbortSignal,
): Promise<SessionView[]> {
  const answer = await api<{ sessions: SessionView[] }>("GET", "/api/sessions", {
    query: { limit: RECENT_LIMIT },
    profile,
    signal,
  });
  return answer.sessions;
}

/** The name to show for a session: its title, else its first line, else its id. */
export function sessionLabel(session: Pick<SessionView, "id" | "title" | "preview">): string {
  const first = session.preview?.split("\n")[0]?.trim();
  return session.title || first || session.id;
}

/** When a session was last active, in words: `just now`, `5 min ago`, `3 Jun`. */
export function sinceLabel(at: number, now: number = Date.now()): string {
  const ms = at < 1e12 ? at * 1000 : at;
  const minutes = Math.floor((now - ms) / 60_000);
  if (minutes < 1) return "just now";
  if (minutes < 60) return `${minutes} min ago`;
  const hours = Math.floor(minutes / 60);
  if (hours < 24) return `${hours} h ago`;
  return new Date(ms).toLocaleDateString(undefined, { day: "numeric", month: "short" });
}

/** How many of the newest messages a resumed chat shows. */
export const HISTORY_LIMIT = 200;

/** The newest {@link HISTORY_LIMIT} messages of session `id`, and how many it has. */
export async function loadHistory(
  id: string,
  profile: string,
): Promise<{ messages: MessageView[]; total: number }> {
  return await api<{ messages: MessageView[]; total: number }>(
    "GET",
    `/api/sessions/${encodeURIComponent(id)}/messages`,
    { query: { order: "latest", limit: HISTORY_LIMIT }, profile },
  );
}

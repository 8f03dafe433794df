/**
 * The chat's side list: the profile's recent sessions, the open one
 * marked; choosing one resumes it. On a phone the page shows it
 * as a panel over the chat (ChatPage folds it behind a button).
 */

import { Button, ErrorNote, Loading } from "../../components/ui.tsx";
import { useAsync } from "../../lib/use_async.ts";
import { recentSessions, sessionLabel, sinceLabel } from "./sessions.ts";

/** Props of {@link SessionList}. */
export interface SessionListProps {
  profile: string;
  /** The open session's id, marked in the list. */
  current: string | null;
  /** Changes when the list should be read again. */
  version: number;
  onResume: (id: string) => void;
  /**
   * The open session's first line when it has one: shown as "This chat" while
   * the list does not have the session yet (its first turn still runs).
   */
  openLabel: string | null;
  /** Shown on a phone, where the list is a panel that can be closed. */
  onClose?: () => void;
}

/** Recent sessions to switch to. */
export function SessionList(props: SessionListProps) {
  const { data, error, loading, reload } = useAsync(
    (signal) => recentSessions(props.profile, signal),
    [props.profile],
    // A new version reads the list again over the one on screen.
    [props.version],
  );
  const listed = data?.some((session) => session.id === props.current) ?? false;
  const placeholder = data && props.openLabel !== null && !listed;
  return (
    <nav class="chat-sessions" aria-label="Recent sessions">
      <div class="chat-sessions-head">
        <h2>Sessions</h2>
        {props.onClose && (
          <Button variant="ghost" class="chat-sessions-close" onClick={props.onClose}>
            Close
          </Button>
        )}
      </div>
      {error ? <ErrorNote error={error} onRetry={reload} /> : null}
      {!data && loading && <Loading />}
      {data && data.length === 0 && !placeholder && (
        <p class="muted chat-sessions-empty">No sessions yet.</p>
      )}
      {data && (data.length > 0 || placeholder) && (
        <ul class="chat-sessions-list">
          {placeholder && (
            <li>
              <span
                class="chat-session chat-session-pending current"
                aria-current="true"
                title={props.openLabel!}
              >
                <span class="chat-session-title">{props.openLabel || "This chat"}</span>
                <span class="chat-session-meta muted">This chat · now</span>
              </span>
            </li>
          )}
          {data.map((session) => {
            const label = sessionLabel(session);
            const current = session.id === props.current;
            return (
              <li key={session.id}>
                <button
                  type="button"
                  class={`chat-session${current ? " current" : ""}`}
                  aria-current={current ? "true" : undefined}
                  title={`${label} (${session.id})`}
                  onClick={() => props.onResume(session.id)}
                >
                  <span class="chat-session-title">{label}</span>
                  <span class="chat-session-meta muted">
                    {sinceLabel(session.last_active)} · {session.message_count} msg
                    {session.source !== "dashboard" ? ` · ${session.source}` : ""}
                  </span>
                </button>
              </li>
            );
          })}
        </ul>
      )}
    </nav>
  );
}

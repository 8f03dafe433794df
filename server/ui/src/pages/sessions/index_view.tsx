/**
 * `/sessions`: a search box over every stored message and, without a
 * query, the sessions newest first, a page at a time.
 */

import { useEffect, useRef, useState } from "preact/hooks";
import { api, errorMessage } from "../../lib/api.ts";
import { useProfile } from "../../lib/profile.ts";
import { navigate } from "../../lib/router.ts";
import { Button, Empty, ErrorNote, Link, Loading, PageHeader } from "../../components/ui.tsx";
import { formatFull, formatWhen, sessionName } from "./format.ts";
import { SearchResults } from "./search.tsx";
import type { SessionView } from "../../../../../core/sessions/views.ts";

const PAGE = 50;

/** The list of sessions with the search box above it; `query` comes from `?q=`. */
export function SessionIndex(props: { query: string }) {
  const [text, setText] = useState(props.query);
  useEffect(() => setText(props.query), [props.query]);
  const submit = (event: Event) => {
    event.preventDefault();
    const q = text.trim();
    navigate(q ? `/sessions?q=${encodeURIComponent(q)}` : "/sessions");
  };
  return (
    <section class="page sessions-page">
      <PageHeader title="Sessions" />
      <form class="sessions-search" role="search" onSubmit={submit}>
        <input
          type="search"
          name="q"
          aria-label="Search sessions"
          placeholder="Search every message: words, &quot;a phrase&quot;, prefix*"
          value={text}
          onInput={(event) => setText((event.currentTarget as HTMLInputElement).value)}
        />
        <Button type="submit" variant="primary">Search</Button>
        {props.query && <Button onClick={() => navigate("/sessions")}>Clear</Button>}
      </form>
      {props.query ? <SearchResults query={props.query} /> : <SessionList />}
    </section>
  );
}

/** The profile's sessions, newest first, with "Show more". */
function SessionList() {
  const profile = useProfile();
  const [sessions, setSessions] = useState<SessionView[]>([]);
  const [state, setState] = useState<"loading" | "idle" | "done">("loading");
  const [error, setError] = useState<unknown>();
  const [attempt, setAttempt] = useState(0);
  // Answers for an older profile (or an older retry) are dropped.
  const generation = useRef(0);

  const load = async (offset: number, signal?: AbortSignal) => {
    const mine = generation.current;
    setState("loading");
    setError(undefined);
    try {
      const answer = await api<{ sessions: SessionView[] }>("GET", "/api/sessions", {
        query: { limit: PAGE, offset },
        signal,
      });
      if (mine !== generation.current) return;
      setSessions((before) => offset === 0 ? answer.sessions : [...before, ...answer.sessions]);
      setState(answer.sessions.length < PAGE ? "done" : "idle");
    } catch (caught) {
      if ((caught as Error).name === "AbortError" || mine !== generation.current) return;
      setError(caught);
      setState("idle");
    }
  };
  useEffect(() => {
    const controller = new AbortController();
    generation.current++;
    setSessions([]);
    load(0, controller.signal);
    return () => controller.abort();
  }, [profile, attempt]);

  if (error && sessions.length === 0) {
    return <ErrorNote error={error} onRetry={() => setAttempt((n) => n + 1)} />;
  }
  if (state === "loading" && sessions.length === 0) return <Loading label="Loading sessions…" />;
  if (sessions.length === 0) {
    return (
      <Empty>
        No sessions yet. <Link href="/chat">Start a chat</Link>; every conversation is kept here.
      </Empty>
    );
  }
  return (
    <>
      <ul class="list sessions-list" aria-label="Sessions">
        {sessions.map((session) => <SessionRow key={session.id} session={session} />)}
      </ul>
      {error !== undefined && <p class="note note-error" role="alert">{errorMessage(error)}</p>}
      {state !== "done" && (
        <div class="sessions-more">
          <Button disabled={state === "loading"} onClick={() => load(sessions.length)}>
            {state === "loading" ? "Loading…" : "Show more"}
          </Button>
        </div>
      )}
    </>
  );
}

function SessionRow(props: { session: SessionView }) {
  const { session } = props;
  const name = sessionName(session);
  return (
    <li>
      <Link href={`/sessions/${encodeURIComponent(session.id)}`} class="sessions-row">
        <span class="sessions-row-title">{name}</span>
        {session.title && session.preview && session.preview !== session.title && (
          <span class="sessions-row-preview muted">{session.preview}</span>
        )}
        <span class="sessions-row-meta muted">
          <span class="sessions-source">{session.source}</span>
          <span>
            {session.message_count} message{session.message_count === 1 ? "" : "s"}
          </span>
          <time
            dateTime={new Date(session.last_active).toISOString()}
            title={formatFull(session.last_active)}
          >
            {formatWhen(session.last_active)}
          </time>
        </span>
      </Link>
    </li>
  );
}

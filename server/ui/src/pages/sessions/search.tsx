/**
 * Search results: each session found, with its matching message in
 * context (the messages around it) and the session's bookends (its first
 * and last exchanges), the discovery shape of the agent's `session_search`.
 * "Open at the match" opens the session scrolled to the matching message.
 */

import { api } from "../../lib/api.ts";
import { useProfile } from "../../lib/profile.ts";
import { useAsync } from "../../lib/use_async.ts";
import { Empty, ErrorNote, Link, Loading } from "../../components/ui.tsx";
import { excerpt, formatFull, formatWhen, plainText, queryTerms, roleLabel } from "./format.ts";
import { Highlight } from "./highlight.tsx";
import type {
  DiscoveryHit,
  SearchMessage,
  SessionSearchResult,
} from "../../../../../core/sessions/views.ts";

/** `GET /api/sessions/search` with a query: the discovery shape. */
type SearchAnswer = Extract<SessionSearchResult, { shape: "discovery" }>;

/** Characters of a message shown in a result (the match gets more). */
const CONTEXT_CHARS = 240;
const MATCH_CHARS = 600;

/** The sessions whose messages match `query`. */
export function SearchResults(props: { query: string }) {
  const profile = useProfile();
  const { data, error, loading, reload } = useAsync(
    (signal) =>
      api<SearchAnswer>("GET", "/api/sessions/search", {
        query: { q: props.query, limit: 10, detail: "full" },
        signal,
      }),
    [props.query, profile],
  );
  if (error) return <ErrorNote error={error} onRetry={reload} />;
  if (loading || !data) return <Loading label="Searching…" />;
  if (data.results.length === 0) {
    return <Empty>No message matches “{props.query}”. Try fewer or other words, or prefix*.</Empty>;
  }
  const terms = queryTerms(props.query);
  return (
    <>
      <p class="muted sessions-count" role="status">
        {data.count === 1 ? "1 session matches" : `${data.count} sessions match`} “{props.query}”
        {data.count === 10 ? " (the 10 best)" : ""}
        {data.omitted ? `; ${data.omitted} more left out to keep the answer small` : ""}
      </p>
      <ol class="sessions-hits" aria-label="Search results">
        {data.results.map((hit) => <HitCard key={hit.session_id} hit={hit} terms={terms} />)}
      </ol>
    </>
  );
}

function HitCard(props: { hit: DiscoveryHit; terms: string[] }) {
  const { hit, terms } = props;
  const open = `/sessions/${encodeURIComponent(hit.session_id)}?around=${hit.match_message_id}`;
  // A bookend message that is also in the window (or in both bookends) is shown once.
  const shown = new Set(hit.messages.map((message) => message.id));
  const start = hit.bookend_start.filter((message) => !shown.has(message.id));
  for (const message of start) shown.add(message.id);
  const end = hit.bookend_end.filter((message) => !shown.has(message.id));
  const name = hit.title || hit.session_id;
  return (
    <li class="card sessions-hit">
      <div class="sessions-hit-head">
        <h2>
          <Link href={open}>{name}</Link>
        </h2>
        <span class="muted sessions-hit-meta">
          <span class="sessions-source">{hit.source}</span>
          <time dateTime={hit.started_at} title={formatFull(hit.started_at)}>
            {formatWhen(hit.started_at)}
          </time>
        </span>
        <Link
          href={open}
          class="btn btn-primary sessions-open"
          aria-label={`Open “${name}” at the match`}
        >
          Open at the match
        </Link>
      </div>
      {start.length > 0 && <Bookend label="How it started" messages={start} terms={terms} />}
      <ol class="sessions-window" aria-label="The match and the messages around it">
        {hit.messages.map((message) => (
          <HitMessage
            key={message.id}
            message={message}
            terms={terms}
            match={message.id === hit.match_message_id}
          />
        ))}
      </ol>
      {end.length > 0 && <Bookend label="How it ended" messages={end} terms={terms} />}
    </li>
  );
}

function Bookend(props: { label: string; messages: SearchMessage[]; terms: string[] }) {
  return (
    <div class="sessions-bookend">
      <div class="sessions-bookend-label muted">{props.label}</div>
      <ol aria-label={props.label}>
        {props.messages.map((message) => (
          <HitMessage key={message.id} message={message} terms={props.terms} match={false} />
        ))}
      </ol>
    </div>
  );
}

function HitMessage(props: { message: SearchMessage; terms: string[]; match: boolean }) {
  const { message, terms, match } = props;
  // What people and the model wrote is Markdown, shown as the text it reads as; tool output as is.
  const content = message.content ?? "";
  const text = excerpt(
    message.role === "tool" ? content : plainText(content),
    terms,
    match ? MATCH_CHARS : CONTEXT_CHARS,
  );
  return (
    <li
      class={`sessions-hit-msg role-${message.role}${match ? " is-match" : ""}`}
      aria-current={match ? "true" : undefined}
    >
      <span class="sessions-hit-role">{roleLabel(message.role, message.tool_name)}</span>
      <span class="sessions-hit-text">
        {text ? <Highlight text={text} terms={terms} /> : <em class="muted">(no text)</em>}
        {message.truncated && (
          <span class="muted sessions-cut" title="Shortened to fit the search result">
            {" "}(shortened)
          </span>
        )}
      </span>
    </li>
  );
}

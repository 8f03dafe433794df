/**
 * `/sessions/<id>`: one session: its title and facts, the actions (continue
 * in chat, rename, export, delete) and its messages, opened at the start or
 * (`?around=<message id>`) centred on one message.
 */

import { api, ApiError } from "../../lib/api.ts";
import { useProfile } from "../../lib/profile.ts";
import { useAsync } from "../../lib/use_async.ts";
import { useState } from "preact/hooks";
import { Button, Empty, ErrorNote, Link, Loading, toast } from "../../components/ui.tsx";
import { formatFull, formatWhen, sessionName } from "./format.ts";
import { MESSAGE_PAGE, MessageList } from "./messages.tsx";
import { DeleteDialog, RenameDialog } from "./dialogs.tsx";
import { exportSession } from "./export.ts";
import type { SessionView } from "../../../../../core/sessions/views.ts";
import type { MessagesPage } from "../../../../../core/usecases/sessions.ts";

/** What the page loads first: the summary and the first page of messages. */
interface Opened {
  session: SessionView;
  page: MessagesPage;
  /** The message to open at is not in the session (any more). */
  lost: boolean;
}

/** One session; `around` is the message to open at. */
export function SessionDetail(props: { id: string; around?: number }) {
  const profile = useProfile();
  const path = `/api/sessions/${encodeURIComponent(props.id)}`;
  const { data, error, loading, reload } = useAsync<Opened>(async (signal) => {
    const firstPage = (around?: number) =>
      api<MessagesPage>("GET", `${path}/messages`, {
        query: { limit: MESSAGE_PAGE, offset: 0, around },
        signal,
      });
    const [summary, opened] = await Promise.all([
      api<{ session: SessionView }>("GET", path, { signal }),
      firstPage(props.around).then(
        (page) => ({ page, lost: false }),
        async (failed) => {
          // A link to a message the session no longer has opens at the start.
          if (!(failed instanceof ApiError) || failed.code !== "message_not_in_session") {
            throw failed;
          }
          return { page: await firstPage(), lost: true };
        },
      ),
    ]);
    return { session: summary.session, ...opened };
  }, [props.id, props.around, profile]);
  const [session, setSession] = useState<SessionView>();
  const [dialog, setDialog] = useState<"rename" | "delete">();
  const shown = session?.id === props.id ? session : data?.session;

  return (
    <section class="page sessions-detail">
      <Link href="/sessions" class="sessions-back">← Sessions</Link>
      {error !== undefined && <ErrorNote error={error} onRetry={reload} />}
      {loading && !data && <Loading label="Opening the session…" />}
      {data && shown && (
        <>
          <div class="page-header sessions-detail-head">
            <div class="sessions-detail-title">
              <h1>{sessionName(shown)}</h1>
              <p class="muted sessions-facts">
                <span class="sessions-source">{shown.source}</span>
                {shown.model && <span>{shown.model}</span>}
                <span>
                  {shown.message_count} message{shown.message_count === 1 ? "" : "s"}
                </span>
                <span title={formatFull(shown.started_at)}>
                  started {formatWhen(shown.started_at)}
                </span>
              </p>
            </div>
            <div class="page-actions">
              <Link
                href={`/chat/${encodeURIComponent(shown.id)}`}
                class="btn btn-primary"
              >
                Continue in chat
              </Link>
              <Button onClick={() => setDialog("rename")}>Rename</Button>
              <Button
                onClick={() =>
                  exportSession(shown.id).then(
                    (name) => toast(`Exported to ${name}`),
                    (failed) => toast(`Export failed: ${(failed as Error).message}`, "error"),
                  )}
              >
                Export
              </Button>
              <Button variant="danger" onClick={() => setDialog("delete")}>Delete</Button>
            </div>
          </div>
          {data.lost && (
            <p class="note note-warn" role="status">
              Message {props.around} is not in this session any more; it opens at the start.
            </p>
          )}
          {data.page.total === 0 ? <Empty>This session has no messages.</Empty> : (
            <MessageList
              key={`${profile}/${props.id}/${props.around ?? ""}`}
              sessionId={props.id}
              initial={data.page}
              target={data.lost ? undefined : props.around}
            />
          )}
          {dialog === "rename" && (
            <RenameDialog
              session={shown}
              onClose={() => setDialog(undefined)}
              onRenamed={(renamed) => {
                setSession(renamed);
                setDialog(undefined);
                toast(`Renamed to “${renamed.title}”`);
              }}
            />
          )}
          {dialog === "delete" && (
            <DeleteDialog
              session={shown}
              onClose={() => setDialog(undefined)}
            />
          )}
        </>
      )}
    </section>
  );
}

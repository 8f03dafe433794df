/**
 * A task's drawer on the Kanban page: its body, the tasks it waits for
 * and those waiting for it, comments (with a box to add one), runs and
 * events; the task's title, body, priority and assignee can be edited,
 * and it can be moved to another column from here too (the keyboard's way
 * to do what dragging does). It loads again whenever the board changes.
 */

import { useEffect, useRef, useState } from "preact/hooks";
import { useAsync } from "../lib/use_async.ts";
import { errorMessage } from "../lib/api.ts";
import { Button, ErrorNote, FormActions, Loading, toast } from "../components/ui.tsx";
import {
  addComment,
  changeTask,
  COLUMN_LABELS,
  formatTime,
  type KanbanCard,
  loadTask,
  type RosterProfile,
  type TaskDetail,
  type TaskStatus,
} from "./kanban_api.ts";
import { TaskFields, type TaskFieldValues } from "./kanban_fields.tsx";

const STATUSES = Object.keys(COLUMN_LABELS) as TaskStatus[];

/** The drawer of the task `id`. */
export function TaskDrawer(props: {
  id: string;
  /** Changes when the board does: the task loads again. */
  version: number;
  /** The board's cards, to name the linked tasks. */
  cards: Map<string, KanbanCard>;
  roster: RosterProfile[];
  decomposing: boolean;
  onOpen: (id: string) => void;
  onClose: () => void;
  onDecompose: (id: string, title: string) => void;
  onChanged: () => void;
}) {
  const detail = useAsync((signal) => loadTask(props.id, signal), [props.id], [props.version]);
  const [editing, setEditing] = useState(false);
  const panel = useRef<HTMLElement>(null);
  useEffect(() => panel.current?.focus(), []);
  const task = detail.data?.task;
  const title = task ? `Task ${task.title}` : `Task ${props.id}`;

  const move = async (to: TaskStatus) => {
    try {
      await changeTask(props.id, { status: to });
      props.onChanged();
      detail.reload();
    } catch (error) {
      toast(`Cannot move "${task?.title ?? props.id}": ${errorMessage(error)}`, "error");
    }
  };

  return (
    <aside
      class="kanban-drawer"
      aria-label={title}
      ref={panel}
      tabIndex={-1}
      onKeyDown={(event) => {
        if (event.key === "Escape" && !editing) props.onClose();
      }}
    >
      <div class="kanban-drawer-head">
        <h2>{task?.title ?? props.id}</h2>
        <Button variant="ghost" aria-label="Close the task" onClick={props.onClose}>✕</Button>
      </div>
      {detail.error !== undefined && <ErrorNote error={detail.error} onRetry={detail.reload} />}
      {!detail.data && detail.error === undefined && <Loading />}
      {detail.data && task && (
        <>
          {editing
            ? (
              <EditForm
                detail={detail.data}
                roster={props.roster}
                onCancel={() => setEditing(false)}
                onSaved={() => {
                  setEditing(false);
                  props.onChanged();
                  detail.reload();
                }}
              />
            )
            : (
              <>
                <dl class="kanban-facts">
                  <dt>Id</dt>
                  <dd>
                    <code>{task.id}</code>
                  </dd>
                  <dt>
                    <label for="kanban-move">Status</label>
                  </dt>
                  <dd>
                    <select
                      id="kanban-move"
                      value={task.status}
                      onChange={(event) =>
                        move((event.currentTarget as HTMLSelectElement).value as TaskStatus)}
                    >
                      {STATUSES.map((status) => (
                        <option key={status} value={status}>{COLUMN_LABELS[status]}</option>
                      ))}
                    </select>
                  </dd>
                  <dt>Assignee</dt>
                  <dd>{task.assignee}</dd>
                  <dt>Priority</dt>
                  <dd>{task.priority}</dd>
                  {task.created_by && (
                    <>
                      <dt>Created by</dt>
                      <dd>{task.created_by}</dd>
                    </>
                  )}
                  <dt>Updated</dt>
                  <dd>{formatTime(task.updated_at)}</dd>
                </dl>
                <div class="kanban-drawer-actions">
                  <Button onClick={() => setEditing(true)}>Edit</Button>
                  {task.status === "triage" && (
                    <Button
                      variant="primary"
                      disabled={props.decomposing}
                      onClick={() => props.onDecompose(task.id, task.title)}
                    >
                      {props.decomposing ? "Decomposing…" : "Decompose"}
                    </Button>
                  )}
                </div>
                {task.body
                  ? <p class="kanban-body">{task.body}</p>
                  : <p class="muted">No description.</p>}
                {task.result && (
                  <section aria-label="Result">
                    <h3>Result</h3>
                    <p class="kanban-body">{task.result}</p>
                  </section>
                )}
              </>
            )}
          <Links
            label="Waits for"
            ids={detail.data.parents}
            cards={props.cards}
            onOpen={props.onOpen}
          />
          <Links
            label="Waited on by"
            ids={detail.data.children}
            cards={props.cards}
            onOpen={props.onOpen}
          />
          <Comments detail={detail.data} onAdded={detail.reload} />
          <Runs detail={detail.data} />
          <Events detail={detail.data} />
        </>
      )}
    </aside>
  );
}

function Links(props: {
  label: string;
  ids: string[];
  cards: Map<string, KanbanCard>;
  onOpen: (id: string) => void;
}) {
  if (props.ids.length === 0) return null;
  return (
    <section aria-label={props.label}>
      <h3>{props.label}</h3>
      <ul class="kanban-links">
        {props.ids.map((id) => {
          const card = props.cards.get(id);
          return (
            <li key={id}>
              <button type="button" class="kanban-link" onClick={() => props.onOpen(id)}>
                {card?.title ?? id}
              </button>
              {card && <span class="muted">{COLUMN_LABELS[card.status]}</span>}
            </li>
          );
        })}
      </ul>
    </section>
  );
}

function Comments(props: { detail: TaskDetail; onAdded: () => void }) {
  const [text, setText] = useState("");
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>();
  const submit = async (event: Event) => {
    event.preventDefault();
    if (text.trim() === "") return;
    setBusy(true);
    setError(undefined);
    try {
      await addComment(props.detail.task.id, text);
      setText("");
      props.onAdded();
    } catch (caught) {
      setError(caught);
    } finally {
      setBusy(false);
    }
  };
  return (
    <section aria-label="Comments">
      <h3>Comments</h3>
      {props.detail.comments.length === 0 && <p class="muted">No comments yet.</p>}
      <ul class="kanban-comments">
        {props.detail.comments.map((comment) => (
          <li key={comment.id}>
            <div class="kanban-comment-head">
              <strong>{comment.author}</strong>
              <span class="muted">{formatTime(comment.created_at)}</span>
            </div>
            <p class="kanban-body">{comment.body}</p>
          </li>
        ))}
      </ul>
      <form class="kanban-comment-form" onSubmit={submit} aria-label="New comment">
        <label for="kanban-comment" class="visually-hidden">Add a comment</label>
        <textarea
          id="kanban-comment"
          rows={2}
          placeholder="Add a comment"
          value={text}
          onInput={(event) => setText((event.currentTarget as HTMLTextAreaElement).value)}
        />
        {error !== undefined && <p class="field-error" role="alert">{errorMessage(error)}</p>}
        <Button type="submit" disabled={busy || text.trim() === ""}>
          {busy ? "Adding…" : "Comment"}
        </Button>
      </form>
    </section>
  );
}

function Runs(props: { detail: TaskDetail }) {
  if (props.detail.runs.length === 0) return null;
  return (
    <section aria-label="Runs">
      <h3>Runs</h3>
      <ul class="kanban-log">
        {props.detail.runs.map((run) => (
          <li key={run.id}>
            <span>{formatTime(run.started_at)}</span>
            <span class={`kanban-outcome-${run.outcome ?? "running"}`}>
              {run.outcome ?? "running"}
            </span>
            {run.error && <span class="muted">{run.error}</span>}
          </li>
        ))}
      </ul>
    </section>
  );
}

/** An event's payload in a few words. */
function payloadText(payload: Record<string, unknown> | null): string {
  if (!payload) return "";
  return Object.entries(payload)
    .filter(([, value]) => value !== null && value !== undefined && typeof value !== "object")
    .map(([key, value]) => `${key}: ${String(value)}`)
    .join(", ")
    .slice(0, 160);
}

function Events(props: { detail: TaskDetail }) {
  const events = [...props.detail.events].reverse().slice(0, 50);
  return (
    <section aria-label="Events">
      <h3>Events</h3>
      <ul class="kanban-log">
        {events.map((event) => (
          <li key={event.seq}>
            <span class="muted">{formatTime(event.at)}</span>
            <strong>{event.kind}</strong>
            <span class="muted">{payloadText(event.payload)}</span>
          </li>
        ))}
      </ul>
    </section>
  );
}

function EditForm(props: {
  detail: TaskDetail;
  roster: RosterProfile[];
  onCancel: () => void;
  onSaved: () => void;
}) {
  const { task } = props.detail;
  const [fields, setFields] = useState<TaskFieldValues>({
    title: task.title,
    body: task.body,
    assignee: task.assignee,
    priority: String(task.priority),
  });
  const { title, body, priority, assignee } = fields;
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>();
  const names = props.roster.map((profile) => profile.name);
  const submit = async (event: Event) => {
    event.preventDefault();
    setBusy(true);
    setError(undefined);
    try {
      await changeTask(task.id, {
        ...(title !== task.title ? { title } : {}),
        ...(body !== task.body ? { body } : {}),
        ...(Number(priority) !== task.priority ? { priority: Number(priority) } : {}),
        ...(assignee !== task.assignee ? { assignee } : {}),
      });
      props.onSaved();
    } catch (caught) {
      setError(caught);
      setBusy(false);
    }
  };
  const changed = title !== task.title || body !== task.body ||
    Number(priority) !== task.priority || assignee !== task.assignee;
  return (
    <form class="kanban-edit" onSubmit={submit} aria-label="Edit the task">
      <TaskFields
        idPrefix="kanban-edit"
        values={fields}
        onChange={setFields}
        assignees={(names.includes(task.assignee) ? names : [task.assignee, ...names])
          .map((name) => ({ value: name, label: name }))}
        bodyRows={5}
        priorityFirst
      />
      {error !== undefined && <ErrorNote error={error} />}
      <FormActions
        label="Save"
        busyLabel="Saving…"
        busy={busy}
        disabled={!changed || title.trim() === ""}
        onCancel={props.onCancel}
      />
    </form>
  );
}

/** The Sessions page's dialogs: rename a session, and confirm deleting one. */

import { useState } from "preact/hooks";
import { api, ApiError, errorMessage } from "../../lib/api.ts";
import { navigate } from "../../lib/router.ts";
import { Button, Dialog, Link, toast } from "../../components/ui.tsx";
import { sessionName } from "./format.ts";
import type { SessionSummary } from "./types.ts";

/**
 * Asks for a new title and saves it (`PATCH /api/sessions/:id`); a title
 * another session has, or one the server refuses, is shown at the field.
 */
export function RenameDialog(props: {
  session: SessionSummary;
  onClose: () => void;
  onRenamed: (session: SessionSummary) => void;
}) {
  const [title, setTitle] = useState(props.session.title ?? "");
  const [error, setError] = useState<unknown>();
  const [saving, setSaving] = useState(false);
  const submit = async (event: Event) => {
    event.preventDefault();
    setSaving(true);
    setError(undefined);
    try {
      const answer = await api<{ session: SessionSummary }>(
        "PATCH",
        `/api/sessions/${encodeURIComponent(props.session.id)}`,
        { body: { title } },
      );
      props.onRenamed(answer.session);
    } catch (caught) {
      setError(caught);
      setSaving(false);
    }
  };
  const other = error instanceof ApiError && error.code === "session_title_taken"
    ? String(error.details.session_id ?? "")
    : "";
  return (
    <Dialog title="Rename the session" onClose={props.onClose}>
      <form onSubmit={submit}>
        <label class="field">
          <span>Title</span>
          <input
            type="text"
            value={title}
            maxLength={200}
            autoFocus
            aria-invalid={error !== undefined}
            aria-describedby="sessions-rename-hint sessions-rename-error"
            onInput={(event) => setTitle((event.currentTarget as HTMLInputElement).value)}
          />
        </label>
        <p id="sessions-rename-hint" class="field-hint sessions-hint">
          Unique in this profile, one line, at most 100 characters.
        </p>
        {error !== undefined && (
          <p id="sessions-rename-error" class="sessions-field-error" role="alert">
            {errorMessage(error)}
            {other && (
              <>
                {" "}
                <Link href={`/sessions/${encodeURIComponent(other)}`}>
                  Open that session
                </Link>
              </>
            )}
          </p>
        )}
        <div class="dialog-actions">
          <Button onClick={props.onClose}>Cancel</Button>
          <Button type="submit" variant="primary" disabled={saving}>
            {saving ? "Saving…" : "Save"}
          </Button>
        </div>
      </form>
    </Dialog>
  );
}

/** Asks before deleting a session, then deletes it and goes back to the list. */
export function DeleteDialog(props: { session: SessionSummary; onClose: () => void }) {
  const [error, setError] = useState<unknown>();
  const [deleting, setDeleting] = useState(false);
  const name = sessionName(props.session);
  const confirm = async () => {
    setDeleting(true);
    try {
      await api("DELETE", `/api/sessions/${encodeURIComponent(props.session.id)}`);
      toast(`Deleted “${name}”`);
      props.onClose();
      navigate("/sessions");
    } catch (caught) {
      setError(caught);
      setDeleting(false);
    }
  };
  const count = props.session.message_count;
  return (
    <Dialog title="Delete the session?" onClose={props.onClose}>
      <p>
        “{name}” and its {count}{" "}
        message{count === 1 ? "" : "s"}, transcript and request dumps are removed for good. Export
        it first to keep a copy.
      </p>
      {error !== undefined && <p class="sessions-field-error" role="alert">{errorMessage(error)}
      </p>}
      <div class="dialog-actions">
        <Button onClick={props.onClose} autoFocus>Cancel</Button>
        <Button variant="danger" onClick={confirm} disabled={deleting}>
          {deleting ? "Deleting…" : "Delete session"}
        </Button>
      </div>
    </Dialog>
  );
}

/** The Sessions page's dialogs: rename a session, and confirm deleting one. */

import { useState } from "preact/hooks";
import { api, ApiError, errorMessage } from "../../lib/api.ts";
import { navigate } from "../../lib/router.ts";
import { MAX_SESSION_TITLE_CHARS } from "../../../../../core/sessions/titles.ts";
import type { SessionView } from "../../../../../core/sessions/views.ts";
import {
  ConfirmDialog,
  Dialog,
  Field,
  fieldErrorId,
  fieldHintId,
  FormActions,
  Link,
  toast,
} from "../../components/ui.tsx";
import { sessionName } from "./format.ts";

/**
 * Asks for a new title and saves it (`PATCH /api/sessions/:id`); a title
 * another session has, or one the server refuses, is shown at the field.
 */
export function RenameDialog(props: {
  session: SessionView;
  onClose: () => void;
  onRenamed: (session: SessionView) => void;
}) {
  const [title, setTitle] = useState(props.session.title ?? "");
  const [error, setError] = useState<unknown>();
  const [saving, setSaving] = useState(false);
  const submit = async (event: Event) => {
    event.preventDefault();
    setSaving(true);
    setError(undefined);
    try {
      const answer = await api<{ session: SessionView }>(
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
        <Field
          id="sessions-rename"
          label="Title"
          hint={`Unique in this profile, one line, at most ${MAX_SESSION_TITLE_CHARS} characters.`}
          error={error !== undefined && (
            <>
              {errorMessage(error)}
              {other && (
                <>
                  {" "}
                  <Link href={`/sessions/${encodeURIComponent(other)}`}>Open that session</Link>
                </>
              )}
            </>
          )}
        >
          <input
            id="sessions-rename"
            type="text"
            value={title}
            maxLength={MAX_SESSION_TITLE_CHARS}
            autoFocus
            aria-invalid={error !== undefined}
            aria-describedby={`${fieldHintId("sessions-rename")} ${
              fieldErrorId("sessions-rename")
            }`}
            onInput={(event) => setTitle((event.currentTarget as HTMLInputElement).value)}
          />
        </Field>
        <FormActions label="Save" busyLabel="Saving…" busy={saving} onCancel={props.onClose} />
      </form>
    </Dialog>
  );
}

/** Asks before deleting a session, then deletes it and goes back to the list. */
export function DeleteDialog(props: { session: SessionView; onClose: () => void }) {
  const name = sessionName(props.session);
  const count = props.session.message_count;
  return (
    <ConfirmDialog
      title="Delete the session?"
      confirmLabel="Delete session"
      busyLabel="Deleting…"
      danger
      onConfirm={async () => {
        await api("DELETE", `/api/sessions/${encodeURIComponent(props.session.id)}`);
        toast(`Deleted “${name}”`);
        navigate("/sessions");
      }}
      onClose={props.onClose}
    >
      <p>
        “{name}” and its {count}{" "}
        message{count === 1 ? "" : "s"}, transcript and request dumps are removed for good. Export
        it first to keep a copy.
      </p>
    </ConfirmDialog>
  );
}

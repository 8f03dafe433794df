/**
 * The Kanban page's "New task" form: a title, a description, who does it
 * (or the board's fallback), a priority, and whether it starts in triage
 * for the decomposer to split.
 */

import { useState } from "preact/hooks";
import { Dialog, ErrorNote, Field, FormActions } from "../components/ui.tsx";
import { createTask, type RosterProfile, type TaskRecord } from "./kanban_api.ts";

/** The dialog; `onCreated` gets the new task. */
export function NewTaskDialog(props: {
  board: string;
  roster: RosterProfile[];
  /** Who a task without an assignee goes to. */
  defaultAssignee?: string;
  onClose: () => void;
  onCreated: (task: TaskRecord) => void;
}) {
  const [title, setTitle] = useState("");
  const [body, setBody] = useState("");
  const [assignee, setAssignee] = useState("");
  const [priority, setPriority] = useState("0");
  const [triage, setTriage] = useState(false);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>();

  const submit = async (event: Event) => {
    event.preventDefault();
    setBusy(true);
    setError(undefined);
    try {
      const task = await createTask(props.board, {
        title,
        ...(body.trim() ? { body } : {}),
        ...(assignee ? { assignee } : {}),
        ...(Number(priority) ? { priority: Number(priority) } : {}),
        ...(triage ? { triage: true } : {}),
      });
      props.onCreated(task);
    } catch (caught) {
      setError(caught);
      setBusy(false);
    }
  };

  return (
    <Dialog title="New task" onClose={props.onClose} class="kanban-new-dialog">
      <form onSubmit={submit} aria-label="New task">
        <Field id="kanban-new-title" label="Title">
          <input
            id="kanban-new-title"
            type="text"
            required
            maxLength={500}
            autoFocus
            value={title}
            onInput={(event) => setTitle((event.currentTarget as HTMLInputElement).value)}
          />
        </Field>
        <Field id="kanban-new-body" label="Description">
          <textarea
            id="kanban-new-body"
            rows={4}
            value={body}
            onInput={(event) => setBody((event.currentTarget as HTMLTextAreaElement).value)}
          />
        </Field>
        <div class="kanban-edit-row">
          <Field id="kanban-new-assignee" label="Assignee">
            <select
              id="kanban-new-assignee"
              value={assignee}
              onChange={(event) => setAssignee((event.currentTarget as HTMLSelectElement).value)}
            >
              <option value="">
                Default{props.defaultAssignee ? ` (${props.defaultAssignee})` : ""}
              </option>
              {props.roster.map((profile) => (
                <option key={profile.name} value={profile.name}>{profile.name}</option>
              ))}
            </select>
          </Field>
          <Field id="kanban-new-priority" label="Priority">
            <input
              id="kanban-new-priority"
              type="number"
              step={1}
              value={priority}
              onInput={(event) => setPriority((event.currentTarget as HTMLInputElement).value)}
            />
          </Field>
        </div>
        <Field
          id="kanban-new-triage"
          label="Triage"
          inlineLabel
          hint="A triage task waits for the decomposer to split it into smaller tasks."
        >
          <label class="kanban-check">
            <input
              id="kanban-new-triage"
              type="checkbox"
              checked={triage}
              onChange={(event) => setTriage((event.currentTarget as HTMLInputElement).checked)}
            />{" "}
            Start in triage
          </label>
        </Field>
        {error !== undefined && <ErrorNote error={error} />}
        <FormActions
          label="Create task"
          busyLabel="Creating…"
          busy={busy}
          disabled={title.trim() === ""}
          onCancel={props.onClose}
        />
      </form>
    </Dialog>
  );
}

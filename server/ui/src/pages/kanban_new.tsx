/**
 * The Kanban page's "New task" form: a title, a description, who does it
 * (or the board's fallback), a priority, and whether it starts in triage
 * for the decomposer to split.
 */

import { useState } from "preact/hooks";
import { Dialog, ErrorNote, Field, FormActions } from "../components/ui.tsx";
import { createTask, type RosterProfile, type TaskRecord } from "./kanban_api.ts";
import { TaskFields, type TaskFieldValues } from "./kanban_fields.tsx";

/** The dialog; `onCreated` gets the new task. */
export function NewTaskDialog(props: {
  board: string;
  roster: RosterProfile[];
  /** Who a task without an assignee goes to. */
  defaultAssignee?: string;
  onClose: () => void;
  onCreated: (task: TaskRecord) => void;
}) {
  const [fields, setFields] = useState<TaskFieldValues>({
    title: "",
    body: "",
    assignee: "",
    priority: "0",
  });
  const { title, body, assignee, priority } = fields;
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
        <TaskFields
          idPrefix="kanban-new"
          values={fields}
          onChange={setFields}
          assignees={[
            {
              value: "",
              label: `Default${props.defaultAssignee ? ` (${props.defaultAssignee})` : ""}`,
            },
            ...props.roster.map((profile) => ({ value: profile.name, label: profile.name })),
          ]}
          bodyRows={4}
          autoFocus
        />
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

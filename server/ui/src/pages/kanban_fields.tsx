/**
 * A task's fields as the Kanban page's forms show them (the "New task"
 * dialog and the drawer's edit form): title, description, assignee and
 * priority.
 */

import { Field } from "../components/ui.tsx";

/** What the fields hold, as typed (the priority is the input's text). */
export interface TaskFieldValues {
  title: string;
  body: string;
  assignee: string;
  priority: string;
}

/** One choice of the assignee select. */
export interface AssigneeChoice {
  value: string;
  label: string;
}

/** The fields; `onChange` is the form's state setter (`useState`'s second half). */
export function TaskFields(props: {
  /** Prefixes each control's id: `<idPrefix>-title`, `-body`, `-assignee`, `-priority`. */
  idPrefix: string;
  values: TaskFieldValues;
  onChange: (update: (previous: TaskFieldValues) => TaskFieldValues) => void;
  assignees: AssigneeChoice[];
  /** The description's height in lines. */
  bodyRows: number;
  autoFocus?: boolean;
  /** The priority before the assignee on their shared row. */
  priorityFirst?: boolean;
}) {
  const id = (name: keyof TaskFieldValues) => `${props.idPrefix}-${name}`;
  const text = (event: Event) => (event.currentTarget as HTMLInputElement).value;
  const change = (patch: Partial<TaskFieldValues>) =>
    props.onChange((previous) => ({ ...previous, ...patch }));
  const assignee = (
    <Field id={id("assignee")} label="Assignee">
      <select
        id={id("assignee")}
        value={props.values.assignee}
        onChange={(event) => change({ assignee: text(event) })}
      >
        {props.assignees.map((choice) => (
          <option key={choice.value} value={choice.value}>{choice.label}</option>
        ))}
      </select>
    </Field>
  );
  const priority = (
    <Field id={id("priority")} label="Priority">
      <input
        id={id("priority")}
        type="number"
        step={1}
        value={props.values.priority}
        onInput={(event) => change({ priority: text(event) })}
      />
    </Field>
  );
  return (
    <>
      <Field id={id("title")} label="Title">
        <input
          id={id("title")}
          type="text"
          required
          maxLength={500}
          autoFocus={props.autoFocus}
          value={props.values.title}
          onInput={(event) => change({ title: text(event) })}
        />
      </Field>
      <Field id={id("body")} label="Description">
        <textarea
          id={id("body")}
          rows={props.bodyRows}
          value={props.values.body}
          onInput={(event) => change({ body: text(event) })}
        />
      </Field>
      <div class="kanban-edit-row">
        {props.priorityFirst ? <>{priority}{assignee}</> : <>{assignee}{priority}</>}
      </div>
    </>
  );
}

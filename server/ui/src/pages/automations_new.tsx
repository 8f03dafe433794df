/**
 * The plain "New job" form of the Automations page, for people who do
 * not want a blueprint: a schedule as typed, a prompt, where the output
 * goes and an optional name. A refused field shows its message under it.
 */

import { useState } from "preact/hooks";
import { ApiError, errorMessage } from "../lib/api.ts";
import { Dialog, ErrorNote, Field, fieldErrorId, FormActions } from "../components/ui.tsx";
import { createJob, type JobRecord } from "./automations_api.ts";

/** The fields of the form, as the server names them in `details.field`. */
type FieldName = "schedule" | "prompt" | "deliver" | "name";

/** Which field a refusal is about: the schedule's own errors, or `details.field`. */
function fieldOf(error: unknown): FieldName | undefined {
  if (!(error instanceof ApiError)) return undefined;
  if (error.code === "schedule_invalid" || error.code === "time_zone_invalid") return "schedule";
  const field = error.details.field;
  return field === "schedule" || field === "prompt" || field === "deliver" || field === "name"
    ? field
    : undefined;
}

/** The dialog; `onCreated` gets the new job. */
export function NewJobDialog(props: { onClose: () => void; onCreated: (job: JobRecord) => void }) {
  const [form, setForm] = useState({ schedule: "", prompt: "", deliver: "local", name: "" });
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>();
  const field = fieldOf(error);
  const set = (name: FieldName) => (event: Event) => {
    const value = (event.currentTarget as HTMLInputElement | HTMLTextAreaElement).value;
    setForm((previous) => ({ ...previous, [name]: value }));
  };
  const errorFor = (name: FieldName) => field === name ? errorMessage(error) : undefined;
  const invalid = (name: FieldName) =>
    field === name
      ? { "aria-invalid": "true" as const, "aria-describedby": fieldErrorId(`new-job-${name}`) }
      : {};

  const submit = async () => {
    setBusy(true);
    setError(undefined);
    try {
      const job = await createJob({
        schedule: form.schedule,
        prompt: form.prompt,
        deliver: form.deliver,
        ...(form.name.trim() ? { name: form.name } : {}),
      });
      props.onCreated(job);
    } catch (caught) {
      setError(caught);
      setBusy(false);
    }
  };

  return (
    <Dialog title="New job" onClose={props.onClose} class="automations-new-dialog">
      <form
        onSubmit={(event) => {
          event.preventDefault();
          submit();
        }}
      >
        <Field
          id="new-job-schedule"
          label="Schedule"
          hint={
            <>
              As you would say it: <code>every 2h</code>, <code>in 45m</code>,{" "}
              <code>every monday 9am</code>,{" "}
              <code>weekdays at 08:30</code>, a cron expression such as{" "}
              <code>0 9 * * 1</code>, or a time such as <code>2026-12-24T18:00</code>.
            </>
          }
          error={errorFor("schedule")}
        >
          <input
            id="new-job-schedule"
            type="text"
            required
            autoFocus
            value={form.schedule}
            onInput={set("schedule")}
            {...invalid("schedule")}
          />
        </Field>
        <Field
          id="new-job-prompt"
          label="Prompt"
          hint="What the agent is asked at each run."
          error={errorFor("prompt")}
        >
          <textarea
            id="new-job-prompt"
            rows={4}
            value={form.prompt}
            onInput={set("prompt")}
            {...invalid("prompt")}
          />
        </Field>
        <Field
          id="new-job-deliver"
          label="Delivers to"
          hint={
            <>
              <code>local</code> keeps the output in files; <code>telegram</code> or{" "}
              <code>line</code> sends it to your home chat there (or <code>telegram:chat_id</code>).
            </>
          }
          error={errorFor("deliver")}
        >
          <input
            id="new-job-deliver"
            type="text"
            list="new-job-deliver-options"
            value={form.deliver}
            onInput={set("deliver")}
            {...invalid("deliver")}
          />
          <datalist id="new-job-deliver-options">
            <option value="local" />
            <option value="telegram" />
            <option value="line" />
          </datalist>
        </Field>
        <Field id="new-job-name" label="Name (optional)" error={errorFor("name")}>
          <input
            id="new-job-name"
            type="text"
            value={form.name}
            onInput={set("name")}
            {...invalid("name")}
          />
        </Field>
        {error !== undefined && field === undefined && <ErrorNote error={error} />}
        <FormActions
          label="Create job"
          busyLabel="Creating…"
          busy={busy}
          onCancel={props.onClose}
        />
      </form>
    </Dialog>
  );
}

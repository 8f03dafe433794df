/**
 * The Blueprints tab of the Automations page: the catalog grouped by
 * category, and one blueprint's form rendered from its slot schema (a
 * time slot is a time input, a strict enum a select, a suggestion enum a
 * text box with suggestions, a weekdays slot a select of presets and
 * days, a text slot a text box), with a live preview of the next runs,
 * the `/blueprint` command for the same values, and "Schedule it".
 */

import { useEffect, useRef, useState } from "preact/hooks";
import { ApiError, errorMessage } from "../lib/api.ts";
import { navigate } from "../lib/router.ts";
import { useAsync } from "../lib/use_async.ts";
import {
  Button,
  ErrorNote,
  Field,
  fieldErrorId,
  fieldHintId,
  Link,
  Loading,
  toast,
} from "../components/ui.tsx";
import {
  type BlueprintCatalogEntry,
  type BlueprintField,
  formatRunTime,
  instantiateBlueprint,
  loadBlueprints,
  previewBlueprint,
  type PreviewBody,
} from "./automations_api.ts";
import { When } from "./automations_jobs.tsx";

/** How long the form waits after a change before asking for the preview. */
const PREVIEW_DELAY_MS = 250;

/** The catalog, or the form of the blueprint `selected` (its key). */
export function BlueprintsTab(props: { selected?: string; query: URLSearchParams }) {
  const catalog = useAsync((signal) => loadBlueprints(signal), []);
  if (catalog.error !== undefined) {
    return <ErrorNote error={catalog.error} onRetry={catalog.reload} />;
  }
  if (!catalog.data) return <Loading label="Loading blueprints…" />;
  if (props.selected !== undefined) {
    const entry = catalog.data.find((candidate) => candidate.key === props.selected);
    if (!entry) {
      return (
        <p class="note note-error" role="alert">
          <span>
            There is no blueprint "{props.selected}".{" "}
            <Link href="/automations?tab=blueprints">Pick one from the catalog</Link>.
          </span>
        </p>
      );
    }
    return <BlueprintForm key={entry.key} entry={entry} query={props.query} />;
  }
  return <Catalog entries={catalog.data} />;
}

/** The catalog, grouped by category in catalog order. */
function Catalog(props: { entries: BlueprintCatalogEntry[] }) {
  const categories = [...new Set(props.entries.map((entry) => entry.category))];
  return (
    <>
      <p class="muted automations-intro">
        A blueprint is a ready-made job: pick one, set a few values, and schedule it. The same
        blueprints work in chat with <code>/blueprint</code>.
      </p>
      {categories.map((category) => {
        const id = `automations-category-${category.toLowerCase().replace(/[^a-z0-9]+/g, "-")}`;
        return (
          <section key={category} class="automations-category" aria-labelledby={id}>
            <h2 id={id}>{category}</h2>
            <ul class="automations-catalog">
              {props.entries.filter((entry) => entry.category === category).map((entry) => (
                <li key={entry.key} class="card automations-blueprint">
                  <h3>{entry.title}</h3>
                  <p>{entry.description}</p>
                  <p class="muted automations-blueprint-when">{entry.schedule_human}</p>
                  <Link
                    href={`/automations?tab=blueprints&blueprint=${encodeURIComponent(entry.key)}`}
                    class="btn btn-default automations-setup"
                    aria-label={`Set up ${entry.title}`}
                  >
                    Set up
                  </Link>
                </li>
              ))}
            </ul>
          </section>
        );
      })}
    </>
  );
}

/** The form's first values: each field's default, or the value the page's query gives it. */
function initialValues(
  entry: BlueprintCatalogEntry,
  query: URLSearchParams,
): Record<string, string> {
  return Object.fromEntries(
    entry.fields.map((field) => [field.name, query.get(field.name) ?? field.default ?? ""]),
  );
}

/** What the preview shows: nothing yet, the schedule, or why the values do not work. */
type Preview =
  | { state: "loading" }
  | { state: "ok"; body: PreviewBody }
  | { state: "invalid"; message: string; slot?: string };

/** One blueprint's form with its live preview. */
function BlueprintForm(props: { entry: BlueprintCatalogEntry; query: URLSearchParams }) {
  const { entry } = props;
  const [values, setValues] = useState(() => initialValues(entry, props.query));
  const [preview, setPreview] = useState<Preview>({ state: "loading" });
  const [busy, setBusy] = useState(false);
  const generation = useRef(0);

  useEffect(() => {
    const mine = ++generation.current;
    const controller = new AbortController();
    const timer = setTimeout(() => {
      previewBlueprint(entry.key, values, controller.signal).then(
        (body) => mine === generation.current && setPreview({ state: "ok", body }),
        (error) => {
          if (mine !== generation.current || (error as Error)?.name === "AbortError") return;
          const slot = error instanceof ApiError ? error.details.slot : undefined;
          setPreview({
            state: "invalid",
            message: errorMessage(error),
            ...(typeof slot === "string" ? { slot } : {}),
          });
        },
      );
    }, PREVIEW_DELAY_MS);
    return () => {
      clearTimeout(timer);
      controller.abort();
    };
  }, [entry.key, JSON.stringify(values)]);

  const schedule = async () => {
    setBusy(true);
    try {
      const job = await instantiateBlueprint(entry.key, values);
      toast(
        `Scheduled "${job.name}"` +
          (job.next_run_at === null ? "" : `: next run ${formatRunTime(job.next_run_at)}`),
      );
      navigate(`/automations?job=${encodeURIComponent(job.id)}`);
    } catch (error) {
      const slot = error instanceof ApiError ? error.details.slot : undefined;
      setPreview({
        state: "invalid",
        message: errorMessage(error),
        ...(typeof slot === "string" ? { slot } : {}),
      });
      setBusy(false);
    }
  };

  const slotError = (name: string) =>
    preview.state === "invalid" && preview.slot === name ? preview.message : undefined;
  const headingId = `automations-form-${entry.key}`;
  return (
    <section class="automations-form-page" aria-labelledby={headingId}>
      <Link href="/automations?tab=blueprints" class="automations-back">← All blueprints</Link>
      <div class="automations-form-grid">
        <form
          class="card automations-form"
          aria-labelledby={headingId}
          onSubmit={(event) => {
            event.preventDefault();
            if (!busy) schedule();
          }}
        >
          <h2 id={headingId}>{entry.title}</h2>
          <p class="muted">{entry.description}</p>
          {entry.fields.map((field) => (
            <SlotField
              key={field.name}
              id={`bp-${entry.key}-${field.name}`}
              field={field}
              value={values[field.name] ?? ""}
              error={slotError(field.name)}
              onChange={(value) => setValues((previous) => ({ ...previous, [field.name]: value }))}
            />
          ))}
          <div class="dialog-actions">
            <Button type="submit" variant="primary" disabled={busy}>
              {busy ? "Scheduling…" : "Schedule it"}
            </Button>
          </div>
        </form>
        <PreviewPanel preview={preview} />
      </div>
    </section>
  );
}

/** The schedule in words, the next three runs and the slash command; or what is wrong. */
function PreviewPanel(props: { preview: Preview }) {
  const { preview } = props;
  const now = Date.now();
  return (
    <aside class="card automations-preview" aria-label="Preview" aria-live="polite">
      <h3>Preview</h3>
      {preview.state === "loading" && <Loading label="Working out the next runs…" />}
      {preview.state === "invalid" && (
        <p class="note note-error" role="alert" data-testid="preview-error">
          <span>{preview.message}</span>
        </p>
      )}
      {preview.state === "ok" && (
        <>
          <p class="automations-human" data-testid="preview-schedule">
            Runs <strong>{preview.body.schedule_human}</strong>
            <span class="muted">{` (${preview.body.time_zone})`}</span>
          </p>
          <p class="muted">Next runs, in this browser's time:</p>
          <ol class="automations-next" aria-label="Next runs">
            {preview.body.next_runs.slice(0, 3).map((at) => (
              <li key={at}>
                <When at={at} now={now} />
              </li>
            ))}
          </ol>
          <p class="muted">The same job from a chat:</p>
          <code class="automations-command" data-testid="preview-command">
            {preview.body.command}
          </code>
        </>
      )}
    </aside>
  );
}

/** The input a slot's type calls for. */
function SlotField(props: {
  id: string;
  field: BlueprintField;
  value: string;
  error?: string;
  onChange: (value: string) => void;
}) {
  const { field, id } = props;
  const invalid = props.error !== undefined;
  const describedBy = [field.help ? fieldHintId(id) : "", invalid ? fieldErrorId(id) : ""]
    .filter(Boolean).join(" ") || undefined;
  const common = {
    id,
    name: field.name,
    "aria-invalid": invalid ? "true" as const : undefined,
    "aria-describedby": describedBy,
    required: !field.optional,
  };
  const onInput = (event: Event) =>
    props.onChange((event.currentTarget as HTMLInputElement | HTMLSelectElement).value);
  let control;
  if (field.type === "time") {
    control = <input {...common} type="time" value={props.value} onInput={onInput} />;
  } else if (field.type === "weekdays" || (field.type === "enum" && field.strict)) {
    const options = field.options.includes(props.value) || props.value === ""
      ? field.options
      : [props.value, ...field.options];
    control = (
      <select {...common} value={props.value} onChange={onInput}>
        {field.optional && <option value="">(none)</option>}
        {options.map((option) => <option key={option} value={option}>{option}</option>)}
      </select>
    );
  } else if (field.type === "enum") {
    control = (
      <>
        <input
          {...common}
          type="text"
          list={`${id}-options`}
          value={props.value}
          onInput={onInput}
        />
        <datalist id={`${id}-options`}>
          {field.options.map((option) => <option key={option} value={option} />)}
        </datalist>
      </>
    );
  } else {
    control = <input {...common} type="text" value={props.value} onInput={onInput} />;
  }
  const originNote = field.name === "deliver" && props.value.trim() === "origin"
    ? "From the dashboard there is no chat to answer to: the output is kept in files (local)."
    : undefined;
  return (
    <Field
      id={id}
      label={field.optional ? `${field.label} (optional)` : field.label}
      code={field.name}
      hint={field.help ?? undefined}
      warning={originNote}
      error={props.error}
    >
      {control}
    </Field>
  );
}

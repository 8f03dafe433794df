/**
 * config.yaml as a form generated from the schema (`GET /api/config/schema`):
 * one card per top-level section, each field edited by its type, its
 * description as the hint. Saving sends only the changed keys
 * (`PUT /api/config {set}`, which keeps the file's comments); an error the
 * server ties to a key is shown at that field.
 *
 * @module
 */

import { useMemo, useState } from "preact/hooks";
import { api, ApiError, errorMessage } from "../../lib/api.ts";
import { useProfile } from "../../lib/profile.ts";
import { useAsync } from "../../lib/use_async.ts";
import {
  Button,
  ErrorNote,
  Field,
  fieldErrorId,
  fieldHintId,
  Link,
  Loading,
  toast,
} from "../../components/ui.tsx";
import {
  changedValues,
  type Draft,
  draftOf,
  draftProblem,
  type FormField,
  formLayout,
  valueAt,
} from "./config_form.ts";
import { CodeText, ListEditor, Switch } from "./fields.tsx";
import type { ConfigWarning } from "../../../../../core/config/load.ts";
import type { ConfigView } from "../../../../../core/usecases/config.ts";
import type { ConfigSaved, JsonSchema } from "./types.ts";

let schemaCache: JsonSchema | undefined;

/** The config schema; the same for every profile, so it is fetched once per page. */
async function loadSchema(signal: AbortSignal): Promise<JsonSchema> {
  schemaCache ??= await api<JsonSchema>("GET", "/api/config/schema", { signal, profile: null });
  return schemaCache;
}

/** The element id of a config key's control. */
function fieldId(key: string): string {
  return `config-${key.replace(/[^A-Za-z0-9_-]/g, "-")}`;
}

function draftsOf(fields: readonly FormField[], config: Record<string, unknown>) {
  return Object.fromEntries(
    fields.map((field) => [field.key, draftOf(field, valueAt(config, field.key))]),
  );
}

/** The config form; `onRaw` switches to the raw YAML editor. */
export function ConfigForm(props: { onRaw: () => void }) {
  const profile = useProfile();
  const state = useAsync(async (signal) => {
    const [schema, view] = await Promise.all([
      loadSchema(signal),
      api<ConfigView>("GET", "/api/config", { signal }),
    ]);
    return { schema, view };
  }, [profile]);
  if (state.error) {
    const unparsable = state.error instanceof ApiError && state.error.code === "config_parse";
    return (
      <>
        <ErrorNote error={state.error} onRetry={state.reload} />
        {unparsable && (
          <p>
            The form needs a config.yaml that parses.{" "}
            <Button onClick={props.onRaw}>Fix it in the raw YAML editor</Button>
          </p>
        )}
      </>
    );
  }
  if (!state.data) return <Loading label="Loading the configuration…" />;
  return (
    <FormBody
      key={profile}
      schema={state.data.schema}
      view={state.data.view}
      onRaw={props.onRaw}
    />
  );
}

function FormBody(props: { schema: JsonSchema; view: ConfigView; onRaw: () => void }) {
  const layout = useMemo(() => formLayout(props.schema), [props.schema]);
  const fields = useMemo(() => layout.groups.flatMap((group) => group.fields), [layout]);
  const [loaded, setLoaded] = useState(() => draftsOf(fields, props.view.config));
  const [drafts, setDrafts] = useState(loaded);
  const [warnings, setWarnings] = useState<ConfigWarning[]>(props.view.warnings);
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [failure, setFailure] = useState<unknown>(null);
  const [saved, setSaved] = useState<ConfigSaved | null>(null);
  const [saving, setSaving] = useState(false);

  const changes = changedValues(fields, loaded, drafts);
  const count = Object.keys(changes).length;
  const warningAt = (key: string) => warnings.find((warning) => warning.path === key)?.message;
  const loose = warnings.filter((warning) => !fields.some((field) => field.key === warning.path));

  const edit = (key: string, draft: Draft) => {
    setDrafts((previous) => ({ ...previous, [key]: draft }));
    setErrors(({ [key]: _dropped, ...rest }) => rest);
  };

  const save = async (event: Event) => {
    event.preventDefault();
    const problems: Record<string, string> = {};
    for (const field of fields) {
      const problem = draftProblem(field, drafts[field.key]);
      if (problem) problems[field.key] = problem;
    }
    setErrors(problems);
    setFailure(null);
    const first = Object.keys(problems)[0];
    if (first) {
      document.getElementById(fieldId(first))?.focus();
      return;
    }
    if (count === 0) return;
    setSaving(true);
    try {
      const result = await api<ConfigSaved>("PUT", "/api/config", { body: { set: changes } });
      const next = draftsOf(fields, result.config);
      setLoaded(next);
      setDrafts(next);
      setWarnings(result.warnings);
      setSaved(result);
      toast(`Saved ${result.changed.length + result.removed.length} setting(s) to config.yaml`);
    } catch (error) {
      const key = error instanceof ApiError ? error.details.key : undefined;
      if (typeof key === "string" && fields.some((field) => field.key === key)) {
        setErrors({ [key]: errorMessage(error) });
        document.getElementById(fieldId(key))?.focus();
      } else {
        setFailure(error);
      }
    } finally {
      setSaving(false);
    }
  };

  return (
    <form class="settings-form" onSubmit={save} aria-label="Configuration" noValidate>
      <p class="muted">
        Editing{" "}
        <code>{props.view.file}</code>. Saving writes only what you changed and keeps the file's
        comments; secrets go to <code>.env</code>.
      </p>
      <nav class="settings-jump" aria-label="Config sections">
        {layout.groups.map((group) => (
          <button
            type="button"
            key={group.id}
            class="settings-linkish"
            onClick={() => {
              const heading = document.getElementById(`group-${group.id}`);
              heading?.scrollIntoView({ block: "start" });
              heading?.focus({ preventScroll: true });
            }}
          >
            {group.title}
          </button>
        ))}
      </nav>
      {loose.map((warning) => (
        <div class="note note-warn" key={warning.path + warning.message}>
          {warning.path && <code>{warning.path}</code>} {warning.message}
        </div>
      ))}
      {layout.groups.map((group) => (
        <section class="card settings-group" key={group.id} aria-labelledby={`group-${group.id}`}>
          <h2 id={`group-${group.id}`} tabIndex={-1}>{group.title}</h2>
          {group.description && (
            <p class="muted settings-group-hint">
              <CodeText text={group.description} />
            </p>
          )}
          {group.fields.map((field) => (
            <FieldControl
              key={field.key}
              field={field}
              draft={drafts[field.key]}
              loadedValue={valueAt(props.view.config, field.key)}
              error={errors[field.key]}
              warning={warningAt(field.key)}
              onChange={(draft) => edit(field.key, draft)}
            />
          ))}
        </section>
      ))}
      {layout.others.length > 0 && (
        <section class="card settings-group" aria-labelledby="group-others">
          <h2 id="group-others">Edited elsewhere</h2>
          <ul class="settings-others">
            {layout.others.map((other) => (
              <li key={other.id}>
                <code>{other.id}</code>:{" "}
                {other.description && <CodeText text={other.description} />}
                {" — "}
                {other.section
                  ? <Link href={`/settings/${other.section}`}>{SECTION_NAMES[other.section]}</Link>
                  : (
                    <button type="button" class="settings-linkish" onClick={props.onRaw}>
                      raw YAML
                    </button>
                  )}
              </li>
            ))}
          </ul>
        </section>
      )}
      <div class="settings-savebar" role="region" aria-label="Save the configuration">
        {failure !== null && <ErrorNote error={failure} />}
        {saved && saved.secrets.length > 0 && (
          <div class="note">
            Stored in .env (config.yaml references them): {saved.secrets.join(", ")}
          </div>
        )}
        <span class="muted" aria-live="polite">
          {count === 0 ? "No changes" : `${count} change${count === 1 ? "" : "s"}`}
        </span>
        <Button
          onClick={() => {
            setDrafts(loaded);
            setErrors({});
          }}
          disabled={count === 0 || saving}
        >
          Discard
        </Button>
        <Button type="submit" variant="primary" disabled={count === 0 || saving}>
          {saving ? "Saving…" : "Save"}
        </Button>
      </div>
    </form>
  );
}

/** The names of the sections that edit a map of config.yaml. */
const SECTION_NAMES: Record<string, string> = {
  model: "Model",
  mcp: "MCP servers",
  messaging: "Messaging",
};

/** One field of the form, its control chosen by the field's kind. */
function FieldControl(props: {
  field: FormField;
  draft: Draft;
  loadedValue: unknown;
  error?: string;
  warning?: string;
  onChange: (draft: Draft) => void;
}) {
  const { field, draft, onChange } = props;
  const id = fieldId(field.key);
  const described = [
    field.description || field.default !== undefined ? fieldHintId(id) : "",
    props.error ? fieldErrorId(id) : "",
  ]
    .filter(Boolean).join(" ") || undefined;
  const hint = (
    <>
      {field.description && <CodeText text={field.description} />}
      {field.default !== undefined &&
        !(Array.isArray(field.default) && field.default.length === 0) &&
        field.kind !== "boolean" && (
        <span class="settings-default">
          {field.description ? " · " : ""}Default: <code>{String(field.default)}</code>
        </span>
      )}
      {field.kind === "secret" && (
        <span>
          {field.description ? " · " : ""}
          {props.loadedValue
            ? (
              <>
                Now: <code>{String(props.loadedValue)}</code>; type a new value to replace it.
              </>
            )
            : "Not set."} Stored in .env.
        </span>
      )}
    </>
  );
  const common = {
    id,
    "aria-describedby": described,
    "aria-invalid": props.error ? true : undefined,
  };
  let control;
  switch (field.kind) {
    case "boolean":
      return (
        <Field
          id={id}
          label={field.label}
          code={field.key}
          hint={hint}
          error={props.error}
          warning={props.warning}
          inlineLabel
        >
          <Switch
            id={id}
            label={field.label}
            checked={draft === true}
            describedBy={described}
            onChange={(checked) => onChange(checked)}
          />
        </Field>
      );
    case "enum":
      control = (
        <select
          {...common}
          value={String(draft)}
          onChange={(event) => onChange((event.currentTarget as HTMLSelectElement).value)}
        >
          {String(draft) === "" && <option value="">(not set)</option>}
          {field.options!.map((option) => <option key={option} value={option}>{option}</option>)}
        </select>
      );
      break;
    case "list":
      control = (
        <ListEditor
          id={id}
          label={field.label}
          items={draft as string[]}
          describedBy={described}
          onChange={onChange}
        />
      );
      break;
    case "number":
    case "integer":
      control = (
        <input
          {...common}
          type="number"
          inputMode={field.kind === "integer" ? "numeric" : "decimal"}
          step={field.kind === "integer" ? 1 : "any"}
          min={field.min}
          max={field.max}
          value={String(draft)}
          placeholder={field.default === undefined ? "not set" : String(field.default)}
          onInput={(event) => onChange((event.currentTarget as HTMLInputElement).value)}
        />
      );
      break;
    case "secret":
      control = (
        <input
          {...common}
          type="password"
          autoComplete="new-password"
          value={String(draft)}
          placeholder={props.loadedValue ? "unchanged" : "not set"}
          onInput={(event) => onChange((event.currentTarget as HTMLInputElement).value)}
        />
      );
      break;
    default:
      control = (
        <input
          {...common}
          type="text"
          value={String(draft)}
          placeholder="not set"
          onInput={(event) => onChange((event.currentTarget as HTMLInputElement).value)}
        />
      );
  }
  return (
    <Field
      id={id}
      label={field.label}
      code={field.key}
      hint={hint}
      error={props.error}
      warning={props.warning}
    >
      {control}
    </Field>
  );
}

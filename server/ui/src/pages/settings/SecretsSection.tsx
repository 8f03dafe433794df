/**
 * Settings › Secrets: the profile's `.env` by name with redacted previews.
 * A value is fetched only when Reveal is pressed (`POST /api/env/reveal`),
 * kept in this component's state alone (never in the URL, the console or
 * storage) and hidden again by Hide or after {@link REVEAL_SECONDS}.
 *
 * @module
 */

import { useEffect, useRef, useState } from "preact/hooks";
import { api, ApiError, errorMessage } from "../../lib/api.ts";
import { useProfile } from "../../lib/profile.ts";
import { useAsync } from "../../lib/use_async.ts";
import {
  Button,
  ConfirmDialog,
  Dialog,
  Empty,
  ErrorNote,
  Field,
  FormActions,
  Loading,
  toast,
} from "../../components/ui.tsx";
import type { EnvListView, EnvVariableView } from "../../../../../core/usecases/env.ts";

/** How long a revealed value stays on screen. */
export const REVEAL_SECONDS = 30;

/** The secrets section of the selected profile. */
export function SecretsSection() {
  const profile = useProfile();
  const state = useAsync((signal) => api<EnvListView>("GET", "/api/env", { signal }), [profile]);
  const [editing, setEditing] = useState<{ name: string; replace: boolean } | null>(null);
  const [deleting, setDeleting] = useState<string | null>(null);
  return (
    <div>
      <div class="settings-toolbar">
        <p class="muted">
          Secrets live in {state.data ? <code>{state.data.file}</code> : ".env"}{" "}
          (readable by you only). The list shows previews; a value is shown only when you reveal it.
        </p>
        <Button variant="primary" onClick={() => setEditing({ name: "", replace: false })}>
          Add a secret
        </Button>
      </div>
      {state.error !== undefined && <ErrorNote error={state.error} onRetry={state.reload} />}
      {!state.data && !state.error && <Loading label="Loading secrets…" />}
      {state.data?.warnings.map((warning) => (
        <div class="note note-warn" key={warning.line}>
          Line {warning.line} of .env: {warning.message}
        </div>
      ))}
      {state.data && state.data.variables.length === 0 && (
        <Empty>No secrets yet. Add one, or choose a provider key on the Model tab.</Empty>
      )}
      {state.data && state.data.variables.length > 0 && (
        <ul class="list settings-secrets" aria-label="Secrets">
          {state.data.variables.map((variable) => (
            <SecretRow
              key={`${profile}:${variable.name}:${variable.preview}`}
              variable={variable}
              onReplace={() => setEditing({ name: variable.name, replace: true })}
              onDelete={() =>
                setDeleting(variable.name)}
            />
          ))}
        </ul>
      )}
      {editing && (
        <SecretDialog
          name={editing.name}
          replace={editing.replace}
          onClose={() => setEditing(null)}
          onSaved={() => {
            setEditing(null);
            state.reload();
          }}
        />
      )}
      {deleting && (
        <DeleteDialog
          name={deleting}
          onClose={() => setDeleting(null)}
          onDeleted={() => {
            setDeleting(null);
            state.reload();
          }}
        />
      )}
    </div>
  );
}

function SecretRow(
  props: { variable: EnvVariableView; onReplace: () => void; onDelete: () => void },
) {
  const { variable } = props;
  const [value, setValue] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const timer = useRef<number>();
  const hide = () => {
    clearTimeout(timer.current);
    setValue(null);
  };
  useEffect(() => () => clearTimeout(timer.current), []);

  const reveal = async () => {
    setBusy(true);
    try {
      const shown = await api<{ value: string }>("POST", "/api/env/reveal", {
        body: { key: variable.name },
      });
      setValue(shown.value);
      clearTimeout(timer.current);
      timer.current = setTimeout(() => setValue(null), REVEAL_SECONDS * 1000);
    } catch (error) {
      toast(errorMessage(error), "error");
    } finally {
      setBusy(false);
    }
  };

  return (
    <li class="settings-secret">
      <div class="settings-secret-main">
        <code class="settings-secret-name">{variable.name}</code>
        {value === null
          ? (
            <span class="settings-secret-value muted" aria-label={`${variable.name} preview`}>
              {variable.preview}
            </span>
          )
          : (
            <code
              class="settings-secret-value settings-secret-revealed"
              aria-label={`${variable.name} value`}
            >
              {value}
            </code>
          )}
        {variable.used_by.length > 0 && (
          <span class="settings-secret-uses muted">used by {variable.used_by.join(", ")}</span>
        )}
      </div>
      <div class="settings-row-actions">
        {value === null
          ? (
            <Button onClick={reveal} disabled={busy} aria-label={`Reveal ${variable.name}`}>
              Reveal
            </Button>
          )
          : (
            <Button onClick={hide} aria-label={`Hide ${variable.name}`}>
              Hide
            </Button>
          )}
        <Button onClick={props.onReplace} aria-label={`Replace ${variable.name}`}>Replace</Button>
        <Button variant="danger" onClick={props.onDelete} aria-label={`Delete ${variable.name}`}>
          Delete
        </Button>
      </div>
    </li>
  );
}

function SecretDialog(
  props: { name: string; replace: boolean; onClose: () => void; onSaved: () => void },
) {
  const [name, setName] = useState(props.name);
  const [value, setValue] = useState("");
  const [errors, setErrors] = useState<{ name?: string; value?: string; other?: unknown }>({});
  const [saving, setSaving] = useState(false);
  const submit = async (event: Event) => {
    event.preventDefault();
    if (!name.trim()) return setErrors({ name: "Give the variable a name, like OPENAI_API_KEY" });
    if (!value) return setErrors({ value: "Type the value to store" });
    setSaving(true);
    try {
      const saved = await api<{ key: string }>("PUT", "/api/env", {
        body: { key: name.trim(), value },
      });
      toast(`Saved ${saved.key} to .env`);
      props.onSaved();
    } catch (error) {
      const code = error instanceof ApiError ? error.code : "";
      if (code === "env_key_invalid") {
        setErrors({ name: errorMessage(error) });
      } else if (code === "value_too_large") {
        setErrors({ value: errorMessage(error) });
      } else setErrors({ other: error });
    } finally {
      setSaving(false);
    }
  };
  return (
    <Dialog
      title={props.replace ? `Replace ${props.name}` : "Add a secret"}
      onClose={props.onClose}
    >
      <form onSubmit={submit} noValidate>
        {!props.replace && (
          <Field id="secret-name" label="Name" error={errors.name}>
            <input
              id="secret-name"
              type="text"
              autoComplete="off"
              spellcheck={false}
              placeholder="OPENAI_API_KEY"
              value={name}
              onInput={(event) => setName((event.currentTarget as HTMLInputElement).value)}
            />
          </Field>
        )}
        <Field
          id="secret-value"
          label="Value"
          error={errors.value}
          hint="Stored in .env; it is not shown again until you reveal it."
        >
          <input
            id="secret-value"
            type="password"
            autoComplete="new-password"
            value={value}
            onInput={(event) => setValue((event.currentTarget as HTMLInputElement).value)}
          />
        </Field>
        {errors.other !== undefined && <ErrorNote error={errors.other} />}
        <FormActions label="Save" busyLabel="Saving…" busy={saving} onCancel={props.onClose} />
      </form>
    </Dialog>
  );
}

function DeleteDialog(props: { name: string; onClose: () => void; onDeleted: () => void }) {
  return (
    <ConfirmDialog
      title={`Delete ${props.name}?`}
      confirmLabel="Delete"
      busyLabel="Deleting…"
      danger
      onConfirm={async () => {
        await api("DELETE", "/api/env", { body: { key: props.name } });
        toast(`Deleted ${props.name} from .env`);
        props.onDeleted();
      }}
      onClose={props.onClose}
    >
      <p>
        <code>{props.name}</code>{" "}
        will be removed from .env. Anything that reads it (a provider, a platform, a config{" "}
        <code>{"${...}"}</code> reference) stops working until you set it again.
      </p>
    </ConfirmDialog>
  );
}

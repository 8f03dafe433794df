/**
 * Settings › Model: the main model (provider from `/api/model/options`,
 * model name, endpoint, key; saved with `POST /api/model/set`, which puts
 * the key in `.env`) and the auxiliary slots (`/api/model/auxiliary`),
 * whose fields are config keys (`auxiliary.<task>.*`, `PUT /api/config`).
 *
 * @module
 */

import { useState } from "preact/hooks";
import { api, ApiError, errorMessage } from "../../lib/api.ts";
import { useProfile } from "../../lib/profile.ts";
import { useAsync } from "../../lib/use_async.ts";
import { Button, ErrorNote, Field, FormActions, Loading, toast } from "../../components/ui.tsx";
import { Badge } from "./fields.tsx";
import type {
  AuxiliaryModelsView,
  AuxiliaryView,
  ModelInfoView,
  ModelOptionsView,
  ModelSetResult,
  ProviderOptionView,
} from "../../../../../core/usecases/model.ts";

/** The model section of the selected profile. */
export function ModelSection() {
  const profile = useProfile();
  const state = useAsync(async (signal) => {
    const [info, options, auxiliary] = await Promise.all([
      api<ModelInfoView>("GET", "/api/model/info", { signal }),
      api<ModelOptionsView>("GET", "/api/model/options", { signal }),
      api<AuxiliaryModelsView>("GET", "/api/model/auxiliary", { signal }),
    ]);
    return { info, options, tasks: auxiliary.tasks };
  }, [profile]);
  if (state.error) return <ErrorNote error={state.error} onRetry={state.reload} />;
  if (!state.data) return <Loading label="Loading the model…" />;
  const { info, options, tasks } = state.data;
  return (
    <div>
      <MainModel
        key={`${profile}:${info.provider}:${info.model}:${info.base_url}:${info.credential.present}`}
        info={info}
        providers={options.providers}
        onSaved={state.reload}
      />
      <Auxiliary
        key={profile}
        tasks={tasks}
        providers={options.providers}
        onSaved={state.reload}
      />
    </div>
  );
}

function providerLabel(provider: ProviderOptionView): string {
  if (provider.key_present) return `${provider.label} · key set`;
  return provider.keyless ? provider.label : `${provider.label} · no key yet`;
}

function keyHint(provider: ProviderOptionView): string {
  const where = `Stored in .env as ${provider.key_env}.`;
  if (provider.keyless) {
    return `Optional for this provider. ${where}${provider.key_present ? " A key is set." : ""}`;
  }
  return `${where} ${
    provider.key_present ? "A key is set; type a new one to replace it." : "No key yet."
  }`;
}

function MainModel(
  props: { info: ModelInfoView; providers: ProviderOptionView[]; onSaved: () => void },
) {
  const { info } = props;
  const initialBaseUrl = info.base_url_source === "config" ? info.base_url ?? "" : "";
  const [provider, setProvider] = useState(info.provider ?? "");
  const [model, setModel] = useState(info.model ?? "");
  const [baseUrl, setBaseUrl] = useState(initialBaseUrl);
  const [apiKey, setApiKey] = useState("");
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [failure, setFailure] = useState<unknown>(null);
  const [saving, setSaving] = useState(false);
  const chosen = props.providers.find((option) => option.id === provider);

  const body: Record<string, string> = {};
  if (provider && provider !== (info.provider ?? "")) body.provider = provider;
  if (model.trim() !== (info.model ?? "")) body.model = model.trim();
  if (baseUrl.trim() !== initialBaseUrl || (body.provider && baseUrl.trim())) {
    body.base_url = baseUrl.trim();
  }
  if (apiKey.trim()) body.api_key = apiKey.trim();
  const changed = Object.keys(body).length > 0;

  const save = async (event: Event) => {
    event.preventDefault();
    const found: Record<string, string> = {};
    if (!provider) found.provider = "Choose a provider";
    if (!model.trim()) found.model = "Give the model name the provider knows, like gpt-4.1";
    if (chosen?.needs_base_url && !baseUrl.trim()) {
      found.base_url = `${chosen.label} needs the endpoint's URL, like http://127.0.0.1:8080/v1`;
    }
    setErrors(found);
    setFailure(null);
    if (Object.keys(found).length > 0 || !changed) return;
    setSaving(true);
    try {
      const saved = await api<ModelSetResult>("POST", "/api/model/set", { body });
      toast(
        saved.secrets.length > 0
          ? `Saved the model; the key is stored in .env as ${saved.secrets.join(", ")}`
          : "Saved the model",
      );
      props.onSaved();
    } catch (error) {
      const code = error instanceof ApiError ? error.code : "";
      if (code.startsWith("provider_")) setErrors({ provider: errorMessage(error) });
      else if (code === "base_url_invalid") setErrors({ base_url: errorMessage(error) });
      else setFailure(error);
    } finally {
      setSaving(false);
    }
  };

  return (
    <section class="card settings-group" aria-labelledby="model-main">
      <div class="settings-mcp-head">
        <h2 id="model-main">Main model</h2>
        {info.ready ? <Badge kind="ok">ready</Badge> : <Badge kind="warn">not ready</Badge>}
      </div>
      {info.problem && <div class="note note-warn">{info.problem}</div>}
      <form onSubmit={save} noValidate class="settings-model-form">
        <Field id="model-provider" label="Provider" error={errors.provider}>
          <select
            id="model-provider"
            value={provider}
            onChange={(event) => {
              const next = (event.currentTarget as HTMLSelectElement).value;
              setProvider(next);
              const option = props.providers.find((entry) => entry.id === next);
              if (option && !option.needs_base_url) setBaseUrl("");
            }}
          >
            {!provider && <option value="">Choose a provider…</option>}
            {props.providers.map((option) => (
              <option key={option.id} value={option.id}>{providerLabel(option)}</option>
            ))}
          </select>
        </Field>
        <Field id="model-name" label="Model" error={errors.model}>
          <input
            id="model-name"
            type="text"
            spellcheck={false}
            value={model}
            placeholder="the model name the provider knows"
            onInput={(event) => setModel((event.currentTarget as HTMLInputElement).value)}
          />
        </Field>
        <Field
          id="model-base-url"
          label="Base URL"
          error={errors.base_url}
          hint={chosen?.needs_base_url
            ? "Required: the OpenAI-compatible endpoint, usually ending in /v1."
            : `Optional; the provider's default is ${chosen?.base_url ?? "used"}.`}
        >
          <input
            id="model-base-url"
            type="text"
            inputMode="url"
            spellcheck={false}
            value={baseUrl}
            placeholder={chosen?.base_url ?? "http://127.0.0.1:8080/v1"}
            onInput={(event) => setBaseUrl((event.currentTarget as HTMLInputElement).value)}
          />
        </Field>
        <Field
          id="model-api-key"
          label="API key"
          hint={chosen ? keyHint(chosen) : undefined}
        >
          <input
            id="model-api-key"
            type="password"
            autoComplete="new-password"
            value={apiKey}
            placeholder={chosen?.key_present ? "unchanged" : "not set"}
            onInput={(event) => setApiKey((event.currentTarget as HTMLInputElement).value)}
          />
        </Field>
        {failure !== null && <ErrorNote error={failure} />}
        <FormActions
          label="Save the model"
          busyLabel="Saving…"
          busy={saving}
          disabled={!changed}
        />
      </form>
    </section>
  );
}

function Auxiliary(
  props: { tasks: AuxiliaryView[]; providers: ProviderOptionView[]; onSaved: () => void },
) {
  const [extra, setExtra] = useState<string[]>([]);
  const [name, setName] = useState("");
  const [nameError, setNameError] = useState<string | null>(null);
  const known = new Set(props.tasks.map((slot) => slot.task));
  const added: AuxiliaryView[] = extra.filter((task) => !known.has(task)).map((task) => ({
    task,
    configured: { provider: null, model: null, base_url: null, timeout: null, api_key_set: false },
    resolved: null,
    fallback: true,
    ready: true,
    note: null,
  }));
  const add = (event: Event) => {
    event.preventDefault();
    const task = name.trim();
    if (!/^[A-Za-z0-9][A-Za-z0-9_-]*$/.test(task)) {
      setNameError('Use letters, digits, "_" or "-", like compression');
      return;
    }
    setNameError(null);
    setExtra([...extra, task]);
    setName("");
  };
  return (
    <section class="card settings-group" aria-labelledby="model-aux">
      <h2 id="model-aux">Auxiliary models</h2>
      <p class="muted settings-group-hint">
        Side tasks (splitting kanban work, describing profiles, summarising long sessions) can use a
        cheaper model. Empty fields fall back to the main model.
      </p>
      <ul class="list">
        {[...props.tasks, ...added].map((slot) => (
          <AuxiliaryRow
            key={slot.task}
            slot={slot}
            providers={props.providers}
            onSaved={props.onSaved}
          />
        ))}
      </ul>
      <form class="settings-inline-form" onSubmit={add} noValidate>
        <Field id="aux-new-task" label="Another task" error={nameError}>
          <input
            id="aux-new-task"
            type="text"
            placeholder="compression"
            value={name}
            onInput={(event) => setName((event.currentTarget as HTMLInputElement).value)}
          />
        </Field>
        <Button type="submit">Add a slot</Button>
      </form>
    </section>
  );
}

function AuxiliaryRow(
  props: { slot: AuxiliaryView; providers: ProviderOptionView[]; onSaved: () => void },
) {
  const { slot } = props;
  const [open, setOpen] = useState(false);
  const summary = slot.resolved
    ? slot.fallback
      ? `main model (${slot.resolved.provider} / ${slot.resolved.model})`
      : `${slot.resolved.provider} / ${slot.resolved.model}`
    : "not ready";
  return (
    <li class="settings-aux">
      <div class="settings-mcp-head">
        <code>{slot.task}</code>
        <span class="muted settings-aux-summary">{summary}</span>
        <span class="settings-spacer" />
        <Button
          aria-expanded={open}
          onClick={() => setOpen(!open)}
          aria-label={`${open ? "Close" : "Edit"} ${slot.task}`}
        >
          {open ? "Close" : "Edit"}
        </Button>
      </div>
      {slot.note && <p class="field-warning">{slot.note}</p>}
      {open && (
        <AuxiliaryForm
          slot={slot}
          providers={props.providers}
          onSaved={() => {
            setOpen(false);
            props.onSaved();
          }}
        />
      )}
    </li>
  );
}

function AuxiliaryForm(
  props: { slot: AuxiliaryView; providers: ProviderOptionView[]; onSaved: () => void },
) {
  const { slot } = props;
  const before = {
    provider: slot.configured.provider ?? "",
    model: slot.configured.model ?? "",
    base_url: slot.configured.base_url ?? "",
    timeout: slot.configured.timeout === null ? "" : String(slot.configured.timeout),
  };
  const [values, setValues] = useState(before);
  const [apiKey, setApiKey] = useState("");
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [failure, setFailure] = useState<unknown>(null);
  const [saving, setSaving] = useState(false);
  const key = (field: string) => `auxiliary.${slot.task}.${field}`;
  const id = (field: string) => `aux-${slot.task}-${field}`;
  const set = (field: keyof typeof before) => (event: Event) =>
    setValues({ ...values, [field]: (event.currentTarget as HTMLInputElement).value });
  const listed = props.providers.some((option) => option.id === values.provider);

  const save = async (event: Event) => {
    event.preventDefault();
    const changes: Record<string, unknown> = {};
    for (const field of ["provider", "model", "base_url"] as const) {
      if (values[field].trim() !== before[field]) {
        changes[key(field)] = values[field].trim() || null;
      }
    }
    if (values.timeout.trim() !== before.timeout) {
      const seconds = Number(values.timeout.trim());
      if (values.timeout.trim() && !(seconds > 0)) {
        setErrors({ [key("timeout")]: "Enter a number of seconds above 0, or leave it empty" });
        return;
      }
      changes[key("timeout")] = values.timeout.trim() ? seconds : null;
    }
    if (apiKey.trim()) changes[key("api_key")] = apiKey.trim();
    setErrors({});
    setFailure(null);
    if (Object.keys(changes).length === 0) return;
    setSaving(true);
    try {
      const saved = await api<{ secrets: string[] }>("PUT", "/api/config", {
        body: { set: changes },
      });
      toast(
        saved.secrets.length > 0
          ? `Saved ${slot.task}; the key is stored in .env as ${saved.secrets.join(", ")}`
          : `Saved ${slot.task}`,
      );
      props.onSaved();
    } catch (error) {
      const at = error instanceof ApiError ? error.details.key : undefined;
      if (typeof at === "string") setErrors({ [at]: errorMessage(error) });
      else setFailure(error);
    } finally {
      setSaving(false);
    }
  };

  return (
    <form class="settings-aux-form" onSubmit={save} noValidate>
      <Field
        id={id("provider")}
        label="Provider"
        code={key("provider")}
        error={errors[key("provider")]}
      >
        <select id={id("provider")} value={values.provider} onChange={set("provider")}>
          <option value="">The main model's</option>
          {!listed && values.provider && <option value={values.provider}>{values.provider}</option>}
          {props.providers.map((option) => (
            <option key={option.id} value={option.id}>{providerLabel(option)}</option>
          ))}
        </select>
      </Field>
      <Field id={id("model")} label="Model" code={key("model")} error={errors[key("model")]}>
        <input
          id={id("model")}
          type="text"
          spellcheck={false}
          placeholder="the main model's"
          value={values.model}
          onInput={set("model")}
        />
      </Field>
      <Field
        id={id("base_url")}
        label="Base URL"
        code={key("base_url")}
        error={errors[key("base_url")]}
      >
        <input
          id={id("base_url")}
          type="text"
          inputMode="url"
          spellcheck={false}
          placeholder="the provider's default"
          value={values.base_url}
          onInput={set("base_url")}
        />
      </Field>
      <Field
        id={id("api_key")}
        label="API key"
        code={key("api_key")}
        error={errors[key("api_key")]}
        hint={slot.configured.api_key_set
          ? "A key is set for this slot; type a new one to replace it. Stored in .env."
          : "Optional; the provider's own key is used otherwise. Stored in .env."}
      >
        <input
          id={id("api_key")}
          type="password"
          autoComplete="new-password"
          placeholder={slot.configured.api_key_set ? "unchanged" : "not set"}
          value={apiKey}
          onInput={(event) => setApiKey((event.currentTarget as HTMLInputElement).value)}
        />
      </Field>
      <Field
        id={id("timeout")}
        label="Timeout (seconds)"
        code={key("timeout")}
        error={errors[key("timeout")]}
      >
        <input
          id={id("timeout")}
          type="number"
          min={0}
          step="any"
          placeholder="not set"
          value={values.timeout}
          onInput={set("timeout")}
        />
      </Field>
      {failure !== null && <ErrorNote error={failure} />}
      <FormActions label={`Save ${slot.task}`} busyLabel="Saving…" busy={saving} />
    </form>
  );
}

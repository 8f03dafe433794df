/**
 * Settings › Messaging: each platform with its status, a setup form (its
 * `.env` variables masked, on/off, allowed users, home channel) and a test
 * that checks the configuration and then asks the platform who the bot is
 * (the answer shows the bot's name, or what went wrong), and below them the
 * pairing panel (PairingPanel.tsx). Secrets go to `.env` through
 * `PUT /api/messaging/platforms/:id`; the allow list and home channel are
 * config keys (`PUT /api/config`).
 *
 * @module
 */

import { useState } from "preact/hooks";
import { api, errorMessage } from "../../lib/api.ts";
import { useProfile } from "../../lib/profile.ts";
import { useAsync } from "../../lib/use_async.ts";
import { Button, ErrorNote, Field, FormActions, Loading, toast } from "../../components/ui.tsx";
import { Badge, ListEditor, Switch } from "./fields.tsx";
import { PairingPanel } from "./PairingPanel.tsx";
import type { ConfigView } from "../../../../../core/usecases/config.ts";
import type {
  PlatformStatusView,
  PlatformsView,
  PlatformTestView,
} from "../../../../../core/usecases/messaging.ts";

/** What config.yaml says about one platform. */
interface PlatformConfig {
  enabled?: boolean;
  allowed_users?: string[];
  home_channel?: string;
}

/** The messaging section of the selected profile. */
export function MessagingSection() {
  const profile = useProfile();
  const state = useAsync(async (signal) => {
    const [list, config] = await Promise.all([
      api<PlatformsView>("GET", "/api/messaging/platforms", { signal }),
      api<ConfigView>("GET", "/api/config", { signal }),
    ]);
    return {
      platforms: list.platforms,
      config: (config.config.platforms ?? {}) as Record<string, PlatformConfig>,
    };
  }, [profile]);
  if (state.error) return <ErrorNote error={state.error} onRetry={state.reload} />;
  if (!state.data) return <Loading label="Loading messaging platforms…" />;
  return (
    <div>
      <p class="muted">
        Talk to the agent from a chat app. Tokens are stored in .env; Test checks them and asks the
        platform who the bot is.
      </p>
      <ul class="settings-platforms" aria-label="Messaging platforms">
        {state.data.platforms.map((platform) => (
          <PlatformCard
            key={`${profile}:${platform.id}`}
            platform={platform}
            config={state.data!.config[platform.id] ?? {}}
            onSaved={state.reload}
          />
        ))}
      </ul>
      <PairingPanel
        labels={Object.fromEntries(state.data.platforms.map((p) => [p.id, p.label]))}
      />
    </div>
  );
}

function statusOf(platform: PlatformStatusView): { kind: "ok" | "warn" | "error"; text: string } {
  if (!platform.configured) return { kind: "warn", text: "needs setup" };
  if (!platform.well_formed) return { kind: "error", text: "check the tokens" };
  return { kind: "ok", text: "configured" };
}

function PlatformCard(
  props: { platform: PlatformStatusView; config: PlatformConfig; onSaved: () => void },
) {
  const { platform } = props;
  const [open, setOpen] = useState(false);
  const [test, setTest] = useState<PlatformTestView | null>(null);
  const [testing, setTesting] = useState(false);
  const status = statusOf(platform);
  const runTest = async () => {
    setTesting(true);
    setTest(null);
    try {
      setTest(
        await api<PlatformTestView>(
          "POST",
          `/api/messaging/platforms/${encodeURIComponent(platform.id)}/test`,
        ),
      );
    } catch (error) {
      toast(errorMessage(error), "error");
    } finally {
      setTesting(false);
    }
  };
  const formId = `platform-${platform.id}-setup`;
  return (
    <li class="card settings-platform" aria-label={platform.label}>
      <div class="settings-mcp-head">
        <strong>{platform.label}</strong>
        <Badge kind={status.kind}>{status.text}</Badge>
        <Badge kind={platform.enabled ? "ok" : "off"}>
          {platform.enabled ? "enabled" : "disabled"}
        </Badge>
      </div>
      <p>
        {platform.description}.{" "}
        <a href={platform.docs_url} target="_blank" rel="noreferrer">Documentation</a>
      </p>
      <div class="settings-row-actions">
        <Button
          aria-expanded={open}
          aria-controls={formId}
          onClick={() => setOpen(!open)}
          aria-label={`Set up ${platform.label}`}
        >
          {open ? "Close setup" : "Set up"}
        </Button>
        <Button onClick={runTest} disabled={testing} aria-label={`Test ${platform.label}`}>
          {testing ? "Checking…" : "Test"}
        </Button>
      </div>
      <div role="status" aria-live="polite">
        {test && <TestResult test={test} platform={platform} />}
      </div>
      {open && (
        <SetupForm
          id={formId}
          platform={platform}
          config={props.config}
          onSaved={() => {
            setOpen(false);
            props.onSaved();
          }}
        />
      )}
    </li>
  );
}

function TestResult(props: { test: PlatformTestView; platform: PlatformStatusView }) {
  const { test, platform } = props;
  const label = (name: string) =>
    platform.env.find((variable) => variable.name === name)?.label ?? name;
  if (test.checked === "platform") {
    return test.ok
      ? (
        <div class="note settings-note-ok">
          <span>
            Reached {platform.label}
            {test.identity
              ? (
                <>
                  : the bot is <strong>{test.identity}</strong>
                </>
              )
              : ""}.
          </span>
        </div>
      )
      : (
        <div class="note note-error">
          <span>The test failed: {test.error}</span>
        </div>
      );
  }
  if (test.ok) {
    return (
      <div class="note settings-note-ok">
        <span>The configuration looks right. {test.note}.</span>
      </div>
    );
  }
  return (
    <div class="note note-error">
      <span>
        {test.missing.length > 0 &&
          `Missing: ${test.missing.map((name) => `${label(name)} (${name})`).join(", ")}. `}
        {test.malformed.map((item) => `${label(item.name)}: ${item.message}. `)}
        {test.error && `${test.error}. `}
        {test.note}.
      </span>
    </div>
  );
}

function SetupForm(
  props: { id: string; platform: PlatformStatusView; config: PlatformConfig; onSaved: () => void },
) {
  const { platform } = props;
  const [enabled, setEnabled] = useState(platform.enabled);
  const [values, setValues] = useState<Record<string, string>>({});
  const [clear, setClear] = useState<string[]>([]);
  const [users, setUsers] = useState<string[]>(props.config.allowed_users ?? []);
  const [channel, setChannel] = useState(props.config.home_channel ?? "");
  const [failure, setFailure] = useState<unknown>(null);
  const [saving, setSaving] = useState(false);
  const key = (name: string) => `platforms.${platform.id}.${name}`;
  const has = (name: string) => platform.config_keys.includes(key(name));
  const shown = new Set(["enabled", "allowed_users", "home_channel"].map(key));
  const others = platform.config_keys.filter((name) => !shown.has(name));

  const save = async (event: Event) => {
    event.preventDefault();
    setSaving(true);
    setFailure(null);
    try {
      const env = Object.fromEntries(
        Object.entries(values).filter(([, value]) => value.trim() !== ""),
      );
      await api("PUT", `/api/messaging/platforms/${encodeURIComponent(platform.id)}`, {
        body: { enabled, env, clear_env: clear },
      });
      const set: Record<string, unknown> = {};
      const cleanUsers = users.map((user) => user.trim()).filter((user) => user !== "");
      if (JSON.stringify(cleanUsers) !== JSON.stringify(props.config.allowed_users ?? [])) {
        set[key("allowed_users")] = cleanUsers.length > 0 ? cleanUsers : null;
      }
      if (channel.trim() !== (props.config.home_channel ?? "")) {
        set[key("home_channel")] = channel.trim() || null;
      }
      if (Object.keys(set).length > 0) await api("PUT", "/api/config", { body: { set } });
      toast(`Saved the ${platform.label} setup`);
      props.onSaved();
    } catch (error) {
      setFailure(error);
    } finally {
      setSaving(false);
    }
  };

  return (
    <form id={props.id} class="settings-platform-form" onSubmit={save} noValidate>
      <Switch label={`Enable ${platform.label}`} checked={enabled} onChange={setEnabled} />
      {platform.env.map((variable) => {
        const id = `platform-${platform.id}-${variable.name}`;
        const where = variable.source === "env_file"
          ? "Set in .env"
          : variable.source === "environment"
          ? "Set in the environment"
          : "Not set";
        return (
          <Field
            key={variable.name}
            id={id}
            label={`${variable.label}${variable.required ? "" : " (optional)"}`}
            code={variable.name}
            hint={`${where}. ${variable.hint}`}
          >
            <input
              id={id}
              type="password"
              autoComplete="new-password"
              placeholder={variable.set ? "unchanged" : "not set"}
              value={values[variable.name] ?? ""}
              onInput={(event) =>
                setValues({
                  ...values,
                  [variable.name]: (event.currentTarget as HTMLInputElement).value,
                })}
            />
            {variable.source === "env_file" && (
              <label class="settings-check">
                <input
                  type="checkbox"
                  checked={clear.includes(variable.name)}
                  onChange={(event) =>
                    setClear(
                      (event.currentTarget as HTMLInputElement).checked
                        ? [...clear, variable.name]
                        : clear.filter((name) => name !== variable.name),
                    )}
                />{" "}
                Remove {variable.name} from .env
              </label>
            )}
          </Field>
        );
      })}
      {has("allowed_users") && (
        <Field
          id={`platform-${platform.id}-users`}
          label="Allowed users"
          code={key("allowed_users")}
          hint="Platform user ids allowed to talk to the agent; anyone else needs a pairing code."
        >
          <ListEditor
            id={`platform-${platform.id}-users`}
            label="Allowed users"
            items={users}
            onChange={setUsers}
          />
        </Field>
      )}
      {has("home_channel") && (
        <Field
          id={`platform-${platform.id}-channel`}
          label="Home channel"
          code={key("home_channel")}
          hint="Chat or channel id that receives notifications (cron results, ...)."
        >
          <input
            id={`platform-${platform.id}-channel`}
            type="text"
            value={channel}
            onInput={(event) => setChannel((event.currentTarget as HTMLInputElement).value)}
          />
        </Field>
      )}
      {others.length > 0 && (
        <p class="muted settings-small">
          Also read from config.yaml: {others.map((name, index) => (
            <span key={name}>
              {index > 0 && ", "}
              <code>{name}</code>
            </span>
          ))} (set them in the YAML on the Config tab, or with <code>herald config set</code>).
        </p>
      )}
      {failure !== null && <ErrorNote error={failure} />}
      <FormActions label={`Save ${platform.label}`} busyLabel="Saving…" busy={saving} />
    </form>
  );
}

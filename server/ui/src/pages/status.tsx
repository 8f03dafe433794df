/**
 * The Status page: the dashboard's version, uptime (ticking), home and
 * profiles, the messaging gateway's state, the selected profile's model,
 * and the background actions (update, gateway restart) with their output.
 */

import type { ComponentChildren } from "preact";
import { useEffect, useState } from "preact/hooks";
import { api } from "../lib/api.ts";
import { useProfile } from "../lib/profile.ts";
import { useAsync } from "../lib/use_async.ts";
import { Button, ErrorNote, Link, Loading, PageHeader } from "../components/ui.tsx";
import type { ModelInfoView } from "../../../../core/usecases/model.ts";
import { ActionsList, type ActionView } from "./status_actions.tsx";
import "./status.css";

/** `GET /api/status` (server/routes/status.ts builds it; core declares no view of it). */
interface StatusBody {
  version: string;
  uptime_seconds: number;
  home: string;
  pinned_profile: string | null;
  profiles: string[];
  gateway: { running: boolean; state: string; platforms: unknown[] };
}

/** How often the actions are asked again while one is running, in milliseconds. */
const ACTIONS_POLL_MS = 2000;

/** The page at /status. */
export function StatusPage() {
  const profile = useProfile();
  const status = useAsync(async (signal) => {
    const body = await api<StatusBody>("GET", "/api/status", { profile: null, signal });
    return { body, at: Date.now() };
  }, []);
  const model = useAsync(
    (signal) => api<ModelInfoView>("GET", "/api/model/info", { signal }),
    [profile],
  );
  const actions = useAsync(
    (signal) => api<{ actions: ActionView[] }>("GET", "/api/actions", { signal }),
    [],
  );
  const live = actions.data?.actions.some((a) => a.status === "starting" || a.status === "running");
  useEffect(() => {
    if (!live) return;
    const timer = setTimeout(actions.reload, ACTIONS_POLL_MS);
    return () => clearTimeout(timer);
  }, [live, actions.data]);

  const refresh = () => {
    status.reload();
    model.reload();
    actions.reload();
  };
  const selected = profile || status.data?.body.pinned_profile || "default";

  return (
    <section class="page status-page">
      <PageHeader title="Status">
        <Button onClick={refresh}>Refresh</Button>
      </PageHeader>
      <div class="status-grid">
        <Card title="Herald">
          {status.error !== undefined && <ErrorNote error={status.error} onRetry={status.reload} />}
          {!status.data && status.loading && <Loading />}
          {status.data && (
            <dl class="status-facts">
              <dt>Version</dt>
              <dd>{status.data.body.version}</dd>
              <dt>Uptime</dt>
              <dd>
                <Uptime seconds={status.data.body.uptime_seconds} since={status.data.at} />
              </dd>
              <dt>Home</dt>
              <dd>
                <code class="status-path">{status.data.body.home}</code>
              </dd>
            </dl>
          )}
        </Card>
        <Card title="Profiles">
          {status.data && (
            <>
              <ul class="status-profiles" aria-label="Profiles served">
                {status.data.body.profiles.map((name) => (
                  <li key={name} aria-current={name === selected ? "true" : undefined}>
                    {name}
                    {name === selected && <span class="badge">selected</span>}
                  </li>
                ))}
              </ul>
              {status.data.body.pinned_profile && (
                <p class="muted">
                  Pinned to "{status.data.body.pinned_profile}" (--isolated).
                </p>
              )}
              <Link href="/profiles">Manage profiles</Link>
            </>
          )}
        </Card>
        <Card title="Gateway">
          {status.data && <Gateway gateway={status.data.body.gateway} />}
        </Card>
        <Card title={`Model of ${selected}`}>
          {model.error !== undefined && <ErrorNote error={model.error} onRetry={model.reload} />}
          {!model.data && model.loading && <Loading />}
          {model.data && <Model info={model.data} />}
        </Card>
      </div>
      <Card title="Actions" wide>
        {actions.error !== undefined && (
          <ErrorNote
            error={actions.error}
            onRetry={actions.reload}
          />
        )}
        {actions.data && <ActionsList actions={actions.data.actions} />}
      </Card>
    </section>
  );
}

/** A titled card, a region named by its title. */
function Card(props: { title: string; wide?: boolean; children: ComponentChildren }) {
  const id = `status-${props.title.toLowerCase().replace(/[^a-z0-9]+/g, "-")}`;
  return (
    <section
      class={props.wide ? "card status-card status-wide" : "card status-card"}
      aria-labelledby={id}
    >
      <h2 id={id}>{props.title}</h2>
      {props.children}
    </section>
  );
}

/** Seconds as "3 d 4 h", "1 h 02 min" or "5 min 07 s". */
export function formatUptime(total: number): string {
  const s = Math.max(0, Math.floor(total));
  const days = Math.floor(s / 86400);
  const hours = Math.floor((s % 86400) / 3600);
  const minutes = Math.floor((s % 3600) / 60);
  const seconds = s % 60;
  const two = (n: number) => String(n).padStart(2, "0");
  if (days > 0) return `${days} d ${hours} h`;
  if (hours > 0) return `${hours} h ${two(minutes)} min`;
  if (minutes > 0) return `${minutes} min ${two(seconds)} s`;
  return `${seconds} s`;
}

/** The uptime the server gave at `since`, ticking every second. */
function Uptime(props: { seconds: number; since: number }) {
  const [now, setNow] = useState(Date.now());
  useEffect(() => {
    const timer = setInterval(() => setNow(Date.now()), 1000);
    return () => clearInterval(timer);
  }, []);
  const seconds = props.seconds + Math.max(0, now - props.since) / 1000;
  return <span data-testid="uptime">{formatUptime(seconds)}</span>;
}

function Gateway(props: { gateway: StatusBody["gateway"] }) {
  const { gateway } = props;
  return (
    <>
      <p class="status-state">
        <span
          class={gateway.running ? "status-dot status-dot-ok" : "status-dot"}
          aria-hidden="true"
        />
        {gateway.running ? "Running" : gateway.state === "stopped" ? "Stopped" : gateway.state}
      </p>
      {gateway.platforms.length > 0
        ? (
          <ul class="status-platforms" aria-label="Platforms">
            {gateway.platforms.map((platform, index) => (
              <li key={index}>{platformLabel(platform)}</li>
            ))}
          </ul>
        )
        : (
          <p class="muted">
            The messaging gateway connects Telegram, LINE and other platforms; start it with{" "}
            <code>herald gateway</code>.
          </p>
        )}
    </>
  );
}

/** A platform entry as text, whatever shape the gateway reports it in. */
function platformLabel(platform: unknown): string {
  if (typeof platform === "string") return platform;
  if (platform && typeof platform === "object") {
    const entry = platform as Record<string, unknown>;
    const name = String(entry.name ?? entry.platform ?? entry.id ?? "platform");
    const state = entry.state ?? entry.status ?? (entry.connected === true ? "connected" : "");
    return state ? `${name}: ${String(state)}` : name;
  }
  return String(platform);
}

function Model(props: { info: ModelInfoView }) {
  const { info } = props;
  return (
    <>
      <dl class="status-facts">
        <dt>Model</dt>
        <dd data-testid="model-name">{info.model ?? "not set"}</dd>
        <dt>Provider</dt>
        <dd>{info.provider_label ?? info.provider ?? "not set"}</dd>
        {info.base_url && (
          <>
            <dt>Endpoint</dt>
            <dd>
              <code class="status-path">{info.base_url}</code>
            </dd>
          </>
        )}
        {info.credential.env && (
          <>
            <dt>Key</dt>
            <dd>
              {info.credential.env}: {info.credential.present ? "set" : "missing"}
            </dd>
          </>
        )}
      </dl>
      {info.ready
        ? <p class="status-ok">Ready</p>
        : <p class="note note-warn">{info.problem ?? "Not ready"}</p>}
      <Link href="/settings/model">Change it in Settings</Link>
    </>
  );
}

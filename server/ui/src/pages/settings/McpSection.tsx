/**
 * Settings › MCP servers: the profile's servers (`mcp_servers:` in
 * config.yaml) with a real `initialize` check, on/off and remove; adding a
 * stdio (command) or HTTP (URL) server by hand or from the built-in catalog.
 *
 * @module
 */

import { useState } from "preact/hooks";
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
  fieldHintId,
  FormActions,
  Loading,
  toast,
} from "../../components/ui.tsx";
import { Badge, Switch } from "./fields.tsx";
import type { McpServerView } from "../../../../../core/mcp/servers.ts";
import type {
  McpCatalogEntryView,
  McpCatalogView,
  McpServersView,
} from "../../../../../core/usecases/mcp.ts";
import type { McpTestResult } from "./types.ts";
import { type Pair, PairsEditor, pairsRecord } from "./PairsEditor.tsx";

/** The MCP section of the selected profile. */
export function McpSection() {
  const profile = useProfile();
  const servers = useAsync(
    (signal) => api<McpServersView>("GET", "/api/mcp/servers", { signal }),
    [profile],
  );
  const [adding, setAdding] = useState(false);
  const [removing, setRemoving] = useState<string | null>(null);
  const [catalogOpen, setCatalogOpen] = useState(false);
  return (
    <div>
      <div class="settings-toolbar">
        <p class="muted">
          Servers whose tools the agent can use. Test runs the real MCP handshake.
        </p>
        <div class="settings-row-actions">
          <Button onClick={() => setCatalogOpen(!catalogOpen)} aria-expanded={catalogOpen}>
            {catalogOpen ? "Hide the catalog" : "Browse the catalog"}
          </Button>
          <Button variant="primary" onClick={() => setAdding(true)}>Add a server</Button>
        </div>
      </div>
      {servers.error !== undefined && <ErrorNote error={servers.error} onRetry={servers.reload} />}
      {!servers.data && !servers.error && <Loading label="Loading MCP servers…" />}
      {servers.data && servers.data.servers.length === 0 && (
        <Empty>No MCP servers yet. Add one, or install one from the catalog.</Empty>
      )}
      {servers.data && servers.data.servers.length > 0 && (
        <ul class="list settings-mcp" aria-label="MCP servers">
          {servers.data.servers.map((server) => (
            <McpRow
              key={`${profile}:${server.name}`}
              server={server}
              onRemove={() => setRemoving(server.name)}
            />
          ))}
        </ul>
      )}
      {catalogOpen && <Catalog key={profile} onInstalled={servers.reload} />}
      {adding && (
        <AddServerDialog
          onClose={() => setAdding(false)}
          onAdded={() => {
            setAdding(false);
            servers.reload();
          }}
        />
      )}
      {removing && (
        <RemoveDialog
          name={removing}
          onClose={() => setRemoving(null)}
          onRemoved={() => {
            setRemoving(null);
            servers.reload();
          }}
        />
      )}
    </div>
  );
}

function McpRow(props: { server: McpServerView; onRemove: () => void }) {
  const { server } = props;
  const [enabled, setEnabled] = useState(server.enabled);
  const [switching, setSwitching] = useState(false);
  const [testing, setTesting] = useState(false);
  const [result, setResult] = useState<McpTestResult | null>(null);
  const [failure, setFailure] = useState<unknown>(null);
  const path = `/api/mcp/servers/${encodeURIComponent(server.name)}`;

  // The switch moves at once and goes back when the server refuses; it waits while a change is sent.
  const toggle = async (next: boolean) => {
    setEnabled(next);
    setSwitching(true);
    setFailure(null);
    try {
      await api("PUT", `${path}/enabled`, { body: { enabled: next } });
      toast(`${server.name} ${next ? "enabled" : "disabled"}`);
    } catch (error) {
      setEnabled(!next);
      setFailure(error);
    } finally {
      setSwitching(false);
    }
  };
  const test = async () => {
    setTesting(true);
    setResult(null);
    setFailure(null);
    try {
      setResult(await api<McpTestResult>("POST", `${path}/test`, { body: {} }));
    } catch (error) {
      setFailure(error);
    } finally {
      setTesting(false);
    }
  };
  const target = server.transport === "http"
    ? server.url ?? ""
    : [server.command ?? "", ...server.args].join(" ");
  return (
    <li class="settings-mcp-row" aria-label={server.name}>
      <div class="settings-mcp-head">
        <strong class="settings-mcp-name">{server.name}</strong>
        <Badge kind="off">{server.transport === "http" ? "HTTP" : "stdio"}</Badge>
        {!enabled && <Badge kind="warn">disabled</Badge>}
        <span class="settings-spacer" />
        <Switch
          label={`Enable ${server.name}`}
          hideLabel
          checked={enabled}
          disabled={switching}
          onChange={toggle}
        />
      </div>
      <code class="settings-mcp-target" title={target}>{target}</code>
      <div class="settings-row-actions">
        <Button onClick={test} disabled={testing} aria-label={`Test ${server.name}`}>
          {testing ? "Testing…" : "Test"}
        </Button>
        <Button variant="danger" onClick={props.onRemove} aria-label={`Remove ${server.name}`}>
          Remove
        </Button>
      </div>
      <div role="status" aria-live="polite">
        {result?.ok === true && (
          <div class="note settings-note-ok">
            <span>
              Connected to {result.serverInfo.title ?? result.serverInfo.name ?? server.name}
              {result.serverInfo.version ? ` ${result.serverInfo.version}` : ""} (protocol{" "}
              {result.protocol_version}) in {result.elapsed_ms} ms
              {Object.keys(result.capabilities ?? {}).length > 0 &&
                `; offers ${Object.keys(result.capabilities).join(", ")}`}
            </span>
          </div>
        )}
        {result?.ok === false && (
          <div class="note note-error">
            <span>
              The handshake failed ({result.error.code}): {result.error.message}
            </span>
          </div>
        )}
      </div>
      {result?.ok === true && result.tools && (
        <details class="settings-mcp-tools" open>
          <summary>
            {result.tools.length === 1 ? "1 tool" : `${result.tools.length} tools`}{" "}
            offered to the agent
          </summary>
          <ul aria-label={`${server.name} tools`}>
            {result.tools.map((tool) => (
              <li key={tool.model_name}>
                <code>{tool.model_name}</code>
                {tool.description && <span class="muted">{tool.description}</span>}
              </li>
            ))}
          </ul>
        </details>
      )}
      {result?.ok === true && result.tools_error && (
        <div class="note note-warn">
          <span>{result.tools_error}</span>
        </div>
      )}
      {result?.ok === false && result.stderr_tail && (
        <pre
          class="settings-pre"
          aria-label={`${server.name} error output`}
        >{result.stderr_tail}</pre>
      )}
      {failure !== null && <ErrorNote error={failure} />}
    </li>
  );
}

function AddServerDialog(props: { onClose: () => void; onAdded: () => void }) {
  const [name, setName] = useState("");
  const [transport, setTransport] = useState<"stdio" | "http">("stdio");
  const [command, setCommand] = useState("");
  const [args, setArgs] = useState("");
  const [url, setUrl] = useState("");
  const [extra, setExtra] = useState<Pair[]>([]);
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [failure, setFailure] = useState<unknown>(null);
  const [saving, setSaving] = useState(false);

  const submit = async (event: Event) => {
    event.preventDefault();
    const found: Record<string, string> = {};
    if (!name.trim()) found.name = "Give the server a name, like github";
    if (transport === "stdio" && !command.trim()) found.command = "Give the command that starts it";
    if (transport === "http" && !url.trim()) found.url = "Give the server's URL";
    const extras = pairsRecord(extra, transport === "stdio" ? "env" : "headers");
    if (typeof extras === "string") found.extra = extras;
    setErrors(found);
    setFailure(null);
    if (Object.keys(found).length > 0) return;
    const body = transport === "stdio"
      ? {
        name: name.trim(),
        command: command.trim(),
        args: args.split("\n").map((arg) => arg.trim()).filter((arg) => arg !== ""),
        env: extras,
      }
      : { name: name.trim(), url: url.trim(), headers: extras };
    setSaving(true);
    try {
      const added = await api<{ secrets: string[] }>("POST", "/api/mcp/servers", { body });
      toast(
        added.secrets.length > 0
          ? `Added ${name.trim()}; secrets stored in .env: ${added.secrets.join(", ")}`
          : `Added ${name.trim()}`,
      );
      props.onAdded();
    } catch (error) {
      const code = error instanceof ApiError ? error.code : "";
      if (code === "mcp_server_exists" || code === "mcp_server_name_invalid") {
        setErrors({ name: errorMessage(error) });
      } else setFailure(error);
    } finally {
      setSaving(false);
    }
  };

  return (
    <Dialog title="Add an MCP server" onClose={props.onClose}>
      <form onSubmit={submit} noValidate class="settings-dialog-form">
        <Field id="mcp-name" label="Name" error={errors.name}>
          <input
            id="mcp-name"
            type="text"
            autoComplete="off"
            value={name}
            onInput={(event) => setName((event.currentTarget as HTMLInputElement).value)}
          />
        </Field>
        <fieldset class="settings-radios">
          <legend>Transport</legend>
          <label>
            <input
              type="radio"
              name="mcp-transport"
              checked={transport === "stdio"}
              onChange={() => setTransport("stdio")}
            />{" "}
            Command (stdio)
          </label>
          <label>
            <input
              type="radio"
              name="mcp-transport"
              checked={transport === "http"}
              onChange={() => setTransport("http")}
            />{" "}
            URL (HTTP)
          </label>
        </fieldset>
        {transport === "stdio"
          ? (
            <>
              <Field id="mcp-command" label="Command" error={errors.command}>
                <input
                  id="mcp-command"
                  type="text"
                  spellcheck={false}
                  placeholder="npx"
                  value={command}
                  onInput={(event) => setCommand((event.currentTarget as HTMLInputElement).value)}
                />
              </Field>
              <Field id="mcp-args" label="Arguments" hint="One argument per line.">
                <textarea
                  id="mcp-args"
                  rows={3}
                  spellcheck={false}
                  value={args}
                  onInput={(event) => setArgs((event.currentTarget as HTMLTextAreaElement).value)}
                />
              </Field>
            </>
          )
          : (
            <Field id="mcp-url" label="URL" error={errors.url}>
              <input
                id="mcp-url"
                type="text"
                inputMode="url"
                spellcheck={false}
                placeholder="https://example.com/mcp"
                value={url}
                onInput={(event) => setUrl((event.currentTarget as HTMLInputElement).value)}
              />
            </Field>
          )}
        <Field
          id="mcp-extra"
          label={transport === "stdio" ? "Environment (optional)" : "Headers (optional)"}
          hint={transport === "stdio"
            ? "Variables the server's process gets. Secret values are stored in .env."
            : "Headers sent with every request. Credentials are stored in .env."}
          error={errors.extra}
        >
          <PairsEditor
            id="mcp-extra"
            label={transport === "stdio" ? "Environment" : "Headers"}
            kind={transport === "stdio" ? "env" : "headers"}
            pairs={extra}
            describedBy={fieldHintId("mcp-extra")}
            onChange={setExtra}
          />
        </Field>
        {failure !== null && <ErrorNote error={failure} />}
        <FormActions label="Add" busyLabel="Adding…" busy={saving} onCancel={props.onClose} />
      </form>
    </Dialog>
  );
}

function RemoveDialog(props: { name: string; onClose: () => void; onRemoved: () => void }) {
  return (
    <ConfirmDialog
      title={`Remove ${props.name}?`}
      confirmLabel="Remove"
      busyLabel="Removing…"
      danger
      onConfirm={async () => {
        await api("DELETE", `/api/mcp/servers/${encodeURIComponent(props.name)}`);
        toast(`Removed ${props.name}`);
        props.onRemoved();
      }}
      onClose={props.onClose}
    >
      <p>
        The server is removed from config.yaml; secrets it stored in .env stay there (delete them on
        the Secrets tab).
      </p>
    </ConfirmDialog>
  );
}

function Catalog(props: { onInstalled: () => void }) {
  const catalog = useAsync(
    (signal) => api<McpCatalogView>("GET", "/api/mcp/catalog", { signal }),
    [],
  );
  const [installing, setInstalling] = useState<McpCatalogEntryView | null>(null);
  return (
    <section class="settings-catalog" aria-labelledby="mcp-catalog">
      <h2 id="mcp-catalog">Catalog</h2>
      {catalog.error !== undefined && <ErrorNote error={catalog.error} onRetry={catalog.reload} />}
      {!catalog.data && !catalog.error && <Loading />}
      <ul class="settings-catalog-grid">
        {catalog.data?.entries.map((entry) => (
          <li class="card" key={entry.name}>
            <div class="settings-mcp-head">
              <strong>{entry.label}</strong>
              {entry.installed && <Badge kind="ok">installed</Badge>}
            </div>
            <p>{entry.description}</p>
            <p class="muted settings-small">
              Needs {entry.requires}.{" "}
              <a href={entry.homepage} target="_blank" rel="noreferrer">Homepage</a>
            </p>
            <Button
              disabled={entry.installed}
              onClick={() => setInstalling(entry)}
              aria-label={`Install ${entry.label}`}
            >
              Install
            </Button>
          </li>
        ))}
      </ul>
      {installing && (
        <InstallDialog
          entry={installing}
          onClose={() => setInstalling(null)}
          onInstalled={() => {
            setInstalling(null);
            catalog.reload();
            props.onInstalled();
          }}
        />
      )}
    </section>
  );
}

function InstallDialog(
  props: { entry: McpCatalogEntryView; onClose: () => void; onInstalled: () => void },
) {
  const { entry } = props;
  const [serverName, setServerName] = useState(entry.name);
  const [params, setParams] = useState<Record<string, string>>({});
  const [failure, setFailure] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  const install = async (event: Event) => {
    event.preventDefault();
    setBusy(true);
    setFailure(null);
    try {
      await api("POST", "/api/mcp/catalog/install", {
        body: {
          name: entry.name,
          server_name: serverName.trim() || undefined,
          params: Object.fromEntries(
            Object.entries(params).filter(([, value]) => value.trim() !== ""),
          ),
        },
      });
      toast(`Installed ${entry.label}`);
      props.onInstalled();
    } catch (error) {
      setFailure(error);
    } finally {
      setBusy(false);
    }
  };
  return (
    <Dialog title={`Install ${entry.label}`} onClose={props.onClose}>
      <form onSubmit={install} class="settings-dialog-form">
        <p class="muted">
          Runs <code>{[entry.command, ...entry.args].join(" ")}</code>. Needs {entry.requires}.
        </p>
        <Field id="catalog-server-name" label="Server name">
          <input
            id="catalog-server-name"
            type="text"
            value={serverName}
            onInput={(event) => setServerName((event.currentTarget as HTMLInputElement).value)}
          />
        </Field>
        {entry.params.map((param) => (
          <Field
            key={param.name}
            id={`catalog-param-${param.name}`}
            label={`${param.name}${param.required ? "" : " (optional)"}`}
            hint={param.description}
          >
            <input
              id={`catalog-param-${param.name}`}
              type="text"
              required={param.required}
              value={params[param.name] ?? ""}
              onInput={(event) =>
                setParams({
                  ...params,
                  [param.name]: (event.currentTarget as HTMLInputElement).value,
                })}
            />
          </Field>
        ))}
        {failure !== null && <ErrorNote error={failure} />}
        <FormActions
          label="Install"
          busyLabel="Installing…"
          busy={busy}
          onCancel={props.onClose}
        />
      </form>
    </Dialog>
  );
}

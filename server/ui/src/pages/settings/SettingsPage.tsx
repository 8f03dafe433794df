/**
 * Settings: `/settings/<section>` with the sections as tabs (a select on a
 * phone): the model, config.yaml (form or raw YAML), secrets, MCP servers
 * and messaging platforms, each for the profile the header selects.
 *
 * @module
 */

import type { ComponentChildren } from "preact";
import { useEffect } from "preact/hooks";
import { navigate, useRoute } from "../../lib/router.ts";
import { Link, PageHeader } from "../../components/ui.tsx";
import { ModelSection } from "./ModelSection.tsx";
import { ConfigSection } from "./ConfigSection.tsx";
import { SecretsSection } from "./SecretsSection.tsx";
import { McpSection } from "./McpSection.tsx";
import { MessagingSection } from "./MessagingSection.tsx";
import "./settings.css";

/** One section of the page. */
interface Section {
  id: string;
  label: string;
  render: () => ComponentChildren;
}

const SECTIONS: readonly Section[] = [
  { id: "model", label: "Model", render: () => <ModelSection /> },
  { id: "config", label: "Config", render: () => <ConfigSection /> },
  { id: "secrets", label: "Secrets", render: () => <SecretsSection /> },
  { id: "mcp", label: "MCP servers", render: () => <McpSection /> },
  { id: "messaging", label: "Messaging", render: () => <MessagingSection /> },
];

/** The Settings page; `/settings` opens its first section. */
export function SettingsPage() {
  const route = useRoute();
  const id = route.segments[1];
  const section = SECTIONS.find((entry) => entry.id === id);
  useEffect(() => {
    if (id === undefined) navigate(`/settings/${SECTIONS[0].id}`, { replace: true });
  }, [id]);
  return (
    <section class="page settings-page">
      <PageHeader title="Settings" />
      <nav class="tabs settings-tabs" aria-label="Settings sections">
        {SECTIONS.map((entry) => (
          <Link
            key={entry.id}
            href={`/settings/${entry.id}`}
            class={entry === section ? "tab active" : "tab"}
            aria-current={entry === section ? "page" : undefined}
          >
            {entry.label}
          </Link>
        ))}
      </nav>
      <label class="settings-section-select">
        <span class="visually-hidden">Settings section</span>
        <select
          aria-label="Settings section"
          value={section?.id ?? ""}
          onChange={(event) =>
            navigate(`/settings/${(event.currentTarget as HTMLSelectElement).value}`)}
        >
          {!section && <option value="">Choose a section</option>}
          {SECTIONS.map((entry) => <option key={entry.id} value={entry.id}>{entry.label}</option>)}
        </select>
      </label>
      {section ? section.render() : id !== undefined && (
        <p>
          There is no settings section <code>{id}</code>. The sections are{" "}
          {SECTIONS.map((entry, index) => (
            <span key={entry.id}>
              {index > 0 && ", "}
              <Link href={`/settings/${entry.id}`}>{entry.label}</Link>
            </span>
          ))}.
        </p>
      )}
    </section>
  );
}

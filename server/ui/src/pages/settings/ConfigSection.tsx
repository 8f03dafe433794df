/**
 * Settings › Config: the form generated from the schema, or config.yaml as
 * raw YAML, one at a time (each loads the file afresh, so one shows what
 * the other saved).
 *
 * @module
 */

import { useState } from "preact/hooks";
import { ConfigForm } from "./ConfigForm.tsx";
import { RawEditor } from "./RawEditor.tsx";

type View = "form" | "raw";

/** The config section: a Form / Raw YAML switch over the two editors. */
export function ConfigSection() {
  const [view, setView] = useState<View>("form");
  const tab = (id: View, label: string) => (
    <button
      type="button"
      role="tab"
      id={`config-tab-${id}`}
      class="tab"
      aria-selected={view === id}
      aria-controls="config-panel"
      tabIndex={view === id ? 0 : -1}
      onClick={() => setView(id)}
      onKeyDown={(event) => {
        if (event.key === "ArrowRight" || event.key === "ArrowLeft") {
          const next = view === "form" ? "raw" : "form";
          setView(next);
          document.getElementById(`config-tab-${next}`)?.focus();
        }
      }}
    >
      {label}
    </button>
  );
  return (
    <div>
      <div class="tabs settings-subtabs" role="tablist" aria-label="Config editor">
        {tab("form", "Form")}
        {tab("raw", "Raw YAML")}
      </div>
      <div id="config-panel" role="tabpanel" aria-labelledby={`config-tab-${view}`}>
        {view === "form" ? <ConfigForm onRaw={() => setView("raw")} /> : <RawEditor />}
      </div>
    </div>
  );
}

/** Files the catalog skipped, listed so they can be fixed. */

import type { CatalogWarning } from "../../../../../core/skills/catalog.ts";

/** A note listing skipped skill or bundle files; nothing when there are none. */
export function CatalogWarnings(props: { warnings: CatalogWarning[] | undefined }) {
  const warnings = props.warnings ?? [];
  if (warnings.length === 0) return null;
  return (
    <details class="note note-warn skills-warnings">
      <summary>
        {warnings.length} file{warnings.length === 1 ? " was" : "s were"} skipped
      </summary>
      <ul>
        {warnings.map((warning) => (
          <li key={warning.file}>
            <code>{warning.file}</code>: {warning.message}
          </li>
        ))}
      </ul>
    </details>
  );
}

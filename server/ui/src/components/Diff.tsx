/**
 * A unified line diff: old and new line numbers, "+"/"−" gutters, added
 * lines green and removed lines red (the theme's colours), three lines of
 * context around each change and the unchanged runs between folded into a
 * button that shows them. The diff itself is core/text/diff.ts's, the one
 * the terminal draws. Long lines scroll sideways on a desktop and wrap on a
 * phone.
 */

import { useMemo, useState } from "preact/hooks";
import { type DiffLine, lineDiff } from "../../../../core/text/diff.ts";
import "./render.css";

/** Rows shown before "Show all": a whole new file can be thousands of lines. */
const MAX_ROWS = 400;

/** The changes from `before` to `after` (of the file at `path`, when given). */
export function Diff(props: { path?: string; before: string; after: string }) {
  const lines = useMemo(() => lineDiff(props.before, props.after, 3), [props.before, props.after]);
  const [opened, setOpened] = useState<ReadonlySet<DiffLine>>(new Set());
  const [all, setAll] = useState(false);
  const counts = useMemo(() => {
    let added = 0;
    let removed = 0;
    for (const line of lines) {
      if (line.kind === "add") added++;
      else if (line.kind === "del") removed++;
    }
    return { added, removed };
  }, [lines]);
  const rows = useMemo(
    () =>
      lines.flatMap((
        line,
      ) => (line.kind === "gap" && opened.has(line) ? line.hidden ?? [] : [line])),
    [lines, opened],
  );
  const shown = all ? rows : rows.slice(0, MAX_ROWS);
  const name = props.path ? `Changes to ${props.path}` : "Changes";
  return (
    <figure class="diff" aria-label={name}>
      <figcaption class="diff-head">
        <span class="diff-path">{props.path ?? "Changes"}</span>
        <span class="diff-stat">
          <span class="diff-stat-add" aria-label={`${counts.added} added`}>+{counts.added}</span>
          <span class="diff-stat-del" aria-label={`${counts.removed} removed`}>
            −{counts.removed}
          </span>
        </span>
      </figcaption>
      {lines.length === 0 ? <p class="diff-same muted">No changes.</p> : (
        <div class="diff-body">
          <table class="diff-table">
            <tbody>
              {shown.map((line, index) =>
                line.kind === "gap"
                  ? (
                    <tr key={index} class="diff-gap">
                      <td colSpan={4}>
                        <button
                          type="button"
                          class="diff-expand"
                          onClick={() => setOpened(new Set(opened).add(line))}
                        >
                          ⋯ Show {line.text}
                        </button>
                      </td>
                    </tr>
                  )
                  : <Row key={index} line={line} />
              )}
            </tbody>
          </table>
          {shown.length < rows.length && (
            <button
              type="button"
              class="diff-more"
              onClick={() => setAll(true)}
            >
              Show all {rows.length} lines
            </button>
          )}
        </div>
      )}
    </figure>
  );
}

const SIGNS = { add: "+", del: "−", ctx: " " } as const;
const KINDS = { add: "added", del: "removed", ctx: "unchanged" } as const;

function Row(props: { line: DiffLine }) {
  const { line } = props;
  const kind = line.kind as "add" | "del" | "ctx";
  return (
    <tr class={`diff-${kind}`}>
      <td class="diff-num diff-old" aria-hidden="true">{line.oldNo ?? ""}</td>
      <td class="diff-num diff-new" aria-hidden="true">
        {line.newNo ?? <span class="diff-phone-only">{line.oldNo}</span>}
      </td>
      <td class="diff-sign">
        <span aria-hidden="true">{SIGNS[kind]}</span>
        <span class="visually-hidden">{KINDS[kind]}</span>
      </td>
      <td class="diff-text">{line.text}</td>
    </tr>
  );
}

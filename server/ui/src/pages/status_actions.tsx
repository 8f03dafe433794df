/**
 * The Status page's list of background actions (`/api/actions`): an update
 * or a gateway restart started from the dashboard, with its status, exit
 * code and the last lines of its output.
 */

/** One action as `/api/actions` lists it (server/action_runner.ts; core declares no view of it). */
export interface ActionView {
  id: string;
  kind: string;
  status: "starting" | "running" | "succeeded" | "failed";
  command: string[];
  exit_code: number | null;
  signal: string | null;
  error: string | null;
  started_at: string;
  finished_at: string | null;
  output_tail: string[];
}

const KIND_LABELS: Record<string, string> = {
  "herald-update": "Update",
  "gateway-restart": "Gateway restart",
};

/** The actions, newest first, or a line saying there are none. */
export function ActionsList(props: { actions: ActionView[] }) {
  if (props.actions.length === 0) {
    return (
      <p class="muted">
        No update or gateway restart has run since this dashboard started.
      </p>
    );
  }
  return (
    <ul class="list status-actions" aria-label="Actions">
      {props.actions.map((action) => (
        <li key={action.id}>
          <div class="status-action-head">
            <strong>{KIND_LABELS[action.kind] ?? action.kind}</strong>
            <span class={`badge status-action-${action.status}`}>{action.status}</span>
            <span class="muted">{outcome(action)}</span>
            <time class="muted status-time" dateTime={action.started_at}>
              {new Date(action.started_at).toLocaleString()}
            </time>
          </div>
          {action.error && <p class="note note-error">{action.error}</p>}
          {action.output_tail.length > 0 && (
            <details>
              <summary>
                Output ({action.output_tail.length}{" "}
                {action.output_tail.length === 1 ? "line" : "lines"})
              </summary>
              <pre class="status-output">{action.output_tail.join("\n")}</pre>
            </details>
          )}
        </li>
      ))}
    </ul>
  );
}

function outcome(action: ActionView): string {
  if (action.exit_code !== null) return `exit code ${action.exit_code}`;
  if (action.signal) return `ended by ${action.signal}`;
  return "";
}

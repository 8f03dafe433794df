/**
 * A tool call in the transcript: what ran (the tool and its key argument),
 * its status (running, ok, or failed with the reason) and duration, the
 * diff of a file edit that was applied ("not applied" when the edit
 * failed), and the output preview, collapsed until opened. Its status is
 * no live region of its own: the transcript's log announces what changes.
 */

import { Diff } from "../../components/Diff.tsx";
import type { ToolItem } from "./chat_state.ts";
import { fileEdit, formatDuration, outputPreview, toolTarget } from "./tool_view.ts";

const STATUS_LABEL = { running: "running", ok: "ok", failed: "failed" } as const;

/** One tool call. */
export function ToolBlock(props: { item: ToolItem }) {
  const { item } = props;
  const target = toolTarget(item.name, item.args);
  // A diff only for an edit that went through; a failed one changed nothing.
  const edit = item.status === "ok" ? fileEdit(item) : null;
  const notApplied = item.status === "failed" && fileEdit(item) !== null;
  const output = outputPreview(item);
  const duration = formatDuration(item.durationMs);
  return (
    <section
      class={`chat-tool chat-tool-${item.status}`}
      aria-label={`Tool ${item.name}${target ? `: ${target}` : ""}`}
    >
      <header class="chat-tool-head">
        <span class="chat-tool-icon" aria-hidden="true">
          {item.status === "running" ? "" : item.status === "ok" ? "✓" : "✗"}
        </span>
        <span class="chat-tool-name">{item.name}</span>
        {target && <code class="chat-tool-target" title={target}>{target}</code>}
        <span class="chat-tool-status">
          {STATUS_LABEL[item.status]}
          {item.status === "failed" && item.failure ? `: ${item.failure}` : ""}
          {duration && <span class="muted">· {duration}</span>}
        </span>
      </header>
      {edit && (
        <div class="chat-tool-diff">
          {edit.created && <p class="muted chat-tool-note">New file</p>}
          <Diff path={edit.path} before={edit.before} after={edit.after} />
        </div>
      )}
      {notApplied && (
        <p class="chat-tool-note chat-tool-not-applied">
          Not applied{item.failure ? `: ${item.failure}` : ""}. The file was left as it was.
        </p>
      )}
      {output && output.text === "" && <p class="chat-tool-output muted">{output.label}</p>}
      {output && output.text !== "" && (
        <details class="chat-tool-output">
          <summary>{output.label}</summary>
          <pre>{output.text}</pre>
        </details>
      )}
    </section>
  );
}

/**
 * A tool call in the transcript: what ran (the tool and its key argument),
 * its status (running, ok, or failed with the reason) and duration, the
 * diff of a file edit, and the output preview, collapsed until opened.
 */

import { Diff } from "../../components/Diff.tsx";
import type { ToolItem } from "./chat_state.ts";
import { fileEdit, formatDuration, outputPreview, toolTarget } from "./tool_view.ts";

const STATUS_LABEL = { running: "running", ok: "ok", failed: "failed" } as const;

/** One tool call. */
export function ToolBlock(props: { item: ToolItem }) {
  const { item } = props;
  const target = toolTarget(item.name, item.args);
  const edit = item.status === "running" ? null : fileEdit(item);
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
        <span class="chat-tool-status" role="status">
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

/**
 * One stored message as the session view shows it: your messages as text,
 * Herald's rendered as Markdown with the tools it called, tool results
 * folded away. Very long texts show their start until asked for the rest,
 * so no single message can stall the page.
 */

import { Component } from "preact";
import { Markdown } from "../../components/Markdown.tsx";
import { formatFull, formatWhen, roleLabel } from "./format.ts";
import type { MessageView } from "../../../../../core/sessions/views.ts";

/** Characters of a message's text rendered before "Show all". */
const TEXT_LIMIT = 20_000;
/** Characters of a tool result shown when it is opened. */
const TOOL_LIMIT = 4_000;

/** Props of {@link MessageItem}. */
export interface MessageItemProps {
  message: MessageView;
  /** The message a search hit opened the session at. */
  target: boolean;
}

/** A tool call as stored: `{id, name, arguments}` (or the OpenAI `function` form). */
function callParts(call: unknown): { name: string; args: string } {
  const record = (call ?? {}) as Record<string, unknown>;
  const fn = (record.function ?? {}) as Record<string, unknown>;
  const name = String(record.name ?? fn.name ?? "tool");
  const raw = record.arguments ?? fn.arguments ?? "";
  const args = typeof raw === "string" ? raw : JSON.stringify(raw);
  return { name, args: args.length > 160 ? `${args.slice(0, 159)}…` : args };
}

/**
 * A message of the session; re-renders only when its message or its
 * highlight changes (the list re-renders on every scroll step).
 */
export class MessageItem extends Component<MessageItemProps, { whole: boolean }> {
  override state = { whole: false };

  override shouldComponentUpdate(next: MessageItemProps, state: { whole: boolean }): boolean {
    return next.message !== this.props.message || next.target !== this.props.target ||
      state.whole !== this.state.whole;
  }

  override render() {
    const { message, target } = this.props;
    const label = roleLabel(message.role, message.tool_name);
    return (
      <article
        id={`m-${message.id}`}
        class={`sessions-msg role-${message.role}${target ? " is-target" : ""}`}
        aria-current={target ? "true" : undefined}
        aria-label={`${label}, ${formatFull(message.timestamp)}`}
      >
        <header class="sessions-msg-head">
          <span class="sessions-msg-role">{label}</span>
          <time
            class="muted"
            dateTime={new Date(message.timestamp).toISOString()}
            title={formatFull(message.timestamp)}
          >
            {formatWhen(message.timestamp)}
          </time>
        </header>
        {message.role === "tool" ? this.#toolResult(message) : this.#text(message)}
        {message.tool_calls && message.tool_calls.length > 0 && (
          <ul class="sessions-calls" aria-label="Tools called">
            {message.tool_calls.map((call, i) => {
              const { name, args } = callParts(call);
              return (
                <li key={i}>
                  <code>{name}</code> <span class="muted">{args}</span>
                </li>
              );
            })}
          </ul>
        )}
      </article>
    );
  }

  #text(message: MessageView) {
    const text = message.content ?? "";
    if (text === "") return null;
    const cut = !this.state.whole && text.length > TEXT_LIMIT;
    const shown = cut ? text.slice(0, TEXT_LIMIT) : text;
    return (
      <>
        {message.role === "assistant"
          ? <Markdown text={shown} class="sessions-msg-body" />
          : <div class="sessions-msg-body sessions-plain">{shown}</div>}
        {cut && (
          <button
            type="button"
            class="btn btn-ghost"
            onClick={() => this.setState({ whole: true })}
          >
            Show the whole message ({text.length.toLocaleString()} characters)
          </button>
        )}
      </>
    );
  }

  #toolResult(message: MessageView) {
    const text = message.content ?? "";
    const cut = !this.state.whole && text.length > TOOL_LIMIT;
    return (
      <details class="sessions-tool">
        <summary>
          Result{text ? ` (${text.length.toLocaleString()} characters)` : " (empty)"}
        </summary>
        <pre><code>{cut ? text.slice(0, TOOL_LIMIT) : text}</code></pre>
        {cut && (
          <button
            type="button"
            class="btn btn-ghost"
            onClick={() => this.setState({ whole: true })}
          >
            Show all of it
          </button>
        )}
      </details>
    );
  }
}

/**
 * One bubble of the transcript: the user's line, or (part of) an answer
 * rendered as Markdown while it streams, with the turn's error in it when
 * the turn failed.
 */

import { Markdown } from "../../components/Markdown.tsx";
import type { AssistantItem, UserItem } from "./chat_state.ts";

/** Characters past which a user message (a skill's expanded text) folds. */
const FOLD_CHARS = 600;

/** The user's line, folded when long (a skill or bundle arrives expanded). */
export function UserBubble(props: { item: UserItem }) {
  const { text } = props.item;
  return (
    <div class="chat-row chat-row-user">
      <div class="chat-bubble chat-bubble-user">
        <span class="visually-hidden">You:</span>
        {text.length > FOLD_CHARS
          ? (
            <details class="chat-fold">
              <summary>{text.slice(0, 160).split("\n")[0]}…</summary>
              <div class="chat-user-text">{text}</div>
            </details>
          )
          : <div class="chat-user-text">{text}</div>}
      </div>
    </div>
  );
}

/** (Part of) an answer; a caret while it streams, the error when the turn failed. */
export function AssistantBubble(props: { item: AssistantItem }) {
  const { text, streaming, error } = props.item;
  return (
    <div class="chat-row chat-row-assistant">
      <div
        class={`chat-bubble chat-bubble-assistant${error ? " chat-bubble-error" : ""}`}
        aria-busy={streaming}
      >
        <span class="visually-hidden">Herald:</span>
        {text !== "" && <Markdown text={text} streaming={streaming} />}
        {streaming && text === "" && <span class="chat-thinking">Thinking…</span>}
        {streaming && text !== "" && <span class="chat-caret" aria-hidden="true" />}
        {error && (
          <p class="chat-error" role="alert">
            <strong>The turn failed:</strong> {error}
          </p>
        )}
      </div>
    </div>
  );
}

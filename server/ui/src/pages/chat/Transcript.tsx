/**
 * The conversation: bubbles, tool blocks, notices and command replies in
 * order. It follows the newest line while the reader is at the bottom and
 * stays put when they scrolled up to read.
 */

import { Component, type ComponentChildren } from "preact";
import { useLayoutEffect, useRef } from "preact/hooks";
import { Markdown } from "../../components/Markdown.tsx";
import { useAsync } from "../../lib/use_async.ts";
import type { AssistantItem, ChatItem, NoticeItem, PickItem } from "./chat_state.ts";
import { AssistantBubble, UserBubble } from "./Message.tsx";
import { ToolBlock } from "./ToolBlock.tsx";
import { recentSessions, sessionLabel, sinceLabel } from "./sessions.ts";

/** The answer's bubble before its first words arrive. */
const THINKING: AssistantItem = { kind: "assistant", id: 0, text: "", streaming: true };

/** How close to the bottom (px) still counts as "at the bottom". */
const STICK_PX = 48;

/** Props of {@link Transcript}. */
export interface TranscriptProps {
  items: ChatItem[];
  /** A turn or a command is under way. */
  busy: boolean;
  profile: string;
  /** Sends a line (the `/resume` picker sends `/resume <id>`). */
  onSend: (text: string) => void;
  /** Shown when there is nothing yet. */
  empty?: ComponentChildren;
}

/** The transcript of the open session. */
export function Transcript(props: TranscriptProps) {
  const ref = useRef<HTMLDivElement>(null);
  const atBottom = useRef(true);
  useLayoutEffect(() => {
    const box = ref.current;
    if (box && atBottom.current) box.scrollTop = box.scrollHeight;
  });
  const last = props.items[props.items.length - 1];
  // The answer's bubble opens with the turn; a running tool shows its own spinner.
  const waiting = props.busy && !(last?.kind === "assistant" && last.streaming) &&
    !(last?.kind === "tool" && last.status === "running");
  return (
    <div
      ref={ref}
      class="chat-transcript"
      role="log"
      aria-label="Conversation"
      tabIndex={0}
      onScroll={(event) => {
        const box = event.currentTarget;
        atBottom.current = box.scrollHeight - box.scrollTop - box.clientHeight < STICK_PX;
      }}
    >
      {props.items.length === 0 && props.empty}
      {props.items.map((item) => (
        <Item key={item.id} item={item} profile={props.profile} onSend={props.onSend} />
      ))}
      {waiting && <AssistantBubble item={THINKING} />}
    </div>
  );
}

/** Props of one transcript entry. */
interface ItemProps {
  item: ChatItem;
  profile: string;
  onSend: (text: string) => void;
}

/**
 * One entry, drawn again only when it changed: the state replaces an item
 * it changes, so a streamed delta leaves every other entry (and its parsed
 * tool arguments and output) alone.
 */
class Item extends Component<ItemProps> {
  override shouldComponentUpdate(next: ItemProps): boolean {
    return next.item !== this.props.item || next.profile !== this.props.profile;
  }

  override render() {
    return <ItemBody {...this.props} />;
  }
}

function ItemBody(props: ItemProps) {
  const { item } = props;
  switch (item.kind) {
    case "user":
      return <UserBubble item={item} />;
    case "assistant":
      return <AssistantBubble item={item} />;
    case "tool":
      return <ToolBlock item={item} />;
    case "notice":
      return <Notice item={item} />;
    case "reply":
      return (
        <div class="chat-reply">
          <Markdown text={item.text} />
        </div>
      );
    case "pick":
      return <SessionPick item={item} profile={props.profile} onSend={props.onSend} />;
  }
}

function Notice(props: { item: NoticeItem }) {
  const { level, text, code } = props.item;
  return (
    <p
      class={`chat-notice chat-notice-${level}`}
      role={level === "error" ? "alert" : undefined}
      data-code={code}
    >
      <span aria-hidden="true">{level === "info" ? "·" : "!"}</span> {text}
    </p>
  );
}

/** `/resume` without an id: the recent sessions, each resumed with `/resume <id>`. */
function SessionPick(props: { item: PickItem; profile: string; onSend: (text: string) => void }) {
  const { data } = useAsync((signal) => recentSessions(props.profile, signal), [props.profile]);
  return (
    <div class="chat-pick">
      <p class="muted">Pick a session to resume:</p>
      {data && data.length === 0 && <p class="muted">{props.item.text}</p>}
      <ul class="chat-pick-list">
        {data?.slice(0, 8).map((session) => (
          <li key={session.id}>
            <button
              type="button"
              class="btn btn-ghost"
              onClick={() => props.onSend(`/resume ${session.id}`)}
            >
              {sessionLabel(session)} <span class="muted">· {sinceLabel(session.last_active)}</span>
            </button>
          </li>
        ))}
      </ul>
    </div>
  );
}

/**
 * The chat input: Enter sends, Shift+Enter starts a new line, Escape stops
 * the running turn; a `/` at the start opens the autocomplete (arrows move,
 * Enter or Tab pick, Escape closes). It accepts typing from the first
 * paint, before the session is open, and keeps focus after sending.
 */

import { useEffect, useRef, useState } from "preact/hooks";
import { Button } from "../../components/ui.tsx";
import type { Completion } from "./slash.ts";
import { matchCompletions, slashQuery } from "./slash.ts";
import { SLASH_MENU_ID, SlashMenu, slashOptionId } from "./SlashMenu.tsx";

/** Props of {@link Composer}. */
export interface ComposerProps {
  /** A turn runs or a command is pending: plain text waits. */
  running: boolean;
  /** A turn runs: Stop shows and Escape interrupts (a pending command has nothing to stop). */
  stoppable: boolean;
  onSend: (text: string) => void;
  onInterrupt: () => void;
  /** The completions of the open session. */
  loadCatalog: () => Promise<Completion[]>;
}

/** Most lines the input grows to before it scrolls. */
const MAX_ROWS = 8;

/** The input row at the bottom of the chat. */
export function Composer(props: ComposerProps) {
  const input = useRef<HTMLTextAreaElement>(null);
  const [value, setValue] = useState("");
  const [catalog, setCatalog] = useState<Completion[] | null>(null);
  const [active, setActive] = useState(0);
  const [dismissed, setDismissed] = useState(false);

  const query = slashQuery(value);
  const entries = query !== null && catalog && !dismissed ? matchCompletions(catalog, query) : [];
  const menuOpen = entries.length > 0;
  const isCommand = value.trimStart().startsWith("/");
  const canSend = value.trim() !== "" && (!props.running || isCommand);

  // A fresh "/" reads the catalog again (a bundle may have been made since).
  const typingCommand = query !== null;
  useEffect(() => {
    if (!typingCommand) {
      setDismissed(false);
      return;
    }
    let current = true;
    props.loadCatalog().then((list) => current && setCatalog(list), () => {});
    return () => void (current = false);
  }, [typingCommand]);
  useEffect(() => setActive(0), [query]);

  useEffect(() => {
    const box = input.current;
    if (!box) return;
    box.style.height = "auto";
    const line = parseFloat(getComputedStyle(box).lineHeight) || 20;
    box.style.height = `${Math.min(box.scrollHeight, line * MAX_ROWS + 16)}px`;
  }, [value]);

  const send = () => {
    if (!canSend) return;
    props.onSend(value.trim());
    setValue("");
    input.current?.focus();
  };
  const pick = (entry: Completion) => {
    setValue(`/${entry.name} `);
    setDismissed(true);
    input.current?.focus();
  };

  const onKeyDown = (event: KeyboardEvent) => {
    if (event.isComposing) return;
    if (menuOpen) {
      if (event.key === "ArrowDown" || event.key === "ArrowUp") {
        event.preventDefault();
        const step = event.key === "ArrowDown" ? 1 : -1;
        setActive((active + step + entries.length) % entries.length);
        return;
      }
      if ((event.key === "Enter" && !event.shiftKey) || event.key === "Tab") {
        event.preventDefault();
        pick(entries[Math.min(active, entries.length - 1)]);
        return;
      }
      if (event.key === "Escape") {
        event.preventDefault();
        setDismissed(true);
        return;
      }
    }
    if (event.key === "Enter" && !event.shiftKey) {
      event.preventDefault();
      send();
    } else if (event.key === "Escape" && props.stoppable) {
      event.preventDefault();
      props.onInterrupt();
    }
  };

  return (
    <form
      class="chat-composer"
      onSubmit={(event) => {
        event.preventDefault();
        send();
      }}
    >
      {menuOpen && <SlashMenu entries={entries} active={active} onPick={pick} />}
      <textarea
        ref={input}
        class="chat-input"
        aria-label="Message"
        placeholder="Message Herald"
        rows={1}
        value={value}
        autoFocus
        aria-autocomplete="list"
        aria-controls={menuOpen ? SLASH_MENU_ID : undefined}
        aria-activedescendant={menuOpen ? slashOptionId(active) : undefined}
        onInput={(event) => {
          setValue(event.currentTarget.value);
          setDismissed(false);
        }}
        onKeyDown={onKeyDown}
      />
      {props.stoppable
        ? (
          <Button
            variant="danger"
            onClick={() => {
              props.onInterrupt();
              input.current?.focus();
            }}
            title="Stop (Escape)"
          >
            Stop
          </Button>
        )
        : null}
      <Button variant="primary" type="submit" disabled={!canSend} title="Send (Enter)">
        Send
      </Button>
    </form>
  );
}

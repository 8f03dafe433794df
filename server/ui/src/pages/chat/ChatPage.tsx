/**
 * The Chat page: a conversation with the agent over `/api/ws`, beside the
 * profile's recent sessions. The URL names the open session
 * (`/chat/<session_id>`), so a reload or a link reopens it; switching
 * profile starts a fresh session on that profile. Without a usable model
 * the page says so and links to the model settings instead of an input
 * that cannot work.
 */

import { useEffect, useMemo, useRef, useState } from "preact/hooks";
import { Button, ErrorNote, Link } from "../../components/ui.tsx";
import { useProfile } from "../../lib/profile.ts";
import { navigate, useRoute } from "../../lib/router.ts";
import { rpc } from "../../lib/rpc.ts";
import { useAsync } from "../../lib/use_async.ts";
import { ApprovalDialog } from "./ApprovalDialog.tsx";
import { Composer } from "./Composer.tsx";
import { ChatController, type ChatView } from "./controller.ts";
import { SessionList } from "./SessionList.tsx";
import { Transcript } from "./Transcript.tsx";
import "./chat.css";

/** `setup.runtime_check`'s answer. */
interface RuntimeCheck {
  ready: boolean;
  provider: string | null;
  model: string | null;
  reason?: string;
}

/** The session the page showed last, per profile, reopened when the page comes back. */
const lastSession = new Map<string, string>();

function chatPath(id: string | null): string {
  return id ? `/chat/${encodeURIComponent(id)}` : "/chat";
}

/** The controller's view, re-rendering on every change. */
function useChatView(controller: ChatController): ChatView {
  const [view, setView] = useState(controller.view);
  useEffect(() => controller.subscribe(setView), [controller]);
  return view;
}

/** The chat. */
export function ChatPage() {
  const profile = useProfile();
  const route = useRoute();
  const routeId = route.segments[0] === "chat" ? route.segments[1] ?? null : null;
  const profileRef = useRef(profile);
  const controller = useMemo(
    () =>
      new ChatController((id) => {
        if (id) lastSession.set(profileRef.current, id);
        else lastSession.delete(profileRef.current);
        navigate(chatPath(id), { replace: true });
      }),
    [],
  );
  const view = useChatView(controller);
  const [listOpen, setListOpen] = useState(false);
  const side = useRef<HTMLElement>(null);
  const toggle = useRef<HTMLButtonElement>(null);
  // On a phone the opened list takes the focus, and gives it back when closed.
  const openedList = useRef(false);
  useEffect(() => {
    if (listOpen) side.current?.querySelector<HTMLElement>("button")?.focus();
    else if (openedList.current) toggle.current?.focus();
    openedList.current = listOpen;
  }, [listOpen]);
  const check = useAsync(
    () => rpc().call<RuntimeCheck>("setup.runtime_check", profile ? { profile } : {}),
    [profile],
  );

  useEffect(() => () => controller.dispose(), [controller]);

  // The first render reopens the session the URL names (or the one shown last);
  // a profile switch starts a fresh session on that profile.
  const opened = useRef(false);
  useEffect(() => {
    profileRef.current = profile;
    const resume = opened.current ? undefined : routeId ?? lastSession.get(profile);
    opened.current = true;
    controller.open({ profile, resume });
  }, [profile]);

  // The URL names another session (a link, the back button): open it.
  useEffect(() => {
    const open = controller.view.sessionId;
    if (routeId === null) {
      if (open) navigate(chatPath(open), { replace: true });
    } else if (routeId !== open) {
      controller.open({ profile, resume: routeId });
    }
  }, [routeId]);

  const busy = view.chat.running || view.sending > 0;
  const ready = check.data?.ready !== false;
  const resume = (id: string) => {
    setListOpen(false);
    if (id !== view.sessionId) navigate(chatPath(id));
  };
  const newChat = () => {
    setListOpen(false);
    controller.open({ profile });
  };

  return (
    <section class="chat" aria-label="Chat">
      <aside
        ref={side}
        class={listOpen ? "chat-side open" : "chat-side"}
        onKeyDown={(event) => {
          if (event.key === "Escape" && listOpen) setListOpen(false);
        }}
      >
        <SessionList
          profile={profile}
          current={view.sessionId}
          version={view.listVersion}
          openLabel={openLabel(view)}
          onResume={resume}
          onClose={listOpen ? () => setListOpen(false) : undefined}
        />
      </aside>
      <div class="chat-main">
        <header class="chat-bar">
          <button
            ref={toggle}
            type="button"
            class="btn btn-default chat-sessions-toggle"
            aria-expanded={listOpen}
            onClick={() => setListOpen(!listOpen)}
          >
            Sessions
          </button>
          <h1>Chat</h1>
          <span class="chat-model muted" title="Provider and model of this session">
            {view.model ? `${view.provider}:${view.model}` : ""}
          </span>
          <Button onClick={newChat} disabled={view.starting && view.chat.items.length === 0}>
            New chat
          </Button>
        </header>
        {view.startError && ready && (
          <ErrorNote
            error={`The session could not be opened: ${view.startError}`}
            onRetry={() => controller.open({ profile })}
          />
        )}
        <Transcript
          items={view.chat.items}
          busy={busy}
          profile={profile}
          onSend={(text) => controller.send(text)}
          empty={ready ? <ChatEmpty starting={view.starting} /> : null}
        />
        {ready
          ? (
            <Composer
              running={busy}
              stoppable={view.chat.running}
              onSend={(text) => controller.send(text)}
              onInterrupt={() => controller.interrupt()}
              loadCatalog={() => controller.catalog()}
            />
          )
          : <SetupNote check={check.data!} />}
      </div>
      {view.chat.approval && (
        <ApprovalDialog
          approval={view.chat.approval}
          onAnswer={(choice) => controller.respond(choice)}
        />
      )}
    </section>
  );
}

/**
 * What the side list shows for the open session until the list has it (its
 * first turn still runs, or the model never answered): its first line.
 */
function openLabel(view: ChatView): string | null {
  const first = view.chat.items.find((item) => item.kind === "user");
  return first ? first.text.split("\n")[0] : null;
}

function ChatEmpty(props: { starting: boolean }) {
  return (
    <div class="chat-empty muted">
      <p>{props.starting ? "Opening a session…" : "Ask Herald anything."}</p>
      <p>
        Type <kbd>/</kbd> for commands, skills and bundles. <kbd>Enter</kbd> sends,{" "}
        <kbd>Shift</kbd>+<kbd>Enter</kbd> starts a new line, <kbd>Esc</kbd> stops a running turn.
      </p>
    </div>
  );
}

/** Shown instead of the input when the profile has no usable model. */
function SetupNote(props: { check: RuntimeCheck }) {
  return (
    <div class="note note-warn chat-setup" role="alert">
      <span>
        <strong>This profile has no usable model yet.</strong>{" "}
        {props.check.reason ?? "Choose a provider and a model first."}
      </span>
      <Link href="/settings/model" class="btn btn-primary">Set up a model</Link>
    </div>
  );
}

/**
 * The Terminal page: xterm.js over `/api/pty`, running Herald's chat TUI
 * for the selected profile (or the user's shell on a dashboard started with
 * `--shell`). It fills the page, follows the window's size and the system's
 * light or dark theme, takes the keyboard focus, and offers a restart when
 * the program ends. xterm.js loads only when this page opens.
 */

import { useEffect, useRef, useState } from "preact/hooks";
import { errorMessage } from "../lib/api.ts";
import { useProfile } from "../lib/profile.ts";
import { useRoute } from "../lib/router.ts";
import { startTerminal, type TerminalSession } from "./terminal_session.ts";
import "./terminal.css";

type TerminalState =
  | { kind: "loading" }
  | { kind: "open" }
  | { kind: "ended"; message: string };

/** The page at /terminal (`?resume=<session id>` continues a stored chat). */
export function TerminalPage() {
  const profile = useProfile();
  const resume = useRoute().query.get("resume") ?? undefined;
  const screen = useRef<HTMLDivElement>(null);
  const restartButton = useRef<HTMLButtonElement>(null);
  const [generation, setGeneration] = useState(0);
  const [state, setState] = useState<TerminalState>({ kind: "loading" });

  useEffect(() => {
    let session: TerminalSession | undefined;
    let disposed = false;
    setState({ kind: "loading" });
    startTerminal(screen.current!, {
      profile,
      resume,
      onEvent(event) {
        if (disposed) return;
        setState(
          event.type === "open" ? { kind: "open" } : { kind: "ended", message: event.message },
        );
      },
    }).then(
      (started) => {
        if (disposed) return started.dispose();
        session = started;
        started.focus();
      },
      (error) => {
        if (!disposed) {
          setState({
            kind: "ended",
            message: `The terminal could not load: ${errorMessage(error)}`,
          });
        }
      },
    );
    return () => {
      disposed = true;
      session?.dispose();
      screen.current?.replaceChildren();
    };
  }, [profile, resume, generation]);

  useEffect(() => {
    if (state.kind === "ended") restartButton.current?.focus();
  }, [state.kind]);

  return (
    <section class="page terminal-page">
      <div class="terminal-bar">
        <h1>Terminal</h1>
        <span class="muted terminal-state" role="status">
          {state.kind === "loading" ? "Starting…" : state.kind === "open" ? "Connected" : ""}
        </span>
      </div>
      {state.kind === "ended" && (
        <div class="note terminal-ended" role="alert">
          <span>
            <strong>Terminal ended.</strong> {state.message}
          </span>
          <button
            type="button"
            class="btn btn-primary"
            ref={restartButton}
            onClick={() => setGeneration((n) => n + 1)}
          >
            Restart
          </button>
        </div>
      )}
      <div
        class="terminal-screen"
        ref={screen}
        role="group"
        aria-label="Terminal"
        onClick={() => {
          const focusable = screen.current?.querySelector("textarea");
          focusable?.focus();
        }}
      />
    </section>
  );
}

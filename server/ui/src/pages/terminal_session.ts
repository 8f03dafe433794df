/**
 * One web-terminal session: xterm.js in an element, joined to `/api/pty`
 * (docs/dashboard.md "/api/pty"). Typed input goes out as binary frames,
 * output comes back as binary frames; text frames are control messages
 * (`{"type":"resize",cols,rows}` out, `{"type":"exit"|"error",...}` in).
 *
 * xterm.js, its fit addon and its CSS load here on demand (dynamic
 * imports), so the app's initial bundle does not carry them.
 */

import type { Terminal } from "@xterm/xterm";
import { checkTokenAfterClose } from "../lib/socket_auth.ts";
import { token } from "../lib/token.ts";

/** What a session reports to the page. */
export type TerminalEvent =
  | { type: "open" }
  | { type: "ended"; message: string };

/** Options of {@link startTerminal}. */
export interface TerminalOptions {
  /** The profile the terminal's program runs for ("" for the server's default or pinned one). */
  profile: string;
  /** A session id to resume (`herald chat --resume`). */
  resume?: string;
  /** Told when the socket opens and when the terminal ends. */
  onEvent: (event: TerminalEvent) => void;
}

/** A running session; `dispose` closes the socket (ending the program) and the terminal. */
export interface TerminalSession {
  /** The xterm.js terminal (tests read its buffer through the page). */
  terminal: Terminal;
  focus(): void;
  dispose(): void;
}

/** The terminal's colours for the page's light or dark theme, from the theme's CSS variables. */
function themeFor(): Record<string, string> {
  const css = getComputedStyle(document.documentElement);
  const value = (name: string) => css.getPropertyValue(name).trim();
  const dark = matchMedia("(prefers-color-scheme: dark)").matches;
  const palette = dark ? DARK_ANSI : LIGHT_ANSI;
  return {
    ...palette,
    background: value("--code-bg"),
    foreground: value("--text"),
    cursor: value("--accent"),
    cursorAccent: value("--code-bg"),
    selectionBackground: dark ? "rgba(124, 156, 255, 0.35)" : "rgba(47, 91, 211, 0.25)",
  };
}

const LIGHT_ANSI = {
  black: "#1d1d1b",
  red: "#b42318",
  green: "#1f7a3d",
  yellow: "#8a5a00",
  blue: "#2f5bd3",
  magenta: "#8e3aa8",
  cyan: "#0e7490",
  white: "#66665f",
  brightBlack: "#55554f",
  brightRed: "#d13b2f",
  brightGreen: "#2a8f4c",
  brightYellow: "#9a6700",
  brightBlue: "#3d6ae0",
  brightMagenta: "#a347c0",
  brightCyan: "#0f86a6",
  brightWhite: "#33332f",
};

const DARK_ANSI = {
  black: "#3a3a35",
  red: "#ff8a80",
  green: "#6fd08c",
  yellow: "#e3b341",
  blue: "#7c9cff",
  magenta: "#d59bf6",
  cyan: "#6fd3e8",
  white: "#d8d8d2",
  brightBlack: "#77776f",
  brightRed: "#ffaba3",
  brightGreen: "#93e0aa",
  brightYellow: "#f0c96a",
  brightBlue: "#a3bbff",
  brightMagenta: "#e3b8fa",
  brightCyan: "#98e2f0",
  brightWhite: "#ffffff",
};

function socketUrl(options: TerminalOptions): string {
  const url = new URL("/api/pty", location.href);
  url.protocol = location.protocol === "https:" ? "wss:" : "ws:";
  url.hash = "";
  const query = new URLSearchParams({ token });
  if (options.profile) query.set("profile", options.profile);
  if (options.resume) query.set("resume", options.resume);
  url.search = `?${query}`;
  return url.href;
}

/** Why the socket closed, in words, from its close code (the exit frame says more). */
function closeMessage(code: number, reason: string): string {
  switch (code) {
    case 1000:
      return "The program exited.";
    case 1001:
      return "The dashboard stopped.";
    case 1008:
    case 1009:
      return `The dashboard ended the terminal: ${reason || "a limit was passed"}.`;
    case 1011:
      return `The program did not start${reason ? `: ${reason}` : ""}.`;
    case 4401:
      return "The session token was refused.";
    default:
      return "The connection to the dashboard was lost.";
  }
}

/**
 * Loads xterm.js, opens it in `element`, and connects it to a new program
 * on the server. The terminal fills `element`, refits when the element's
 * size changes and tells the server the new size; its colours follow the
 * system's light or dark theme.
 */
export async function startTerminal(
  element: HTMLElement,
  options: TerminalOptions,
): Promise<TerminalSession> {
  const [{ Terminal }, { FitAddon }] = await Promise.all([
    import("@xterm/xterm"),
    import("@xterm/addon-fit"),
    import("@xterm/xterm/css/xterm.css"),
  ]);
  const css = getComputedStyle(document.documentElement);
  const terminal = new Terminal({
    cursorBlink: true,
    fontFamily: css.getPropertyValue("--mono").trim() || "monospace",
    fontSize: 14,
    scrollback: 5000,
    theme: themeFor(),
  });
  const fit = new FitAddon();
  terminal.loadAddon(fit);
  terminal.open(element);
  fit.fit();

  const encoder = new TextEncoder();
  const socket = new WebSocket(socketUrl(options));
  socket.binaryType = "arraybuffer";
  let ended = false;
  let exitNote = "";
  const send = (data: string | Uint8Array<ArrayBuffer>) => {
    if (socket.readyState === WebSocket.OPEN) socket.send(data);
  };
  // The size is also kept on the element (`data-cols`, `data-rows`) for tests and tools.
  const sendSize = () => {
    element.dataset.cols = String(terminal.cols);
    element.dataset.rows = String(terminal.rows);
    send(JSON.stringify({ type: "resize", cols: terminal.cols, rows: terminal.rows }));
  };

  let opened = false;
  socket.onopen = () => {
    opened = true;
    sendSize();
    options.onEvent({ type: "open" });
  };
  socket.onmessage = (event) => {
    if (typeof event.data !== "string") {
      terminal.write(new Uint8Array(event.data as ArrayBuffer));
      return;
    }
    let control: { type?: string; exit_code?: number; signal?: string | null; message?: string };
    try {
      control = JSON.parse(event.data);
    } catch {
      return;
    }
    if (control.type === "exit") {
      exitNote = control.signal
        ? `The program ended (${control.signal}).`
        : `The program exited with code ${control.exit_code}.`;
    } else if (control.type === "error" && control.message) {
      exitNote = control.message;
    }
  };
  socket.onclose = (event) => {
    // A refused token shows only as a socket that never opened: ask the API once.
    void checkTokenAfterClose(event.code, opened);
    if (ended) return;
    ended = true;
    options.onEvent({ type: "ended", message: exitNote || closeMessage(event.code, event.reason) });
  };

  const input = terminal.onData((data) => send(encoder.encode(data)));
  const binary = terminal.onBinary((data) =>
    send(Uint8Array.from(data, (char) => char.charCodeAt(0) & 0xff))
  );
  const resized = terminal.onResize(sendSize);
  const observer = new ResizeObserver(() => {
    if (element.clientWidth > 0 && element.clientHeight > 0) fit.fit();
  });
  observer.observe(element);
  const scheme = matchMedia("(prefers-color-scheme: dark)");
  const recolour = () => (terminal.options.theme = themeFor());
  scheme.addEventListener("change", recolour);

  return {
    terminal,
    focus: () => terminal.focus(),
    dispose() {
      ended = true;
      scheme.removeEventListener("change", recolour);
      observer.disconnect();
      input.dispose();
      binary.dispose();
      resized.dispose();
      if (socket.readyState === WebSocket.CONNECTING || socket.readyState === WebSocket.OPEN) {
        socket.close(1000, "terminal closed");
      }
      terminal.dispose();
    },
  };
}

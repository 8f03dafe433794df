/**
 * The app shell: the header (brand, navigation, profile switcher,
 * connection state), the page for the current path, toasts, and the
 * token screen that replaces everything once the server refuses the token.
 */

import type { ComponentChildren } from "preact";
import { useEffect, useState } from "preact/hooks";
import { api } from "./lib/api.ts";
import { isTokenRefused, onTokenRefused } from "./lib/auth_state.ts";
import { setProfile, useProfile } from "./lib/profile.ts";
import { navigate, useRoute } from "./lib/router.ts";
import { rpc, type RpcState } from "./lib/rpc.ts";
import { Link, Toasts } from "./components/ui.tsx";
import { ChatPage } from "./pages/chat/ChatPage.tsx";
import { SessionsPage } from "./pages/sessions.tsx";
import { SkillsPage } from "./pages/skills.tsx";
import { ProfilesPage } from "./pages/profiles.tsx";
import { PROFILES_CHANGED_EVENT } from "./pages/profiles_api.ts";
import { SettingsPage } from "./pages/settings/SettingsPage.tsx";
import { TerminalPage } from "./pages/terminal.tsx";
import { StatusPage } from "./pages/status.tsx";
import { ComingPage } from "./pages/coming.tsx";

/** One entry of the navigation. */
interface NavItem {
  path: string;
  label: string;
  render: () => ComponentChildren;
  /** A later release fills this page in. */
  later?: boolean;
}

const NAV: NavItem[] = [
  { path: "chat", label: "Chat", render: () => <ChatPage /> },
  { path: "sessions", label: "Sessions", render: () => <SessionsPage /> },
  { path: "skills", label: "Skills", render: () => <SkillsPage /> },
  { path: "profiles", label: "Profiles", render: () => <ProfilesPage /> },
  { path: "kanban", label: "Kanban", render: () => <ComingPage title="Kanban" />, later: true },
  {
    path: "automations",
    label: "Automations",
    render: () => <ComingPage title="Automations" />,
    later: true,
  },
  { path: "terminal", label: "Terminal", render: () => <TerminalPage /> },
  { path: "settings", label: "Settings", render: () => <SettingsPage /> },
  { path: "status", label: "Status", render: () => <StatusPage /> },
];

/** `/api/status`, as far as the shell reads it. */
interface StatusBody {
  version: string;
  pinned_profile: string | null;
  profiles: string[];
}

/** The whole app. */
export function App() {
  const [refused, setRefused] = useState(isTokenRefused());
  useEffect(() => {
    const stop = onTokenRefused(setRefused);
    // One cheap authenticated call at start, so a wrong or expired token shows the
    // message at once rather than on the first action (a 401 flips the state).
    api("GET", "/api/actions", { profile: null }).catch(() => {});
    return stop;
  }, []);
  const route = useRoute();
  const [menuOpen, setMenuOpen] = useState(false);
  useEffect(() => setMenuOpen(false), [route.path]);
  if (refused) return <TokenScreen />;

  const section = route.segments[0] ?? "";
  const item = NAV.find((entry) => entry.path === section);
  if (!item) {
    if (section === "") navigate("/chat", { replace: true });
  }
  return (
    <div class="shell">
      <a class="skip-link" href="#main">Skip to content</a>
      <header class="topbar">
        <button
          type="button"
          class="menu-button"
          aria-label="Menu"
          aria-expanded={menuOpen}
          aria-controls="nav"
          onClick={() => setMenuOpen(!menuOpen)}
        >
          ☰
        </button>
        <Link href="/chat" class="brand">Herald</Link>
        <ProfileSwitcher />
        <ConnectionDot />
      </header>
      <nav id="nav" class={menuOpen ? "sidenav open" : "sidenav"} aria-label="Pages">
        {NAV.map((entry) => (
          <Link
            key={entry.path}
            href={`/${entry.path}`}
            class={entry === item ? "nav-link active" : entry.later ? "nav-link later" : "nav-link"}
            aria-current={entry === item ? "page" : undefined}
          >
            {entry.label}
            {entry.later && <span class="badge">soon</span>}
          </Link>
        ))}
      </nav>
      <main id="main" class="main" tabIndex={-1}>
        {item ? item.render() : section === "" ? null : <NotFound path={route.path} />}
      </main>
      <Toasts />
    </div>
  );
}

function NotFound(props: { path: string }) {
  return (
    <section class="page">
      <h1>Nothing here</h1>
      <p>
        There is no page at <code>{props.path}</code>. <Link href="/chat">Go to the chat</Link>.
      </p>
    </section>
  );
}

/** The header's profile switcher: sets `?profile=` for every page and call. */
function ProfileSwitcher() {
  const profile = useProfile();
  const [status, setStatus] = useState<StatusBody>();
  useEffect(() => {
    api<StatusBody>("GET", "/api/status", { profile: null }).then(setStatus, () => {});
    // Sent by the Profiles page after a create (/api/status may still answer from its cache).
    const changed = (event: Event) => {
      const profiles = (event as CustomEvent<string[]>).detail;
      setStatus((previous) => previous && { ...previous, profiles });
    };
    addEventListener(PROFILES_CHANGED_EVENT, changed);
    return () => removeEventListener(PROFILES_CHANGED_EVENT, changed);
  }, []);
  const profiles = status?.profiles ?? [];
  const selected = profile || status?.pinned_profile || "default";
  return (
    <label class="profile-switcher">
      <span class="visually-hidden">Profile</span>
      <select
        aria-label="Profile"
        value={selected}
        disabled={!status || status.pinned_profile !== null}
        onChange={(event) => {
          const name = (event.currentTarget as HTMLSelectElement).value;
          setProfile(name === "default" ? "" : name);
        }}
        onFocus={() =>
          api<StatusBody>("GET", "/api/status", { profile: null }).then(setStatus, () => {})}
      >
        {(profiles.includes(selected) ? profiles : [selected, ...profiles]).map((name) => (
          <option key={name} value={name}>{name}</option>
        ))}
      </select>
    </label>
  );
}

/** The live connection's state; shown once a page has used the connection. */
function ConnectionDot() {
  const [state, setState] = useState<RpcState>(rpc().state);
  const [used, setUsed] = useState(rpc().state !== "closed");
  useEffect(() =>
    rpc().onState((next) => {
      setState(next);
      if (next !== "closed") setUsed(true);
    }), []);
  if (!used) return null;
  const label = state === "open"
    ? "Connected"
    : state === "connecting"
    ? "Connecting"
    : "Not connected";
  return <span class={`conn conn-${state}`} title={label} aria-label={label} role="img" />;
}

/** Shown instead of the app once the server refuses the page's token. */
export function TokenScreen() {
  return (
    <main class="token-screen" role="alert">
      <h1>This page's session has ended</h1>
      <p>
        The dashboard did not accept this page's session token. That happens when the dashboard was
        restarted (each start makes a new token) or the address was copied without its token.
      </p>
      <p>
        Reopen the URL that <code>herald dashboard</code> printed when it started, or run{" "}
        <code>herald dashboard</code> again.
      </p>
    </main>
  );
}

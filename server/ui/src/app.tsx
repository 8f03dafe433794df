/**
 * The app shell: the header (brand, navigation, profile switcher,
 * connection state), the page for the current path, toasts, and the
 * token screen that replaces everything once the server refuses the token.
 */

import type { ComponentChildren } from "preact";
import { useEffect, useLayoutEffect, useRef, useState } from "preact/hooks";
import { api } from "./lib/api.ts";
import { isTokenRefused, onTokenRefused } from "./lib/auth_state.ts";
import { setProfile, useProfile } from "./lib/profile.ts";
import { navigate, useRoute } from "./lib/router.ts";
import { rpc, type RpcState } from "./lib/rpc.ts";
import { Link, Toasts } from "./components/ui.tsx";
import { lazyPage } from "./components/lazy_page.tsx";
import { ChatPage } from "./pages/chat/ChatPage.tsx";
import { PROFILES_CHANGED_EVENT } from "./pages/profiles_api.ts";

// The chat, the page most visits start on, is in the first download; every other page is its
// own chunk, fetched the first time it opens.
const SessionsPage = lazyPage(() => import("./pages/sessions.tsx").then((m) => m.SessionsPage));
const SkillsPage = lazyPage(() => import("./pages/skills.tsx").then((m) => m.SkillsPage));
const ProfilesPage = lazyPage(() => import("./pages/profiles.tsx").then((m) => m.ProfilesPage));
const SettingsPage = lazyPage(() =>
  import("./pages/settings/SettingsPage.tsx").then((m) => m.SettingsPage)
);
const TerminalPage = lazyPage(() => import("./pages/terminal.tsx").then((m) => m.TerminalPage));
const StatusPage = lazyPage(() => import("./pages/status.tsx").then((m) => m.StatusPage));
const AutomationsPage = lazyPage(() =>
  import("./pages/automations.tsx").then((m) => m.AutomationsPage)
);
const KanbanPage = lazyPage(() => import("./pages/kanban.tsx").then((m) => m.KanbanPage));

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
  { path: "kanban", label: "Kanban", render: () => <KanbanPage /> },
  { path: "automations", label: "Automations", render: () => <AutomationsPage /> },
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
  const section = route.segments[0] ?? "";
  const item = NAV.find((entry) => entry.path === section);
  useEffect(() => {
    if (section === "") navigate("/chat", { replace: true });
  }, [section]);
  const menu = usePhoneMenu(route.path);
  if (refused) return <TokenScreen />;

  return (
    <div class="shell">
      <a class="skip-link" href="#main">Skip to content</a>
      <header class="topbar">
        <button
          type="button"
          class="menu-button"
          ref={menu.button}
          aria-label="Menu"
          aria-expanded={menu.open}
          aria-controls="nav"
          onClick={() => menu.setOpen(!menu.open)}
        >
          ☰
        </button>
        <Link href="/chat" class="brand">Herald</Link>
        <ProfileSwitcher />
        <ConnectionDot />
      </header>
      {menu.open && (
        <div
          class="nav-scrim"
          aria-hidden="true"
          onClick={() => menu.setOpen(false)}
        />
      )}
      <nav
        id="nav"
        ref={menu.nav}
        class={menu.open ? "sidenav open" : "sidenav"}
        aria-label="Pages"
        onClick={(event) => {
          if ((event.target as Element).closest("a")) menu.chose();
        }}
      >
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
      <main id="main" class="main" tabIndex={-1} inert={menu.open}>
        {item ? item.render() : section === "" ? null : <NotFound path={route.path} />}
      </main>
      <Toasts />
    </div>
  );
}

/** The media query under which the navigation folds behind the menu button (styles.css). */
const PHONE_QUERY = "(max-width: 760px)";

/**
 * The phone's navigation panel: opening it moves the focus to the current
 * page's link; Escape, the scrim or the menu button close it and give the
 * focus back to the menu button; choosing a page closes it and the focus
 * goes to that page's `<main>`. It closes by itself on another path and
 * when the screen grows past the phone layout.
 */
function usePhoneMenu(path: string) {
  const [open, setOpen] = useState(false);
  const button = useRef<HTMLButtonElement>(null);
  const nav = useRef<HTMLElement>(null);
  // Where the focus goes when the panel closes: the menu button, or the page chosen.
  const returnTo = useRef<"button" | "main">("button");
  const wasOpen = useRef(false);
  useEffect(() => setOpen(false), [path]);
  // A layout effect: the focus moves in the same frame the panel opens or closes, before anyone
  // (a person or a test) can act on the page in between.
  useLayoutEffect(() => {
    if (open) {
      returnTo.current = "button";
      const links = nav.current?.querySelectorAll<HTMLElement>("a");
      (nav.current?.querySelector<HTMLElement>('[aria-current="page"]') ?? links?.[0])?.focus();
    } else if (wasOpen.current) {
      // After the render that took `inert` off <main>, so it can take the focus.
      if (returnTo.current === "main") {
        document.getElementById("main")?.focus({ preventScroll: true });
      } else button.current?.focus();
    }
    wasOpen.current = open;
    if (!open) return;
    const onKey = (event: KeyboardEvent) => {
      if (event.key !== "Escape") return;
      event.preventDefault();
      setOpen(false);
    };
    const phone = matchMedia(PHONE_QUERY);
    const onResize = () => !phone.matches && setOpen(false);
    document.addEventListener("keydown", onKey);
    phone.addEventListener("change", onResize);
    return () => {
      document.removeEventListener("keydown", onKey);
      phone.removeEventListener("change", onResize);
    };
  }, [open]);
  return {
    open,
    setOpen,
    button,
    nav,
    /** A page was chosen in the panel: close it; the page takes the focus. */
    chose() {
      if (!wasOpen.current) return;
      returnTo.current = "main";
      setOpen(false);
    },
  };
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

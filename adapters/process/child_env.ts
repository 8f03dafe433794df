/**
 * The environment of a program Herald starts for the user or the model (a
 * terminal command, the dashboard terminal's shell, an MCP server): an
 * allowlist of harmless variables from Herald's own environment, plus what
 * the profile passes on by name (`terminal.env_passthrough`), plus what the
 * caller sets. Nothing else is inherited: credentials exported in the shell
 * that started Herald (`AWS_SECRET_ACCESS_KEY`, `GITHUB_PAT`, a
 * `DATABASE_URL` with a password) and the values of the profile's `.env`
 * never reach a child unless the profile names them.
 *
 * Herald never copies `.env` into its own environment; `.env` values are
 * read through a lookup (adapters/home/credentials.ts), so the only way one
 * reaches a child is a passthrough name or a caller's explicit `extra`.
 *
 * @module
 */

/**
 * Variables every child inherits when Herald has them. They say where things
 * are and how to display them, never who the user is to another service.
 *
 * Left out on purpose: `SSH_AUTH_SOCK` (it lets the child sign with the
 * user's SSH keys; list it in `terminal.env_passthrough` to allow that),
 * `GPG_AGENT_INFO`, cloud and service credentials, and everything else.
 */
export const CHILD_ENV_ALLOWLIST: readonly string[] = [
  // Who and where.
  "PATH",
  "HOME",
  "USER",
  "LOGNAME",
  "SHELL",
  "PWD",
  "HOSTNAME",
  "TMPDIR",
  "TMP",
  "TEMP",
  // Terminal and display.
  "TERM",
  "COLORTERM",
  "NO_COLOR",
  "FORCE_COLOR",
  "DISPLAY",
  "WAYLAND_DISPLAY",
  "XDG_RUNTIME_DIR",
  // Language and time (LC_* below).
  "LANG",
  "LANGUAGE",
  "TZ",
  // Programs the user chose.
  "EDITOR",
  "VISUAL",
  "PAGER",
  // Certificate stores (paths, not secrets).
  "SSL_CERT_FILE",
  "SSL_CERT_DIR",
  "NODE_EXTRA_CA_CERTS",
  "REQUESTS_CA_BUNDLE",
  "CURL_CA_BUNDLE",
  "GIT_SSL_CAINFO",
  "DENO_CERT",
  "DENO_DIR",
  "DENO_TLS_CA_STORE",
  // Herald's own pointers: which home `herald` commands act on, the task a kanban worker runs.
  "HERALD_HOME",
  "HERALD_KANBAN_TASK",
  // Windows basics (matched without regard to case there).
  "SystemRoot",
  "SystemDrive",
  "windir",
  "ComSpec",
  "PATHEXT",
  "USERPROFILE",
  "USERNAME",
  "USERDOMAIN",
  "HOMEDRIVE",
  "HOMEPATH",
  "APPDATA",
  "LOCALAPPDATA",
  "ProgramData",
  "ProgramFiles",
  "ProgramFiles(x86)",
  "ProgramW6432",
  "CommonProgramFiles",
  "COMPUTERNAME",
  "OS",
  "PROCESSOR_ARCHITECTURE",
  "NUMBER_OF_PROCESSORS",
];

/** Families of allowed names: `LC_*` locale categories and the XDG base folders. */
const ALLOWED_PATTERNS: readonly RegExp[] = [/^LC_[A-Z]+$/, /^XDG_[A-Z]+_(HOME|DIRS)$/];

/**
 * Proxy settings, passed on with any `user:password@` removed from the URL
 * (a proxy that needs credentials is listed in `terminal.env_passthrough`,
 * which passes the value as it is).
 */
export const CHILD_ENV_PROXIES: readonly string[] = [
  "http_proxy",
  "https_proxy",
  "all_proxy",
  "no_proxy",
  "HTTP_PROXY",
  "HTTPS_PROXY",
  "ALL_PROXY",
  "NO_PROXY",
];

/** A list of names, looked up as it is or upper-cased (to match without regard to case). */
interface NameSet {
  exact: ReadonlySet<string>;
  upper: ReadonlySet<string>;
}

function nameSet(names: readonly string[]): NameSet {
  return { exact: new Set(names), upper: new Set(names.map((name) => name.toUpperCase())) };
}

function listed(set: NameSet, name: string, caseInsensitive: boolean): boolean {
  return caseInsensitive ? set.upper.has(name.toUpperCase()) : set.exact.has(name);
}

const ALLOWED = nameSet(CHILD_ENV_ALLOWLIST);
const PROXIES = nameSet(CHILD_ENV_PROXIES);

/** Never passed on, even when listed: it would let a command drive the dashboard's API. */
const NEVER_PASSED = new Set(["HERALD_DASHBOARD_SESSION_TOKEN"]);

/** Options of {@link childEnvironment}. */
export interface ChildEnvironmentOptions {
  /**
   * Names passed on besides the allowlist (the profile's
   * `terminal.env_passthrough`), with their values as they are.
   */
  passthrough?: readonly string[];
  /**
   * Where passthrough names are looked up; defaults to `parent`. A profile
   * passes its credentials lookup (the profile's `.env`, then the environment).
   */
  lookup?: (name: string) => string | undefined;
  /** Set last, over everything else (for example `HERALD_HOME` or `TERM`). */
  extra?: Readonly<Record<string, string>>;
  /** Match names without regard to case (default: on Windows, where the environment does). */
  caseInsensitive?: boolean;
}

/**
 * Whether `name` is on the built-in allowlist (proxies included).
 *
 * @example
 * ```ts
 * isAllowedChildVariable("LC_ALL"); // true
 * isAllowedChildVariable("AWS_SECRET_ACCESS_KEY"); // false
 * ```
 */
export function isAllowedChildVariable(name: string, caseInsensitive = false): boolean {
  return listed(ALLOWED, name, caseInsensitive) || listed(PROXIES, name, caseInsensitive) ||
    ALLOWED_PATTERNS.some((pattern) => pattern.test(name));
}

/**
 * A proxy URL without its `user:password@` part (`http://u:p@proxy:3128` →
 * `http://proxy:3128`); other values unchanged.
 */
export function withoutUserinfo(value: string): string {
  return value.replace(/^([A-Za-z][A-Za-z0-9+.-]*:\/\/)?[^/?#\s]*@/, "$1");
}

/**
 * The whole environment of a child process: the allowlisted variables of
 * `parent`, then the passthrough names, then `extra`. Variables without a
 * value are left out.
 *
 * @example
 * ```ts
 * const env = childEnvironment(Deno.env.toObject(), {
 *   passthrough: ["GITHUB_TOKEN"],
 *   lookup: credentials.lookup,
 *   extra: { HERALD_HOME: paths.home },
 * });
 * new Deno.Command("bash", { args: ["-c", command], env, clearEnv: true });
 * ```
 */
export function childEnvironment(
  parent: Readonly<Record<string, string | undefined>>,
  options: ChildEnvironmentOptions = {},
): Record<string, string> {
  const caseInsensitive = options.caseInsensitive ?? Deno.build.os === "windows";
  const env: Record<string, string> = {};
  for (const [name, value] of Object.entries(parent)) {
    if (value === undefined || !isAllowedChildVariable(name, caseInsensitive)) continue;
    env[name] = listed(PROXIES, name, caseInsensitive) ? withoutUserinfo(value) : value;
  }
  const lookup = options.lookup ?? ((name: string) => parent[name]);
  for (const name of options.passthrough ?? []) {
    if (NEVER_PASSED.has(name.toUpperCase())) continue;
    const value = lookup(name);
    if (value !== undefined) env[name] = value;
  }
  return { ...env, ...options.extra };
}

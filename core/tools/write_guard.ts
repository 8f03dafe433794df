/**
 * Which files the agent's file tools may write. Credential and system
 * files are refused outright (no approval can allow them): a prompt-injected
 * `write_file ~/.ssh/authorized_keys` must fail whatever the user clicks.
 * An optional write root refuses everything outside it; a write outside the
 * working directory is asked about like a dangerous command.
 *
 * Pure: the caller passes absolute paths with symbolic links already
 * resolved (adapters/tools/files/_write_guard.ts does), so a link inside
 * the project that points at `~/.ssh/id_rsa` is judged as `~/.ssh/id_rsa`.
 *
 * @module
 */

/** Where a write would land, and the folders that decide about it (all absolute, links resolved). */
export interface WriteTarget {
  /** The file to write. */
  path: string;
  /** The working directory of the session. */
  cwd: string;
  /** The user's home folder (`~`). */
  userHome: string;
  /** Herald's root home (every profile lives under it). */
  heraldRoot: string;
  /** `HERALD_WRITE_SAFE_ROOT` or `tools.write_safe_root`: nothing outside it is written. */
  safeRoot?: string;
}

/** What may happen to a write. */
export type WriteVerdict =
  | { kind: "allow" }
  | { kind: "refuse"; code: "protected_path" | "outside_write_root"; reason: string }
  | { kind: "ask"; reason: string; ruleKey: string };

/** Credential folders under the user's home: nothing in them is written. */
const CREDENTIAL_DIRS = [
  ".ssh",
  ".gnupg",
  ".aws",
  ".azure",
  ".kube",
  ".config/gcloud",
  ".config/gh",
  ".password-store",
  ".local/share/keyrings",
  ".docker",
];

/** Credential files under the user's home. */
const CREDENTIAL_FILES = [
  ".netrc",
  ".git-credentials",
  ".config/git/credentials",
  ".npmrc",
  ".pypirc",
  ".pgpass",
  ".my.cnf",
];

/** System folders (Linux, macOS, Windows). */
const SYSTEM_DIRS = [
  "/etc",
  "/bin",
  "/sbin",
  "/usr",
  "/lib",
  "/lib32",
  "/lib64",
  "/libx32",
  "/boot",
  "/sys",
  "/proc",
  "/dev",
  "/snap",
  "/var/lib",
  "/var/log",
  "/var/spool",
  "/System",
  "/Library",
  "/private/etc",
  "c:/windows",
  "c:/program files",
  "c:/program files (x86)",
];

/** Folders of a Herald home the agent may write into with the file tools (it authors skills). */
const WRITABLE_HOME_DIRS = ["skills", "skill-bundles"];

/** `.env` variants that hold no secrets by convention. */
const ENV_TEMPLATES = new Set(["example", "sample", "template", "dist", "defaults", "schema"]);

/** Forward slashes, no trailing slash; drive letters lower-cased (Windows compares without case). */
function normal(path: string): string {
  let out = path.replaceAll("\\", "/");
  if (out.length > 1 && out.endsWith("/")) out = out.slice(0, -1);
  return /^[A-Za-z]:/.test(out) ? out.toLowerCase() : out;
}

function inside(path: string, folder: string): boolean {
  const p = normal(path);
  const f = normal(folder);
  return p === f || p.startsWith(f === "/" ? "/" : `${f}/`);
}

function baseName(path: string): string {
  const p = normal(path);
  return p.slice(p.lastIndexOf("/") + 1);
}

function parentOf(path: string): string {
  const p = normal(path);
  const at = p.lastIndexOf("/");
  return at <= 0 ? "/" : p.slice(0, at);
}

/** True for `.env`, `.env.local`, `.envrc` and the like; not for `.env.example`. */
export function isEnvFileName(name: string): boolean {
  if (name === ".env" || name === ".envrc") return true;
  if (!name.startsWith(".env.")) return false;
  return !ENV_TEMPLATES.has(name.slice(".env.".length).toLowerCase());
}

/** The Herald home that holds `path` (the root or `profiles/<name>`), with `path` relative to it. */
function heraldHomePart(path: string, root: string): string | undefined {
  if (!inside(path, root)) return undefined;
  const rest = normal(path).slice(normal(root).length).replace(/^\//, "");
  const parts = rest.split("/");
  if (parts[0] === "profiles") return parts.length > 2 ? parts.slice(2).join("/") : "";
  return rest;
}

function protectedReason(target: WriteTarget): string | undefined {
  const { path, userHome, heraldRoot } = target;
  if (isEnvFileName(baseName(path))) return "a .env file holds secrets";
  const homePart = heraldHomePart(path, heraldRoot);
  if (homePart !== undefined) {
    const top = homePart.split("/")[0];
    if (!WRITABLE_HOME_DIRS.includes(top) || !homePart.includes("/")) {
      return "it is part of Herald's own home (settings, secrets, sessions)";
    }
  }
  for (const dir of CREDENTIAL_DIRS) {
    if (inside(path, `${userHome}/${dir}`)) return "it is a credential folder";
  }
  for (const file of CREDENTIAL_FILES) {
    if (normal(path) === normal(`${userHome}/${file}`)) return "it is a credential file";
  }
  for (const dir of SYSTEM_DIRS) {
    if (inside(path, dir)) return "it is a system folder";
  }
  return undefined;
}

/**
 * Why `path` is protected (a `.env` file, Herald's own home, a credential
 * or system folder), or undefined when it is not. The same lists keep the
 * gateway from sending such a file to a chat (`MEDIA:<path>` in an answer).
 * `path`, `userHome` and `heraldRoot` are absolute with links resolved.
 *
 * @example
 * ```ts
 * protectedPathReason("/home/me/.herald/.env", "/home/me", "/home/me/.herald");
 * // "a .env file holds secrets"
 * ```
 */
export function protectedPathReason(
  path: string,
  userHome: string,
  heraldRoot: string,
): string | undefined {
  return protectedReason({ path, cwd: "/", userHome, heraldRoot });
}

/**
 * Judges a write by the agent's file tools: refused for a protected file or
 * outside the write root, asked about outside the working directory, else
 * allowed. The rule key of an "ask" names the folder, so approving a write
 * to `/tmp/out` for the session does not approve writes anywhere else.
 *
 * @example
 * ```ts
 * judgeWrite({ path: "/home/me/.ssh/id_rsa", cwd: "/work", userHome: "/home/me", heraldRoot: "/home/me/.herald" });
 * // { kind: "refuse", code: "protected_path", reason: "Write denied: ... credential folder ..." }
 * ```
 */
export function judgeWrite(target: WriteTarget): WriteVerdict {
  const why = protectedReason(target);
  if (why !== undefined) {
    return {
      kind: "refuse",
      code: "protected_path",
      reason: `Write denied: "${target.path}" is protected (${why}); the file tools never ` +
        "write it. Ask the user to make this change themselves",
    };
  }
  if (target.safeRoot !== undefined && !inside(target.path, target.safeRoot)) {
    return {
      kind: "refuse",
      code: "outside_write_root",
      reason: `Write denied: "${target.path}" is outside the write root ${target.safeRoot} ` +
        "(HERALD_WRITE_SAFE_ROOT or tools.write_safe_root); write inside it",
    };
  }
  if (!inside(target.path, target.cwd)) {
    const folder = parentOf(target.path);
    return {
      kind: "ask",
      reason: `write outside the working directory (${folder})`,
      ruleKey: `write_outside_workdir:${folder}`,
    };
  }
  return { kind: "allow" };
}

/**
 * The gateway as a user service that starts at login and restarts after a
 * crash: a systemd user unit on Linux
 * (`~/.config/systemd/user/herald-gateway[-<profile>].service`, under
 * `XDG_CONFIG_HOME` when set) or a launchd agent on macOS
 * (`~/Library/LaunchAgents/ai.herald.gateway[.<profile>].plist`). Either
 * runs `herald [-p <profile>] gateway run` with the command this Herald
 * runs as (adapters/process/herald_command.ts) and `HERALD_HOME` set to
 * the home it serves. An existing file is never replaced unless asked.
 *
 * @module
 */

import { LEAN_V8_FLAGS } from "../process/lean_memory.ts";
import { dirname, join } from "node:path";
import { HeraldError } from "../../core/errors.ts";
import { DEFAULT_PROFILE } from "../../core/profiles/names.ts";
import { writeFileAtomic } from "../fs/atomic.ts";
import { missing } from "../fs/read.ts";

/** The service managers Herald writes for. */
export type ServiceManager = "systemd" | "launchd";

/** What a service runs. */
export interface ServiceSpec {
  manager: ServiceManager;
  profile: string;
  /** The command that runs Herald, program first. */
  command: readonly string[];
  /** The root home the gateway serves (`HERALD_HOME`). */
  root: string;
  /** Where launchd sends the output (systemd keeps it in the journal). */
  logPath: string;
  /** The user's home folder (launchd's working folder). */
  userHome: string;
}

/** The service manager of `os`, or undefined where Herald writes none. */
export function serviceManagerFor(os: typeof Deno.build.os): ServiceManager | undefined {
  if (os === "linux") return "systemd";
  if (os === "darwin") return "launchd";
  return undefined;
}

/** `herald-gateway` for the default profile, `herald-gateway-<profile>` otherwise. */
export function serviceName(profile: string): string {
  return profile === DEFAULT_PROFILE ? "herald-gateway" : `herald-gateway-${profile}`;
}

/** launchd's label: `ai.herald.gateway[.<profile>]`. */
export function launchdLabel(profile: string): string {
  return profile === DEFAULT_PROFILE ? "ai.herald.gateway" : `ai.herald.gateway.${profile}`;
}

/** Where the service file goes, from the user's environment. */
export function servicePath(
  manager: ServiceManager,
  profile: string,
  env: { HOME?: string; XDG_CONFIG_HOME?: string },
): string {
  const home = env.HOME?.trim();
  if (manager === "systemd") {
    const config = env.XDG_CONFIG_HOME?.trim() || (home ? join(home, ".config") : undefined);
    if (!config) throw noHome();
    return join(config, "systemd", "user", `${serviceName(profile)}.service`);
  }
  if (!home) throw noHome();
  return join(home, "Library", "LaunchAgents", `${launchdLabel(profile)}.plist`);
}

function noHome(): HeraldError {
  return new HeraldError(
    "gateway_service_no_home",
    "usage",
    "Cannot tell where user services live: HOME is not set; set HOME (or XDG_CONFIG_HOME)",
  );
}

/** Control characters: never in a path or argument a service file holds. */
// deno-lint-ignore no-control-regex
const CONTROL = /[\x00-\x1f\x7f]/;

function checkValue(what: string, value: string): void {
  if (!CONTROL.test(value)) return;
  throw new HeraldError(
    "gateway_service_value_invalid",
    "usage",
    `The ${what} ${JSON.stringify(value)} holds a control character (a line break or a tab), ` +
      "so no service file is written for it",
  );
}

/** The arguments the service runs, program first. */
function serviceArgs(spec: ServiceSpec): string[] {
  const args = [...spec.command];
  if (spec.profile !== DEFAULT_PROFILE) args.push("-p", spec.profile);
  args.push("gateway", "run");
  for (const arg of args) checkValue("command argument", arg);
  checkValue("home folder", spec.root);
  return args;
}

/**
 * One word of a systemd command line (`ExecStart=`, where `$` is escaped
 * too) or of an assignment (`Environment=`): quoted when needed, `%`
 * escaped.
 */
export function systemdQuote(value: string, commandLine = true): string {
  let escaped = value.replaceAll("\\", "\\\\").replaceAll('"', '\\"').replaceAll("%", "%%");
  if (commandLine) escaped = escaped.replaceAll("$", "$$$$");
  return /^[A-Za-z0-9_@%+=:,./-]+$/.test(value) ? escaped : `"${escaped}"`;
}

/**
 * Whether the service file `text` (a systemd unit or a launchd plist this
 * module wrote) serves exactly the home `root`: its `HERALD_HOME` is `root`,
 * not merely a path that starts with it.
 */
export function servesHome(text: string, root: string): boolean {
  const lines = text.split(/\r?\n/).map((line) => line.trim());
  if (lines.includes(`Environment=${systemdQuote(`HERALD_HOME=${root}`, false)}`)) return true;
  const key = lines.indexOf("<key>HERALD_HOME</key>");
  return key !== -1 && lines[key + 1] === `<string>${xmlEscape(root)}</string>`;
}

/** The systemd user unit of `spec`. */
export function systemdUnit(spec: ServiceSpec): string {
  const exec = serviceArgs(spec).map((arg) => systemdQuote(arg)).join(" ");
  const profile = spec.profile === DEFAULT_PROFILE ? "" : ` (profile ${spec.profile})`;
  return [
    "# Written by `herald gateway install`; rewrite it with `herald gateway install --force`.",
    "[Unit]",
    `Description=Herald messaging gateway${profile}`,
    "After=network-online.target",
    "Wants=network-online.target",
    "",
    "[Service]",
    "Type=simple",
    `Environment=${systemdQuote(`HERALD_HOME=${spec.root}`, false)}`,
    // A lean heap for a long-lived process (adapters/process/lean_memory.ts).
    `Environment=${systemdQuote(`DENO_V8_FLAGS=${LEAN_V8_FLAGS}`, false)}`,
    `ExecStart=${exec}`,
    "WorkingDirectory=%h",
    "Restart=on-failure",
    "RestartSec=5",
    // The gateway stops its turns and sends within about 30 s; then systemd kills what is left.
    "TimeoutStopSec=45",
    "KillMode=mixed",
    "",
    "[Install]",
    "WantedBy=default.target",
    "",
  ].join("\n");
}

function xmlEscape(value: string): string {
  return value.replaceAll("&", "&amp;").replaceAll("<", "&lt;").replaceAll(">", "&gt;")
    .replaceAll('"', "&quot;");
}

/** The launchd agent of `spec`. */
export function launchdPlist(spec: ServiceSpec): string {
  const strings = (values: readonly string[], indent: string) =>
    values.map((value) => `${indent}<string>${xmlEscape(value)}</string>`).join("\n");
  checkValue("log path", spec.logPath);
  return `<?xml version="1.0" encoding="UTF-8"?>
<!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
<!-- Written by \`herald gateway install\`; rewrite it with \`herald gateway install --force\`. -->
<plist version="1.0">
<dict>
  <key>Label</key>
  <string>${xmlEscape(launchdLabel(spec.profile))}</string>
  <key>ProgramArguments</key>
  <array>
${strings(serviceArgs(spec), "    ")}
  </array>
  <key>EnvironmentVariables</key>
  <dict>
    <key>HERALD_HOME</key>
    <string>${xmlEscape(spec.root)}</string>
    <key>DENO_V8_FLAGS</key>
    <string>${xmlEscape(LEAN_V8_FLAGS)}</string>
  </dict>
  <key>WorkingDirectory</key>
  <string>${xmlEscape(spec.userHome)}</string>
  <key>RunAtLoad</key>
  <true/>
  <key>KeepAlive</key>
  <dict>
    <key>SuccessfulExit</key>
    <false/>
  </dict>
  <key>StandardOutPath</key>
  <string>${xmlEscape(spec.logPath)}</string>
  <key>StandardErrorPath</key>
  <string>${xmlEscape(spec.logPath)}</string>
</dict>
</plist>
`;
}

/** The commands that enable and start the service, and where its log is read. */
export function enableCommands(manager: ServiceManager, profile: string, path: string): string[] {
  if (manager === "systemd") {
    const name = `${serviceName(profile)}.service`;
    return [
      "systemctl --user daemon-reload",
      `systemctl --user enable --now ${name}`,
      `journalctl --user -u ${name} -f    # its log`,
      'loginctl enable-linger "$USER"    # keep it running after you log out',
    ];
  }
  return [
    `launchctl bootstrap gui/$(id -u) '${path.replaceAll("'", "'\\''")}'`,
    `launchctl kickstart -k gui/$(id -u)/${launchdLabel(profile)}`,
  ];
}

/** What {@link installService} wrote. */
export interface InstalledService {
  path: string;
  /** An older file was replaced (`force`). */
  replaced: boolean;
}

/**
 * Writes the service file of `spec` at `path`.
 *
 * @throws HeraldError `gateway_service_exists` (conflict) when a file is there and `force` is not set.
 */
export async function installService(
  spec: ServiceSpec,
  path: string,
  force: boolean,
): Promise<InstalledService> {
  const text = spec.manager === "systemd" ? systemdUnit(spec) : launchdPlist(spec);
  let replaced = false;
  try {
    const info = await Deno.lstat(path);
    if (!info.isFile) {
      throw new HeraldError(
        "gateway_service_exists",
        "conflict",
        `${path} exists and is not a file; remove it first`,
        { details: { path } },
      );
    }
    if (!force) {
      throw new HeraldError(
        "gateway_service_exists",
        "conflict",
        `${path} already exists; nothing was written. Replace it with ` +
          "`herald gateway install --force`",
        { details: { path } },
      );
    }
    replaced = true;
  } catch (error) {
    if (!missing(error)) throw error;
  }
  await Deno.mkdir(dirname(path), { recursive: true });
  await writeFileAtomic(path, text, { mode: 0o644, forceMode: true });
  return { path, replaced };
}

/**
 * `/codex-runtime` and `herald codex-runtime`: which runtime runs the turns
 * (`model.openai_runtime`: Herald's own loop, or the Codex app-server),
 * switching it, and the managed block in Codex's config.toml (Herald's tool
 * server, the permission profile, Herald's MCP servers). Enabling needs the
 * `codex` program to answer a version check; a switch applies from the next
 * session. Deferring a switch while a turn runs is the conversation's job.
 *
 * @module
 */

import { type ConfigEditPlan, parseConfig, planConfigEdits } from "../config/mod.ts";
import type { HeraldConfig } from "../config/schema.ts";
import {
  mergeManagedBlock,
  renderManagedBlock,
  scanToml,
  TomlScanError,
  userSettings,
} from "../codex/config_toml.ts";
import { migrateMcpServers, type ToolServerCommand } from "../codex/mcp_servers.ts";
import { PERMISSION_PROFILES, permissionSettings } from "../codex/permissions.ts";
import type { OpenAiRuntime } from "../commands/runtime.ts";
import type { ConfigFiles } from "./ports.ts";

export { type OpenAiRuntime, parseRuntimeArgument } from "../commands/runtime.ts";

/** The config key that holds the runtime. */
export const RUNTIME_KEY = "model.openai_runtime";

/** How to get the Codex CLI. */
export const CODEX_INSTALL_HINT = "npm install -g @openai/codex";

/** The `codex` program. */
export interface CodexProgram {
  /** "codex-cli 0.169.0", or null when missing or not answering within 5 s. */
  version(): Promise<string | null>;
}

/** Codex's config.toml. */
export interface CodexConfigFile {
  readonly path: string;
  /** The text, or null when there is no file. */
  read(): Promise<string | null>;
  /** Atomic; keeps the file's mode, 0600 for a new file (its folder is created). */
  write(text: string): Promise<void>;
}

/** What the runtime use cases work through. */
export interface CodexRuntimePorts {
  /** The profile's config.yaml (read, and edited under its lock). */
  files: ConfigFiles;
  program: CodexProgram;
  codexConfig: CodexConfigFile;
  /** How Codex starts Herald's tool server for this profile (`herald mcp serve`). */
  toolServer: ToolServerCommand;
}

/** What a switch did. */
export interface RuntimeSwitchResult {
  /** False when the switch was refused (nothing written). */
  ok: boolean;
  /** The runtime in config.yaml afterwards. */
  mode: OpenAiRuntime;
  /** What to tell the user, one or more lines. */
  text: string;
  warnings: string[];
}

/** What writing the managed block did. */
export interface CodexMigration {
  /** True when config.toml holds the block as rendered now. */
  written: boolean;
  path: string;
  /** Herald's MCP servers written into the block. */
  migrated: string[];
  /** Variables codex's process needs (the MCP servers get them by name). */
  forwardedEnv: string[];
  warnings: string[];
}

function runtimeLabel(mode: OpenAiRuntime): string {
  return mode === "codex_app_server"
    ? "codex_app_server (turns run by the Codex app-server)"
    : "auto (Herald's own loop)";
}

function missingCodex(): string {
  return "The codex program did not answer `codex --version` (not on PATH, or not responding " +
    `within 5 s). Install it with \`${CODEX_INSTALL_HINT}\`, sign in with \`codex login\` ` +
    "(or set OPENAI_API_KEY), then switch again.";
}

async function readConfig(files: ConfigFiles): Promise<HeraldConfig> {
  return parseConfig(await files.readConfigText(), files.configPath).config;
}

function problem(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/**
 * The state, one fact a line: the runtime, the codex version (or "not
 * installed"), Codex's config.toml and the permission level.
 *
 * @throws ConfigParseError when config.yaml is not YAML.
 */
export async function describeCodexRuntime(ports: CodexRuntimePorts): Promise<string> {
  const config = await readConfig(ports.files);
  const version = await ports.program.version();
  const level = config.codex.permissions;
  return [
    `Runtime: ${runtimeLabel(config.model.openai_runtime)}`,
    `Codex: ${version ?? `not installed (\`${CODEX_INSTALL_HINT}\`)`}`,
    `Codex config: ${ports.codexConfig.path}`,
    `Permissions: ${level} (${PERMISSION_PROFILES[level]})`,
  ].join("\n");
}

/**
 * Switches the runtime. Enabling checks the codex version first (missing:
 * refused with the install hint, config.yaml untouched), writes
 * `model.openai_runtime` under the config lock (comments kept), then the
 * managed block; a failed migration only warns. Disabling writes `auto` and
 * leaves config.toml alone. Applies from the next session.
 *
 * @throws ConfigParseError when config.yaml is not YAML (nothing is written).
 */
export async function switchCodexRuntime(
  ports: CodexRuntimePorts,
  mode: OpenAiRuntime,
): Promise<RuntimeSwitchResult> {
  let version: string | null = null;
  if (mode === "codex_app_server") {
    version = await ports.program.version();
    if (version === null) {
      const current = (await readConfig(ports.files)).model.openai_runtime;
      return { ok: false, mode: current, text: missingCodex(), warnings: [] };
    }
  }
  const file = ports.files.configPath;
  const plan = await ports.files.updateConfig((current): ConfigEditPlan | null => {
    if (parseConfig(current, file).config.model.openai_runtime === mode) return null;
    return planConfigEdits(current, file, [{ key: RUNTIME_KEY, value: mode }]);
  });
  const changed = plan !== null && plan.text !== null;
  const lines: string[] = [];
  const warnings: string[] = [];
  const label = runtimeLabel(mode);
  const using = version ? ` with ${version}` : "";
  if (changed) lines.push(`Runtime set to ${label}${using}.`);
  if (mode === "codex_app_server") {
    const migration = await migrateCodexConfig(ports);
    warnings.push(...migration.warnings);
    lines.push(migrationSummary(migration));
  }
  lines.push(changed ? "Applies from the next session." : `Already using ${label}${using}.`);
  return { ok: true, mode, text: lines.join("\n"), warnings };
}

/** One line about a migration, for the switch's text. */
export function migrationSummary(migration: CodexMigration): string {
  if (!migration.written) {
    return `Codex config ${migration.path} was not updated (see the warnings).`;
  }
  const servers = migration.migrated.length > 0
    ? `; MCP servers migrated: ${migration.migrated.join(", ")}`
    : "";
  return `Codex config ${migration.path}: Herald's block written${servers}.`;
}

/**
 * Refuses a merged text the scanner reads as defining a key twice, or a
 * table header over a key the root table already set: codex would reject it.
 */
function checkMerged(text: string): void {
  const scan = scanToml(text);
  const firstHeader = scan.headers[0]?.line ?? Infinity;
  const seen = new Set<string>();
  for (const { path, line } of scan.keys) {
    const key = JSON.stringify(path);
    if (seen.has(key)) throw new TomlScanError(line, `"${path.join(".")}" would be set twice`);
    seen.add(key);
  }
  const rootKeys = scan.keys.filter((key) => key.line < firstHeader).map((key) => key.path);
  for (const header of scan.headers) {
    if (header.array) continue;
    const clash = rootKeys.some((path) =>
      path.length >= header.path.length && header.path.every((part, i) => path[i] === part)
    );
    if (clash) {
      throw new TomlScanError(
        header.line,
        `[${header.path.join(".")}] repeats a table the top of the file already defines ` +
          "with dotted keys",
      );
    }
  }
}

/**
 * Writes the managed block into Codex's config.toml from the profile's
 * current config: Herald's tool server, the permission profile, Herald's
 * MCP servers. Settings the user makes outside the block are kept and left
 * out of it. Never throws for file trouble: it is reported in `warnings`
 * and `written` is false.
 */
export async function migrateCodexConfig(ports: CodexRuntimePorts): Promise<CodexMigration> {
  const path = ports.codexConfig.path;
  const result: CodexMigration = {
    written: false,
    path,
    migrated: [],
    forwardedEnv: [],
    warnings: [],
  };
  let config: HeraldConfig;
  try {
    config = await readConfig(ports.files);
  } catch (error) {
    result.warnings.push(`Codex config not updated: ${problem(error)}`);
    return result;
  }
  let existing: string | null;
  try {
    existing = await ports.codexConfig.read();
  } catch (error) {
    result.warnings.push(`Codex config not updated: cannot read ${path}: ${problem(error)}`);
    return result;
  }
  try {
    const user = userSettings(existing);
    const permissions = permissionSettings(config.codex.permissions, user);
    const mcp = migrateMcpServers(config.mcp_servers, ports.toolServer, user);
    result.warnings.push(...permissions.notes, ...mcp.warnings);
    const block = renderManagedBlock([...permissions.entries, ...mcp.entries]);
    const merged = mergeManagedBlock(existing, block);
    checkMerged(merged);
    if (merged !== existing) await ports.codexConfig.write(merged);
    result.written = true;
    result.migrated = mcp.migrated;
    result.forwardedEnv = mcp.forwardedEnv;
  } catch (error) {
    const fix = error instanceof TomlScanError
      ? "; fix the file, then run `herald codex-runtime migrate`"
      : "";
    result.warnings.push(`Codex config ${path} not updated: ${problem(error)}${fix}`);
  }
  return result;
}

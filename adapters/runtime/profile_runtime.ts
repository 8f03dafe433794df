/**
 * Assembling an agent session for a profile: config (or defaults in safe
 * mode), credentials from `.env` and the environment, the model client, the
 * state store, the tools, plugins and the system prompt.
 *
 * {@link openProfileRuntime} needs no CLI context, so the dashboard's
 * WebSocket gateway opens sessions exactly as `herald chat` does, and
 * {@link loadRuntimeConfig} is the one place where a session's config and
 * credentials are read (the dashboard's strict runtime check uses it too).
 *
 * @module
 */

import { join } from "node:path";
import { buildSystemPrompt } from "../../core/agent/prompt.ts";
import { AgentSession, type AgentSessionOptions } from "../../core/agent/session.ts";
import {
  type EnvLookup,
  type HeraldConfig,
  parseConfig,
  type ProcessEnv,
} from "../../core/config/mod.ts";
import { type ModelSettings, resolveModelSettings } from "../../core/models/settings.ts";
import { DEFAULT_PROFILE } from "../../core/profiles/mod.ts";
import type { SessionStore } from "../../core/sessions/store.ts";
import { createSessionSearchTool } from "../../core/sessions/search_tool.ts";
import { ToolRegistry } from "../../core/tools/registry.ts";
import type { ApprovalHandler } from "../../core/tools/types.ts";
import {
  loadConfigFile,
  type ProfilePaths,
  profileSessionFiles,
  readProfileCredentials,
} from "../home/mod.ts";
import { createModelClient } from "../models/mod.ts";
import { loadPlugins } from "../plugins/load.ts";
import { openStateStore } from "../sqlite/mod.ts";
import { builtinTools, readMemorySnapshot } from "../tools/mod.ts";
import { createSkillCatalog, createSkillTools } from "../skills/mod.ts";
import type { SkillCatalog } from "../../core/skills/mod.ts";
/** Choices that shape a chat runtime. */
export interface RuntimeOptions {
  /** Ignore config.yaml, rules files and plugins; credentials still load. */
  safeMode: boolean;
  /** Command-line overrides of the model settings. */
  model?: string;
  provider?: string;
  baseUrl?: string;
  /** Surface name stored with new sessions. */
  source: string;
  /** Working directory for tools. */
  cwd: string;
  approve: ApprovalHandler;
}

/** An opened runtime: everything needed to start or resume sessions. */
export interface ChatRuntime {
  paths: ProfilePaths;
  config: HeraldConfig;
  settings: ModelSettings;
  store: SessionStore;
  /** The profile's skills and bundles, offered as `/<name>`; broken files are warned about once. */
  catalog: SkillCatalog;
  /** Options for new sessions (and resumed ones). */
  sessionOptions: AgentSessionOptions;
  /** A fresh session. */
  start(): AgentSession;
  /** Continues a stored session. */
  resume(id: string): AgentSession;
  /** A client for another model name with the same provider settings. */
  withModel(model: string): AgentSessionOptions["client"];
  close(): void;
}

async function readOptional(path: string): Promise<string | undefined> {
  try {
    return await Deno.readTextFile(path);
  } catch (error) {
    if (error instanceof Deno.errors.NotFound || error instanceof Deno.errors.IsADirectory) {
      return undefined;
    }
    throw error;
  }
}

/** Reports a problem in a file that did not stop loading (config keys, broken skills). */
export type WarningSink = (file: string, message: string) => void;

/** What {@link loadRuntimeConfig} reads besides the profile. */
export interface ProfileConfigOptions {
  /** The process environment (credentials fallback after `.env`). */
  env: ProcessEnv;
  /** Ignore config.yaml (defaults only); credentials still load. */
  safeMode: boolean;
  onWarning: WarningSink;
}

/** A profile's configuration and the credentials a session would use. */
export interface ProfileConfig {
  config: HeraldConfig;
  credentials: EnvLookup;
}

/**
 * Reads a profile's config (or the defaults in safe mode) and credentials,
 * the way every session does. Resolve the model with
 * `resolveModelSettings(config, credentials, overrides)`.
 *
 * @throws ConfigParseError when config.yaml is not valid YAML.
 */
export async function loadRuntimeConfig(
  paths: ProfilePaths,
  options: ProfileConfigOptions,
): Promise<ProfileConfig> {
  const credentials = (await readProfileCredentials(paths, options.env)).lookup;
  const loaded = options.safeMode
    ? parseConfig("", paths.config)
    : await loadConfigFile(paths.config, credentials);
  for (const warning of loaded.warnings) options.onWarning(paths.config, warning.message);
  return { config: loaded.config, credentials };
}

/** Options of {@link openProfileRuntime}: the chat choices plus what a CLI context would supply. */
export interface ProfileRuntimeOptions extends RuntimeOptions {
  env: ProcessEnv;
  onWarning: WarningSink;
}

/**
 * Opens the runtime for a profile whose home exists.
 *
 * @throws ModelError `model_not_configured` when no usable model and credential are configured.
 */
export async function openProfileRuntime(
  paths: ProfilePaths,
  options: ProfileRuntimeOptions,
): Promise<ChatRuntime> {
  const { config, credentials } = await loadRuntimeConfig(paths, options);
  const overrides = { model: options.model, provider: options.provider, baseUrl: options.baseUrl };
  const settings = resolveModelSettings(config, credentials, overrides);
  const client = createModelClient(settings);
  const hooks = options.safeMode ? [] : await loadPlugins(paths.home, config.plugins);
  const catalog = createSkillCatalog(paths.home, {
    onWarning: (warning) => options.onWarning(warning.file, warning.message),
  });
  const memory = await readMemorySnapshot(paths.home);
  const rules = !options.safeMode;
  const soul = rules ? await readOptional(join(paths.home, "SOUL.md")) : undefined;
  const projectRules = rules ? await readOptional(join(options.cwd, "AGENTS.md")) : undefined;
  const store = openStateStore(paths.stateDb);
  const tools = new ToolRegistry([
    // Commands get the child allowlist plus the names the profile passes on.
    ...builtinTools({
      terminal: {
        baseEnv: options.env,
        envPassthrough: config.terminal.env_passthrough,
        envLookup: credentials,
      },
    }),
    createSessionSearchTool(store),
    ...createSkillTools(),
  ]);
  const systemPrompt = buildSystemPrompt({
    cwd: options.cwd,
    date: new Date().toISOString().slice(0, 10),
    toolNames: tools.specs().map((spec) => spec.name),
    soul,
    projectRules,
    memory: memory.memory,
    userProfile: memory.user,
    profile: paths.name === DEFAULT_PROFILE ? undefined : paths.name,
  });
  const sessionOptions: AgentSessionOptions = {
    client,
    store,
    tools,
    files: profileSessionFiles(paths),
    hooks,
    approve: options.approve,
    cwd: options.cwd,
    home: paths.home,
    source: options.source,
    systemPrompt,
    maxTurns: config.agent.max_turns,
    verifyFileMutations: config.agent.verify_file_mutations,
    dumpRequests: config.agent.dump_requests,
    maxTokens: config.model.max_tokens,
  };
  return {
    paths,
    config,
    settings,
    store,
    catalog,
    sessionOptions,
    start: () => AgentSession.start(sessionOptions),
    resume: (id) => AgentSession.resume(sessionOptions, id),
    withModel: (model) => createModelClient({ ...settings, model }),
    close: () => store.close(),
  };
}

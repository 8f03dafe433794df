/**
 * The agent runtime of a profile: Herald's own turn loop wired for one
 * profile, the {@link TurnRuntime} behind every conversation that the
 * terminal chat, the dashboard's gateway (and later channels, workers and
 * cron runs) open. Config, credentials, the "always" approvals and the
 * session files come through the profile's ports
 * (adapters/runtime/profile_context.ts, the one composition point); this
 * module adds the model client, the state store, the tools, plugins, the
 * skills and the system prompt.
 *
 * Heavy (model SDKs, tools): surfaces load it through adapters/lazy.ts, so
 * an idle dashboard and the other commands do not carry it.
 *
 * @module
 */

import { join } from "node:path";
import { profileApprovalPolicy } from "../../core/agent/approvals.ts";
import { Checkpoints } from "../../core/agent/checkpoints.ts";
import { contextWindowResolver } from "../../core/agent/compression.ts";
import { buildSystemPrompt } from "../../core/agent/prompt.ts";
import { AgentSession, type AgentSessionOptions } from "../../core/agent/session.ts";
import { loadSessionConfig } from "../../core/agent/session_config.ts";
import type { StartOptions, TurnRuntime, TurnSession } from "../../core/agent/turn_runtime.ts";
import {
  CODEX_PROVIDER,
  CodexSession,
  type CodexSessionOptions,
} from "../../core/agent/codex_session.ts";
import type { AppServerConnection } from "../../core/codex/app_server.ts";
import type { HeraldConfig, ProcessEnv } from "../../core/config/mod.ts";
import { callAuxiliary } from "../../core/models/auxiliary.ts";
import { resolveRouteChain, switchedChain, switchedRoute } from "../../core/models/fallback.ts";
import { type ModelSettings, resolveModelSettings } from "../../core/models/settings.ts";
import { DEFAULT_PROFILE } from "../../core/profiles/mod.ts";
import type { SessionStore } from "../../core/sessions/store.ts";
import { createSessionSearchTool } from "../../core/sessions/search_tool.ts";
import type { SkillCatalog } from "../../core/skills/mod.ts";
import type { ApprovalPolicy, ApprovalSurface } from "../../core/tools/approval_policy.ts";
import { ToolRegistry } from "../../core/tools/registry.ts";
import { createSendMessageTool } from "../../core/tools/send_message.ts";
import { createCronjobTool } from "../../core/tools/cronjob.ts";
import { sendMessage } from "../../core/usecases/send.ts";
import { openCheckpointStore } from "../checkpoints/mod.ts";
import { codexRuntimeSwitch, codexSessionOptions, currentRuntimeChoice } from "./codex_sessions.ts";
import { ensureProfileHome, type ProfilePaths, rootOf } from "../home/mod.ts";
import { kanbanOpener } from "./kanban.ts";
import { kanbanWorkerToolset } from "./kanban_worker_tools.ts";
import { openLspDiagnostics } from "../lsp/mod.ts";
import { importLazily } from "../lazy.ts";
import { createChainClient, createModelClient, keyPoolRegistry } from "../models/mod.ts";
import { loadPlugins } from "../plugins/load.ts";
import { createSkillCatalog, createSkillTools } from "../skills/mod.ts";
import { openStateStore } from "../sqlite/mod.ts";
import { readMemorySnapshot } from "../tools/mod.ts";
import { profileBuiltinTools } from "../tools/profile_tools.ts";
import { openProfileContext } from "./profile_context.ts";
import type { Automations } from "../../core/schedules/automations.ts";
import { profileAutomations } from "../../core/usecases/cron.ts";

/** Reports a problem in a file that did not stop loading (config keys, broken skills). */
export type WarningSink = (file: string, message: string) => void;

/** Choices that shape an agent runtime. */
export interface AgentRuntimeOptions {
  /** Ignore config.yaml, rules files and plugins; credentials still load, nothing is saved. */
  safeMode: boolean;
  /** Command-line overrides of the model settings. */
  model?: string;
  provider?: string;
  baseUrl?: string;
  /** Surface name stored with new sessions: `cli`, `dashboard`, ... */
  source: string;
  /** Working directory for tools. */
  cwd: string;
  /** The process environment: the credentials fallback after `.env`, and what commands inherit. */
  env: ProcessEnv;
  /** How the surface asks a human about dangerous actions (the policy is the profile's). */
  approvals: ApprovalSurface;
  /** Yolo mode for this run (`--yolo`): dangerous commands run unasked; hardline and deny still refused. */
  yolo?: boolean;
  /**
   * Nobody watches the turns (`chat -q`, messaging gateways, cron, kanban
   * workers): a tool loop stops the turn instead of only warning the model.
   */
  unattended?: boolean;
  /**
   * The profile's scheduled jobs for `/cron`, `/blueprint` and the
   * `cronjob` tool: given (able to run jobs), absent (jobs listed and made,
   * but `run` refused), or false for none (a scheduled run schedules nothing).
   */
  automations?: Automations | false;
  onWarning: WarningSink;
}

/** An opened agent runtime: the {@link TurnRuntime} of Herald's own turn loop. */
export interface AgentRuntime extends TurnRuntime {
  readonly paths: ProfilePaths;
  readonly config: HeraldConfig;
  readonly settings: ModelSettings;
  readonly store: SessionStore;
  readonly catalog: SkillCatalog;
  /** The approval policy every session of this runtime asks. */
  readonly approvals: ApprovalPolicy;
  /** Options of new (and resumed) sessions. */
  readonly sessionOptions: AgentSessionOptions;
  /**
   * A fresh session: of Herald's own loop, or of the Codex app-server when
   * config.yaml's `model.openai_runtime` says so when it starts (never in
   * safe mode).
   */
  start(options?: StartOptions): Promise<TurnSession>;
  /** Continues a stored session in the runtime config.yaml asks for now. */
  resume(sessionId: string): Promise<TurnSession>;
  /** Closes the state database and waits for the key pools' state writes. */
  close(): Promise<void>;
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

/**
 * Opens the agent runtime of the profile at `paths` (creating what is
 * missing of its home).
 *
 * @example
 * ```ts
 * const runtime = await openAgentRuntime(paths, { ...options, approvals: { ask, onNotice } });
 * const conversation = await Conversation.open({ runtime, events });
 * ```
 *
 * @throws ModelError `model_not_configured` when no usable model and credential are configured.
 * @throws ConfigParseError when config.yaml is not valid YAML.
 */
export async function openAgentRuntime(
  paths: ProfilePaths,
  options: AgentRuntimeOptions,
): Promise<AgentRuntime> {
  await ensureProfileHome(paths);
  const profile = openProfileContext(paths, options.env);
  const { config, credentials, warnings } = await loadSessionConfig(profile, options);
  for (const warning of warnings) options.onWarning(paths.config, warning.message);
  const overrides = { model: options.model, provider: options.provider, baseUrl: options.baseUrl };
  const settings = resolveModelSettings(config, credentials, overrides);
  // The main model, then `fallback_providers`, each with its provider's key pool.
  const chain = resolveRouteChain(config, credentials, settings);
  for (const warning of chain.warnings) options.onWarning(paths.config, warning);
  const pools = keyPoolRegistry(paths.home);
  await pools.load();
  const fallbacks = chain.routes.slice(1);
  const hooks = options.safeMode ? [] : await loadPlugins(paths.home, config.plugins);
  const catalog = createSkillCatalog(paths.home, {
    onWarning: (warning) => options.onWarning(warning.file, warning.message),
  });
  const memory = await readMemorySnapshot(paths.home);
  const rules = !options.safeMode;
  const soul = rules ? await readOptional(join(paths.home, "SOUL.md")) : undefined;
  const projectRules = rules ? await readOptional(join(options.cwd, "AGENTS.md")) : undefined;
  const approvals = profileApprovalPolicy(profile.files, {
    surface: options.approvals,
    safeMode: options.safeMode,
    allowed: config.approvals.allow,
    yolo: options.yolo || config.approvals.mode === "yolo",
    timeoutSeconds: config.approvals.timeout,
  });
  const automations = options.automations === false
    ? undefined
    : options.automations ?? profileAutomations(profile);
  const store = openStateStore(paths.stateDb);
  // The kanban worker tools, only in a process started on a task (HERALD_KANBAN_TASK).
  const kanbanWorker = kanbanWorkerToolset(paths, options.env, config);
  // The profile's MCP servers (none in safe mode): started now, their tools after Herald's own.
  // The MCP client (the SDK) loads only for a profile that has an enabled server.
  const mcpWanted = !options.safeMode &&
    Object.values(config.mcp_servers).some((server) => server.enabled);
  const mcp = mcpWanted
    ? await (await importLazily<typeof import("../mcp/toolset.ts")>("adapters/mcp/toolset.ts"))
      .openMcpToolset(config.mcp_servers, {
        baseEnv: options.env,
        envPassthrough: config.terminal.env_passthrough,
        envLookup: credentials,
        cwd: paths.home,
        onWarning: (message) => options.onWarning(paths.config, message),
      })
    : undefined;
  // Language servers for the file tools' diagnostics (none in safe mode), started on first use.
  const lsp = options.safeMode
    ? undefined
    : openLspDiagnostics(config.lsp, { cwd: options.cwd, env: options.env });
  const tools = new ToolRegistry([
    ...profileBuiltinTools(config, { env: options.env, credentials, diagnostics: lsp?.diagnose }),
    createSessionSearchTool(store),
    ...createSkillTools(),
    // The agent's sends refuse protected files, as the gateway's answers do.
    createSendMessageTool((target, message, signal) =>
      sendMessage(profile, target, message, { signal, protectFiles: true, knownTargetsOnly: true })
    ),
    ...(automations ? [createCronjobTool(automations, {})] : []),
    ...(kanbanWorker?.tools ?? []),
    ...(mcp?.tools ?? []),
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
    client: createChainClient(chain.routes, pools),
    clientFor: (model, provider) =>
      createChainClient(
        switchedChain(config, credentials, settings, fallbacks, model, provider),
        pools,
      ),
    store,
    tools,
    files: profile.sessions.files,
    hooks,
    approve: approvals.decide,
    cwd: options.cwd,
    home: paths.home,
    source: options.source,
    systemPrompt,
    maxTurns: config.agent.max_turns,
    verifyFileMutations: config.agent.verify_file_mutations,
    dumpRequests: config.agent.dump_requests,
    maxTokens: config.model.max_tokens,
    compression: {
      enabled: config.compression.enabled,
      threshold: config.compression.threshold,
      protectFirst: config.compression.protect_first,
      protectLast: config.compression.protect_last,
      contextWindow: contextWindowResolver(config.model.context_length),
      // The `compression` slot, else the session's own model and provider (overrides and
      // `/model provider:model` switches included).
      summarize: (prompt, model, provider) =>
        callAuxiliary(
          createModelClient,
          config,
          credentials,
          "compression",
          prompt,
          switchedRoute(config, credentials, settings, model, provider).settings,
        ),
    },
    compactions: store,
    loopGuard: config.agent.loop_guard,
    unattended: options.unattended ?? false,
    checkpoints: config.checkpoints.enabled
      ? new Checkpoints(openCheckpointStore(join(paths.home, "checkpoints"), options.cwd), {
        maxSnapshots: config.checkpoints.max_snapshots,
      })
      : undefined,
  };
  // The Codex runtime (`model.openai_runtime: codex_app_server`), chosen when a session starts.
  const codexWanted = async () =>
    !options.safeMode &&
    await currentRuntimeChoice(profile.files, config.model.openai_runtime) === "codex_app_server";
  // The app-servers running now, stopped when the runtime closes.
  const codexServers = new Set<AppServerConnection>();
  const codexOptions = (): CodexSessionOptions => {
    const base = codexSessionOptions({
      home: paths.home,
      config,
      env: options.env,
      credentials,
      approve: approvals.decide,
      store,
      files: profile.sessions.files,
      source: options.source,
      cwd: options.cwd,
    });
    return {
      ...base,
      launch: async (handler) => {
        const server = await base.launch(handler);
        codexServers.add(server);
        server.exited.then(() => codexServers.delete(server));
        return server;
      },
    };
  };
  return {
    profile: paths.name,
    source: options.source,
    ...(automations ? { automations } : {}),
    kanban: kanbanOpener(rootOf(paths), paths, options.env),
    ...(options.safeMode ? {} : { runtimeSwitch: codexRuntimeSwitch(paths, options.env) }),
    paths,
    config,
    settings,
    store,
    catalog,
    approvals,
    sessionOptions,
    async start(start = {}) {
      // A model carried over by `/new` belongs to its runtime: Codex picks its own.
      if (await codexWanted()) return CodexSession.start(codexOptions());
      if (start.provider === CODEX_PROVIDER) start = {};
      const session = AgentSession.start(sessionOptions);
      const provider = start.provider === session.provider ? undefined : start.provider;
      if (provider !== undefined || (start.model !== undefined && start.model !== session.model)) {
        session.setModel(start.model ?? session.model, provider);
      }
      return session;
    },
    async resume(sessionId) {
      if (await codexWanted()) return await CodexSession.resume(codexOptions(), sessionId);
      return AgentSession.resume(sessionOptions, sessionId);
    },
    async close() {
      await Promise.all([...codexServers].map((server) => server.close()));
      store.close();
      await kanbanWorker?.close();
      await mcp?.close();
      await lsp?.close();
      await pools.flush();
    },
  };
}

/**
 * The config schema: the single source of truth for `config.yaml`. Every key,
 * its type, its default and its description (`.describe`, which the
 * dashboard's form shows as a hint) live here; later capabilities add their
 * sections.
 *
 * @module
 */

import { z } from "zod";
import { isTimeZone } from "../schedules/zoned.ts";

/** An auxiliary-model slot (`auxiliary.<task>`); empty fields fall back to the main model. */
export const AuxiliarySlotSchema = z.object({
  provider: z.string().optional().describe("Provider id; the main model's when empty"),
  model: z.string().optional().describe("Model name; the main model's when empty"),
  base_url: z.string().optional().describe("Endpoint; the provider's default when empty"),
  api_key: z.string().optional().describe("A key, stored in .env"),
  timeout: z.number().positive().optional().describe(
    "Seconds before a call to this slot gives up",
  ),
});

/** The main model: which provider, endpoint and model name the agent talks to. */
export const ModelSchema = z.object({
  provider: z.string().optional().describe(
    "`openai`, `openrouter`, `anthropic`, `ollama`, `custom`, ...",
  ),
  base_url: z.string().optional().describe(
    "Endpoint for OpenAI-compatible servers, e.g. `http://127.0.0.1:8080/v1`",
  ),
  default: z.string().optional().describe("Model name sent to the provider"),
  api_key: z.string().optional().describe(
    "A key, or better a `${ENV_VAR}` reference into `.env`",
  ),
  context_length: z.number().int().positive().optional().describe(
    "The model's context window in tokens; unknown models are assumed to have 128,000",
  ),
  max_tokens: z.number().int().positive().optional().describe("Output cap per call"),
  timeout: z.number().positive().optional().describe(
    "Seconds before one call (retries included) gives up; a timeout hands over to " +
      "`fallback_providers`",
  ),
  openai_runtime: z.enum(["auto", "codex_app_server"]).default("auto").describe(
    "What runs the turns: `auto` (Herald's own loop) or `codex_app_server` (the Codex " +
      "app-server; switch with `/codex-runtime`); applies from the next session",
  ),
});

/**
 * One entry of `fallback_providers`: a provider and model that take over
 * for the rest of a turn when the one before it fails (auth, rate limit,
 * 5xx after retries, timeout).
 */
export const FallbackProviderSchema = z.object({
  provider: z.string().min(1),
  model: z.string().min(1),
  base_url: z.string().optional().describe("Endpoint; the provider's default when absent"),
  key_env: z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/).optional().describe(
    "Variable holding the key (more keys in `<NAME>_2`, `<NAME>_3`, ...); the provider's own " +
      "by default",
  ),
  timeout: z.number().positive().optional().describe(
    "Seconds before one call gives up; `model.timeout` by default",
  ),
});

/** How the agent loop behaves. */
export const AgentSchema = z.object({
  max_turns: z.number().int().positive().default(90).describe(
    "Cap on model calls in one user turn",
  ),
  api_max_retries: z.number().int().min(0).max(20).default(3).describe(
    "Retries for 5xx and connection errors, with backoff",
  ),
  verify_file_mutations: z.boolean().default(true).describe(
    "Append a footer naming files whose write or patch failed and was never fixed",
  ),
  dump_requests: z.boolean().default(false).describe(
    "Save every model request under `request-dumps/`",
  ),
  loop_guard: z.number().int().min(0).default(3).describe(
    "The same tool call failing the same way this many times in a row gets a warning to the " +
      "model; unattended runs (`chat -q`, gateways, cron) stop the turn. 0 turns the guard off",
  ),
});

/** Context compression: summarising the middle of a long session's history. */
export const CompressionSchema = z.object({
  enabled: z.boolean().default(true).describe(
    "Compress on its own when the prompt passes `threshold`; `/compact` works either way",
  ),
  threshold: z.number().gt(0).max(1).default(0.5).describe(
    "Share of the model's context window the prompt may fill before it is compressed",
  ),
  protect_first: z.number().int().min(0).default(3).describe(
    "Messages at the start of a session that are always sent as they are",
  ),
  protect_last: z.number().int().min(1).default(20).describe(
    "Messages at the end of the history that are always sent as they are",
  ),
});

/** Dangerous-command approvals. */
export const ApprovalsSchema = z.object({
  allow: z.array(z.string()).default([]).describe(
    'Rule keys approved with "always" (for example `rm_recursive:build`); never asked again',
  ),
  deny: z.array(z.string().min(1)).default([]).describe(
    "Command patterns (`*` and `?` globs, case-insensitive) that are refused outright, even " +
      "in yolo mode",
  ),
  mode: z.enum(["ask", "yolo"]).default("ask").describe(
    "`ask` (default): dangerous commands ask first; `yolo`: they run unasked (not hardline or " +
      "deny)",
  ),
  timeout: z.number().positive().max(86_400).default(120).describe(
    "Seconds an approval question waits for an answer before it is denied",
  ),
});

/** File checkpoints before the agent's writes, for `/rollback`. */
export const CheckpointsSchema = z.object({
  enabled: z.boolean().default(false).describe(
    "Keep the files a turn changes (write_file, patch) before its first write to each",
  ),
  max_snapshots: z.number().int().min(1).max(20).default(20).describe(
    "Checkpoints kept per working directory; the oldest beyond it are pruned (at most 20)",
  ),
});

/** The agent's tools. */
export const ToolsSchema = z.object({
  write_safe_root: z.string().min(1).optional().describe(
    "The file tools write nothing outside this folder (absolute); the `HERALD_WRITE_SAFE_ROOT` " +
      "variable takes precedence. Absent: no write root",
  ),
});

/**
 * Programs Herald starts for the user or the model (terminal commands, the
 * dashboard terminal's shell, MCP servers). They inherit only an allowlist
 * of harmless variables (adapters/process/child_env.ts) plus these names.
 */
export const TerminalSchema = z.object({
  env_passthrough: z.array(z.string().regex(/^[^=\s]+$/)).default([]).describe(
    "Variable names passed on to child processes as they are, from the profile's `.env` or " +
      "else Herald's environment (for example `GITHUB_TOKEN` or `SSH_AUTH_SOCK`)",
  ),
});

/**
 * One MCP server: started as a child process (`command`, `args`, `env`) or
 * reached over Streamable HTTP (`url`, `headers`).
 */
export const McpServerSchema = z.object({
  command: z.string().optional(),
  args: z.array(z.string()).optional(),
  env: z.record(z.string(), z.string()).optional().describe(
    "Extra environment for the child; secrets are `${NAME}` references into `.env`",
  ),
  url: z.string().optional(),
  headers: z.record(z.string(), z.string()).optional(),
  timeout: z.number().positive().default(300).describe(
    "Seconds before a call to this server gives up",
  ),
  enabled: z.boolean().default(true),
});

/** One language server (`lsp.servers.<id>`): a built-in's override or a server of one's own. */
export const LspServerSchema = z.object({
  command: z.array(z.string().min(1)).min(1).optional().describe(
    'Program and arguments (`["gopls"]`); a bare name is looked up in Herald\'s node_modules/.bin, then PATH',
  ),
  extensions: z.array(z.string().min(1)).optional().describe(
    'File extensions the server handles, without the dot (`["go"]`)',
  ),
  disabled: z.boolean().default(false).describe("True turns this server off"),
});

/** Language-server diagnostics after write_file and patch (`lsp_diagnostics`). */
export const LspSchema = z.object({
  enabled: z.boolean().default(true).describe(
    "Ask language servers for the diagnostics a write introduced",
  ),
  wait_timeout: z.number().positive().max(120).default(8).describe(
    "Seconds a server may take to start or to deliver diagnostics; one that does not is " +
      "skipped until Herald restarts",
  ),
  servers: z.record(z.string(), LspServerSchema).default({}).describe(
    "Servers by id: `typescript` and `pyright` are built in; others need command and extensions",
  ),
});

/** Scheduled jobs (`herald cron`, blueprints): how they run and what they deliver. */
export const CronSchema = z.object({
  wrap_response: z.boolean().default(true).describe(
    "Put a short header naming the job above each delivered output; false sends the output bare",
  ),
  catch_up: z.enum(["run_once", "skip"]).default("run_once").describe(
    "What a new job does about a run missed while nothing was running: run it once, late, or " +
      "record it skipped with the reason",
  ),
  // At most 3 h: well under the 6 h after which a claim whose owner cannot be checked is taken over.
  script_timeout: z.number().positive().max(10_800).default(120).describe(
    "Seconds a job's script may run before it is stopped (at most 10800)",
  ),
  run_timeout: z.number().positive().max(10_800).default(600).describe(
    "Seconds a job's model turn may take before it is stopped (at most 10800)",
  ),
});

/** The kanban board (`herald kanban`, the dispatcher): who gets tasks and how triage is decomposed. */
export const KanbanSchema = z.object({
  orchestrator_profile: z.string().min(1).optional().describe(
    "Profile assigned the root task of a decomposition; absent: the default profile",
  ),
  default_assignee: z.string().min(1).optional().describe(
    "Profile given a task whose assignee is missing or names no profile; absent: the default profile",
  ),
  auto_decompose: z.boolean().default(true).describe(
    "Decompose triage tasks automatically on each dispatcher tick; false leaves them for " +
      "`herald kanban decompose`",
  ),
  auto_decompose_per_tick: z.number().int().min(0).default(3).describe(
    "At most this many triage tasks are decomposed per dispatcher tick",
  ),
  dispatch_in_gateway: z.boolean().default(true).describe(
    "Run the dispatcher inside this profile's gateway; false leaves it to `herald kanban dispatch`",
  ),
  dispatch_interval_seconds: z.number().int().min(1).max(3600).default(60).describe(
    "Seconds between the gateway's dispatcher ticks",
  ),
  failure_limit: z.number().int().min(1).max(100).default(2).describe(
    "Failed attempts in a row after which a task is blocked (a task's max_retries wins)",
  ),
  max_in_progress: z.number().int().min(1).max(64).default(4).describe(
    "Tasks running at once at most; the dispatcher starts no more workers beyond it",
  ),
  claim_ttl_seconds: z.number().int().min(10).max(86400).default(900).describe(
    "Seconds a worker's claim holds; its heartbeats extend it, and an expired claim of a dead " +
      "worker is reclaimed",
  ),
  max_runtime_seconds: z.number().int().min(10).max(86400).default(3600).describe(
    "Seconds one attempt at a task may take before its worker is stopped (timed_out)",
  ),
});

/** Whether a managed tool (`tool_gateway.<tool>`) is routed through the subscription gateway. */
export const ToolGatewaySlotSchema = z.object({
  use_gateway: z.boolean().default(false),
});

/** One messaging platform (`platforms.<name>`); its secrets live in `.env`. */
export const PlatformSchema = z.object({
  enabled: z.boolean().default(false),
  allowed_users: z.array(z.string()).optional().describe(
    "Platform user ids allowed to talk to the agent; absent means the platform's default policy",
  ),
  home_channel: z.string().optional().describe(
    "Chat or channel id that receives notifications (cron results, ...)",
  ),
});

/** The Codex app-server runtime (`model.openai_runtime: codex_app_server`). */
export const CodexSchema = z.object({
  permissions: z.enum(["auto", "approval-required", "unrestricted"]).default("auto").describe(
    "What Codex may do unasked: `auto` (writes in the workspace), `approval-required` " +
      "(read-only, every command asks), `unrestricted` (full access)",
  ),
  home: z.string().optional().describe(
    "Codex's home folder (its config.toml, auth and threads); absent: $CODEX_HOME, else ~/.codex",
  ),
  turn_timeout: z.number().positive().max(86_400).default(1800).describe(
    "Seconds a Codex turn may run before it is interrupted and an error recorded",
  ),
});

/** The whole `config.yaml`. */
export const ConfigSchema = z.object({
  model: ModelSchema.prefault({}).describe(
    "The main model: which provider, endpoint and model name the agent talks to",
  ),
  fallback_providers: z.array(FallbackProviderSchema).default([]).describe(
    "Providers and models that take over, in order, when the main model fails in a turn",
  ),
  agent: AgentSchema.prefault({}).describe("How the agent loop behaves"),
  compression: CompressionSchema.prefault({}).describe(
    "Context compression: summarising the middle of a long session's history",
  ),
  auxiliary: z.record(z.string(), AuxiliarySlotSchema).default({}).describe(
    "Side-task model slots by task; empty fields fall back to the main model",
  ),
  approvals: ApprovalsSchema.prefault({}).describe("Dangerous-command approvals"),
  terminal: TerminalSchema.prefault({}).describe(
    "Programs Herald starts (terminal commands, the dashboard terminal, MCP servers)",
  ),
  tools: ToolsSchema.prefault({}).describe("The agent's tools"),
  lsp: LspSchema.prefault({}).describe(
    "Language-server diagnostics reported after write_file and patch",
  ),
  checkpoints: CheckpointsSchema.prefault({}).describe(
    "File checkpoints before the agent's writes, for `/rollback`",
  ),
  plugins: z.array(z.string()).default([]).describe(
    "Plugin modules (paths relative to the profile home, or absolute) providing LLM hooks",
  ),
  mcp_servers: z.record(z.string(), McpServerSchema).default({}).describe(
    "MCP servers by name",
  ),
  tool_gateway: z.record(z.string(), ToolGatewaySlotSchema).default({}).describe(
    "Managed tools routed through the subscription gateway, by tool name",
  ),
  platforms: z.record(z.string(), PlatformSchema).default({}).describe(
    "Messaging platforms by name (telegram, line, discord, slack)",
  ),
  timezone: z.string().refine(isTimeZone, {
    message: "not a time zone; use an IANA name such as Europe/Berlin, America/New_York or UTC",
  }).optional().describe(
    "The IANA time zone scheduled jobs read times in (Europe/Berlin); absent: the machine's",
  ),
  cron: CronSchema.prefault({}).describe("Scheduled jobs: delivery, catch-up and time limits"),
  kanban: KanbanSchema.prefault({}).describe(
    "The kanban board: the orchestrator, the fallback assignee and automatic decomposition",
  ),
  codex: CodexSchema.prefault({}).describe(
    "The Codex app-server runtime: permissions, its home folder and the turn timeout",
  ),
});

/** A fully defaulted configuration. */
export type HeraldConfig = z.infer<typeof ConfigSchema>;

/** The configuration every fresh profile starts from. */
export function defaultConfig(): HeraldConfig {
  return ConfigSchema.parse({});
}

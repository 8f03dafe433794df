/**
 * The config schema: the single source of truth for `config.yaml`. Every key,
 * its type and its default live here; later capabilities add their sections.
 *
 * @module
 */

import { z } from "zod";

/** An auxiliary-model slot (`auxiliary.<task>`); empty fields fall back to the main model. */
export const AuxiliarySlotSchema = z.object({
  provider: z.string().optional(),
  model: z.string().optional(),
  base_url: z.string().optional(),
  api_key: z.string().optional(),
  /** Seconds before a call to this slot gives up. */
  timeout: z.number().positive().optional(),
});

/** The main model: which provider, endpoint and model name the agent talks to. */
export const ModelSchema = z.object({
  /** `openai`, `openrouter`, `anthropic`, `ollama`, `custom`, ... */
  provider: z.string().optional(),
  /** Endpoint for OpenAI-compatible servers, e.g. `http://127.0.0.1:8080/v1`. */
  base_url: z.string().optional(),
  /** Model name sent to the provider. */
  default: z.string().optional(),
  /** A key, or better a `${ENV_VAR}` reference into `.env`. */
  api_key: z.string().optional(),
  /** The model's context window in tokens; unknown models are assumed to have 128,000. */
  context_length: z.number().int().positive().optional(),
  max_tokens: z.number().int().positive().optional(),
  /** Seconds before one call (retries included) gives up; a timeout hands over to `fallback_providers`. */
  timeout: z.number().positive().optional(),
});

/**
 * One entry of `fallback_providers`: a provider and model that take over
 * for the rest of a turn when the one before it fails (auth, rate limit,
 * 5xx after retries, timeout).
 */
export const FallbackProviderSchema = z.object({
  provider: z.string().min(1),
  model: z.string().min(1),
  /** Endpoint; the provider's default when absent. */
  base_url: z.string().optional(),
  /** Variable holding the key (more keys in `<NAME>_2`, `<NAME>_3`, ...); the provider's own by default. */
  key_env: z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/).optional(),
  /** Seconds before one call gives up; `model.timeout` by default. */
  timeout: z.number().positive().optional(),
});

/** How the agent loop behaves. */
export const AgentSchema = z.object({
  /** Cap on model calls in one user turn. */
  max_turns: z.number().int().positive().default(90),
  /** Retries for 5xx and connection errors, with backoff. */
  api_max_retries: z.number().int().min(0).max(20).default(3),
  /** Append a footer naming files whose write or patch failed and was never fixed. */
  verify_file_mutations: z.boolean().default(true),
  /** Save every model request under `request-dumps/`. */
  dump_requests: z.boolean().default(false),
  /**
   * The same tool call failing the same way this many times in a row gets a
   * warning to the model; unattended runs (`chat -q`, gateways, cron) stop
   * the turn. 0 turns the guard off.
   */
  loop_guard: z.number().int().min(0).default(3),
});

/** Context compression: summarising the middle of a long session's history. */
export const CompressionSchema = z.object({
  /** Compress on its own when the prompt passes `threshold`; `/compact` works either way. */
  enabled: z.boolean().default(true),
  /** Share of the model's context window the prompt may fill before it is compressed. */
  threshold: z.number().gt(0).max(1).default(0.5),
  /** Messages at the start of a session that are always sent as they are. */
  protect_first: z.number().int().min(0).default(3),
  /** Messages at the end of the history that are always sent as they are. */
  protect_last: z.number().int().min(1).default(20),
});

/** Dangerous-command approvals. */
export const ApprovalsSchema = z.object({
  /** Rule keys approved with "always" (for example `rm_recursive:build`); never asked again. */
  allow: z.array(z.string()).default([]),
  /**
   * Command patterns (`*` and `?` globs, case-insensitive) that are refused
   * outright, even in yolo mode.
   */
  deny: z.array(z.string().min(1)).default([]),
  /** `ask` (default): dangerous commands ask first; `yolo`: they run unasked (not hardline or deny). */
  mode: z.enum(["ask", "yolo"]).default("ask"),
  /** Seconds an approval question waits for an answer before it is denied. */
  timeout: z.number().positive().max(86_400).default(120),
});

/** File checkpoints before the agent's writes, for `/rollback`. */
export const CheckpointsSchema = z.object({
  /** Keep the files a turn changes (write_file, patch) before its first write to each. */
  enabled: z.boolean().default(false),
  /** Checkpoints kept per working directory; the oldest beyond it are pruned (at most 20). */
  max_snapshots: z.number().int().min(1).max(20).default(20),
});

/** The agent's tools. */
export const ToolsSchema = z.object({
  /**
   * The file tools write nothing outside this folder (absolute); the
   * `HERALD_WRITE_SAFE_ROOT` variable takes precedence. Absent: no write root.
   */
  write_safe_root: z.string().min(1).optional(),
});

/**
 * Programs Herald starts for the user or the model (terminal commands, the
 * dashboard terminal's shell, MCP servers). They inherit only an allowlist
 * of harmless variables (adapters/process/child_env.ts) plus these names.
 */
export const TerminalSchema = z.object({
  /**
   * Variable names passed on to child processes as they are, from the
   * profile's `.env` or else Herald's environment (for example `GITHUB_TOKEN`
   * or `SSH_AUTH_SOCK`).
   */
  env_passthrough: z.array(z.string().regex(/^[^=\s]+$/)).default([]),
});

/**
 * One MCP server: started as a child process (`command`, `args`, `env`) or
 * reached over Streamable HTTP (`url`, `headers`).
 */
export const McpServerSchema = z.object({
  command: z.string().optional(),
  args: z.array(z.string()).optional(),
  /** Extra environment for the child; secrets are `${NAME}` references into `.env`. */
  env: z.record(z.string(), z.string()).optional(),
  url: z.string().optional(),
  headers: z.record(z.string(), z.string()).optional(),
  /** Seconds before a call to this server gives up. */
  timeout: z.number().positive().default(300),
  enabled: z.boolean().default(true),
});

/** Whether a managed tool (`tool_gateway.<tool>`) is routed through the subscription gateway. */
export const ToolGatewaySlotSchema = z.object({
  use_gateway: z.boolean().default(false),
});

/** One messaging platform (`platforms.<name>`); its secrets live in `.env`. */
export const PlatformSchema = z.object({
  enabled: z.boolean().default(false),
  /** Platform user ids allowed to talk to the agent; absent means the platform's default policy. */
  allowed_users: z.array(z.string()).optional(),
  /** Chat or channel id that receives notifications (cron results, ...). */
  home_channel: z.string().optional(),
});

/** The whole `config.yaml`. */
export const ConfigSchema = z.object({
  model: ModelSchema.prefault({}),
  /** Providers and models that take over, in order, when the main model fails in a turn. */
  fallback_providers: z.array(FallbackProviderSchema).default([]),
  agent: AgentSchema.prefault({}),
  compression: CompressionSchema.prefault({}),
  auxiliary: z.record(z.string(), AuxiliarySlotSchema).default({}),
  approvals: ApprovalsSchema.prefault({}),
  terminal: TerminalSchema.prefault({}),
  tools: ToolsSchema.prefault({}),
  checkpoints: CheckpointsSchema.prefault({}),
  /** Plugin modules (paths relative to the profile home, or absolute) providing LLM hooks. */
  plugins: z.array(z.string()).default([]),
  /** MCP servers by name. */
  mcp_servers: z.record(z.string(), McpServerSchema).default({}),
  /** Managed tools routed through the subscription gateway, by tool name. */
  tool_gateway: z.record(z.string(), ToolGatewaySlotSchema).default({}),
  /** Messaging platforms by name (telegram, line, discord, slack). */
  platforms: z.record(z.string(), PlatformSchema).default({}),
});

/** A fully defaulted configuration. */
export type HeraldConfig = z.infer<typeof ConfigSchema>;

/** The configuration every fresh profile starts from. */
export function defaultConfig(): HeraldConfig {
  return ConfigSchema.parse({});
}

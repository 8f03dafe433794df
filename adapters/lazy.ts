/**
 * Loading a module only when it is first used, and the one list of every
 * module loaded that way.
 *
 * The specifier goes through a variable because Deno pre-loads (downloads,
 * parses, holds) the graph behind every literal `import("...")` at start-up,
 * even one that never runs; that cost a third of `herald --version`'s
 * start-up and about 10 MB of the idle dashboard. `deno compile` cannot see
 * such imports, so the build passes each entry of {@link LAZY_MODULES} to
 * `--include`. tests/boundary_test.ts fails when a variable-specifier
 * `import(...)` appears anywhere but here.
 *
 * @module
 */

/**
 * Every module loaded through a variable specifier: repository paths
 * (relative to the repository root) and bare package names (resolved through
 * deno.json's import map). A `deno compile` step gives each to `--include`.
 */
export const LAZY_MODULES = [
  // The command tree, behind `herald --version`'s fast path (cli/main.ts).
  "cli/app.ts",
  // The agent runtime of a profile, loaded on the first conversation of `herald chat` or of the
  // dashboard's gateway (adapters/runtime/lazy_agent_runtime.ts), so nothing else carries it.
  "adapters/runtime/agent_runtime.ts",
  // The interactive chat's terminal UI (cli/main.ts's fast path and `herald chat` on a terminal),
  // and what it loads behind its first frame.
  "cli/tui/launch.ts",
  "cli/chat/tui_backend.ts",
  // The dashboard's web app (built by `deno task ui:build`), loaded on the first page request.
  "server/ui_assets.gen.ts",
  // The messaging gateway's process (its runner and platforms), loaded by `herald gateway run`,
  // `start` and `stop` (cli/commands/gateway.ts); the bundled platforms, found by the gateway
  // (adapters/channels/mod.ts).
  "adapters/runtime/gateway_process.ts",
  "adapters/channels/api_server/mod.ts",
  "adapters/channels/line/mod.ts",
  "adapters/channels/telegram/mod.ts",
  // `herald mcp serve`'s MCP server and tools (cli/commands/mcp_serve.ts), and the MCP client a
  // runtime loads when its profile has an enabled MCP server (adapters/runtime/agent_runtime.ts).
  "adapters/mcp/serve.ts",
  "adapters/mcp/toolset.ts",
  // A language server's client, loaded when the first one starts (adapters/lsp/service.ts).
  "adapters/lsp/client.ts",
  // Heavy packages, loaded on first use.
  "openai",
  "@anthropic-ai/sdk",
  "@lydell/node-pty",
  "typescript",
] as const;

/** A module {@link importLazily} may load: one entry of {@link LAZY_MODULES}. */
export type LazyModule = typeof LAZY_MODULES[number];

/**
 * Imports one entry of {@link LAZY_MODULES} at run time. A new lazily loaded
 * module is added to the list first; anything else does not type-check.
 *
 * @example
 * ```ts
 * const { default: OpenAI } = await importLazily<typeof import("openai")>("openai");
 * const app = await importLazily<typeof import("../cli/app.ts")>("cli/app.ts");
 * ```
 */
export function importLazily<T>(module: LazyModule): Promise<T> {
  const specifier = module.endsWith(".ts") ? new URL(`../${module}`, import.meta.url).href : module;
  return import(specifier);
}

/**
 * Imports a module the user names at run time (a plugin file from
 * `config.yaml`). It is not part of the program, so it is not in
 * {@link LAZY_MODULES} and `deno compile` never includes it.
 */
export function importUserModule(fileUrl: string): Promise<Record<string, unknown>> {
  if (!fileUrl.startsWith("file:")) {
    throw new TypeError(`User module "${fileUrl}" must be a file: URL`);
  }
  return import(fileUrl);
}

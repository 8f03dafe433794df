/**
 * The messaging platforms Herald bundles, found rather than wired in: every
 * folder `adapters/channels/<name>/` whose `mod.ts` exports
 * `plugin: ChannelPlugin` is a platform, and the gateway creates a channel
 * for each one a profile enables without knowing which it is.
 *
 * The modules are loaded on first use through adapters/lazy.ts (so `herald
 * gateway status` and every other command never load a platform) and are
 * listed in {@link BUNDLED_PLUGIN_MODULES}, which is what lets `deno
 * compile` embed them: a compiled binary has no folder to scan.
 * tests/adapters/channels/discovery_test.ts fails when a plugin folder is
 * missing from the list, so adding a platform is: its folder, its `mod.ts`
 * exporting `plugin`, and one line here and in `LAZY_MODULES`.
 *
 * Also here: the gateway's files and locks (gateway_files.ts), the chat
 * to session store (chat_sessions.ts), the pairing store
 * (pairing_store.ts) and its service files (gateway_service.ts, imported
 * directly). The gateway is composed from these parts in
 * adapters/runtime/gateway.ts.
 *
 * @module
 */

import type { ChannelPlugin } from "../../core/channels/contract.ts";
import { importLazily, type LazyModule } from "../lazy.ts";

export * from "./gateway_files.ts";
export * from "./chat_sessions.ts";
export { openPairingStore, PAIRING_FILE } from "./pairing_store.ts";

/** Every bundled platform plugin module, one per folder of adapters/channels/. */
export const BUNDLED_PLUGIN_MODULES = [
  "adapters/channels/api_server/mod.ts",
  "adapters/channels/line/mod.ts",
  "adapters/channels/telegram/mod.ts",
] as const satisfies readonly LazyModule[];

/** The platform folder of a plugin module: `adapters/channels/telegram/mod.ts` → `telegram`. */
export function pluginFolder(module: string): string {
  return module.split("/").at(-2) ?? module;
}

/** Whether `value` has the shape of a {@link ChannelPlugin}. */
export function isChannelPlugin(value: unknown): value is ChannelPlugin {
  if (typeof value !== "object" || value === null) return false;
  const plugin = value as Record<string, unknown>;
  return typeof plugin.id === "string" && plugin.id !== "" &&
    typeof plugin.label === "string" && typeof plugin.create === "function";
}

/** What {@link discoverPlugins} found. */
export interface DiscoveredPlugins {
  /** The plugins, by id order. */
  plugins: ChannelPlugin[];
  /** One line per module that could not be used (it is left out; the others run). */
  problems: string[];
}

/**
 * Loads every bundled platform plugin.
 *
 * @example
 * ```ts
 * const { plugins } = await discoverPlugins();
 * plugins.map((p) => p.id); // ["api_server", "telegram", ...]
 * ```
 */
export async function discoverPlugins(): Promise<DiscoveredPlugins> {
  const plugins: ChannelPlugin[] = [];
  const problems: string[] = [];
  const loaded = await Promise.allSettled(
    BUNDLED_PLUGIN_MODULES.map((module) => importLazily<{ plugin?: unknown }>(module)),
  );
  loaded.forEach((result, index) => {
    const module = BUNDLED_PLUGIN_MODULES[index];
    if (result.status === "rejected") {
      const reason = result.reason instanceof Error ? result.reason.message : String(result.reason);
      problems.push(`${module} could not be loaded: ${reason}`);
      return;
    }
    const plugin = result.value.plugin;
    if (!isChannelPlugin(plugin)) {
      problems.push(`${module} does not export \`plugin\` (a ChannelPlugin: id, label, create)`);
      return;
    }
    if (plugins.some((other) => other.id === plugin.id)) {
      problems.push(`${module}: a second plugin with the id "${plugin.id}" was left out`);
      return;
    }
    plugins.push(plugin);
  });
  plugins.sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  return { plugins, problems };
}

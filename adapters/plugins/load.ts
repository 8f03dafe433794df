/**
 * Loading plugin modules named in a profile's config. A plugin is a
 * TypeScript or JavaScript module whose default export (or named exports)
 * provide `transform_llm_output` and/or `post_llm_call`.
 *
 * @module
 */

import { isAbsolute, join } from "node:path";
import { pathToFileURL } from "node:url";
import type { LlmHooks } from "../../core/agent/hooks.ts";
import { HeraldError } from "../../core/errors.ts";
import { importUserModule } from "../lazy.ts";
import {
  currentRuntimeFacts,
  type HeraldLaunchMode,
  heraldLaunchMode,
} from "../process/herald_command.ts";

/** A plugin that could not be loaded. */
export class PluginLoadError extends HeraldError {
  /** Creates the error for the module `path` with a `reason`. */
  constructor(readonly path: string, reason: string) {
    super(
      "plugin_load_failed",
      "state",
      `Plugin ${path}: ${reason}; fix it or remove it from plugins: in config.yaml`,
      { details: { path, reason } },
    );
  }
}

/**
 * Why importing a plugin failed, from the import's error `message`: its
 * first line, or, in a compiled binary whose runtime reports the module as
 * not found, that such a binary loads only the modules compiled into it
 * (Deno's standalone binaries do not load other files; issue denoland/deno#18327).
 */
export function pluginImportFailure(message: string, mode: HeraldLaunchMode): string {
  const first = message.split("\n")[0];
  if (mode !== "compiled" || !/module not found/i.test(first)) return first;
  return "a compiled Herald binary loads only the modules built into it, not plugin files " +
    "(run Herald from a checkout to use plugins)";
}

/** Imports each plugin module (paths relative to `home`) and returns its hooks, in config order. */
export async function loadPlugins(home: string, paths: readonly string[]): Promise<LlmHooks[]> {
  const hooks: LlmHooks[] = [];
  for (const path of paths) {
    const absolute = isAbsolute(path) ? path : join(home, path);
    let module: Record<string, unknown>;
    try {
      module = await importUserModule(pathToFileURL(absolute).href);
    } catch (error) {
      throw new PluginLoadError(
        absolute,
        pluginImportFailure((error as Error).message, heraldLaunchMode(currentRuntimeFacts())),
      );
    }
    const source = (module.default ?? module) as Partial<LlmHooks>;
    const hook: LlmHooks = { name: absolute };
    if (typeof source.transform_llm_output === "function") {
      hook.transform_llm_output = source.transform_llm_output.bind(source);
    }
    if (typeof source.post_llm_call === "function") {
      hook.post_llm_call = source.post_llm_call.bind(source);
    }
    if (!hook.transform_llm_output && !hook.post_llm_call) {
      throw new PluginLoadError(
        absolute,
        "it exports neither transform_llm_output nor post_llm_call",
      );
    }
    hooks.push(hook);
  }
  return hooks;
}

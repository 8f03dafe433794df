/**
 * `/codex-runtime [auto | codex_app_server | on | off]`: with no argument it
 * shows which runtime runs the turns; with one it switches the runtime of
 * the next session (the conversation defers a switch asked for during a
 * turn until that turn ends, so no turn spans two transports).
 *
 * @module
 */

import type { SlashCommand, SlashOutcome } from "./types.ts";

/** What runs a profile's turns: Herald's own loop (`auto`) or the Codex app-server. */
export type OpenAiRuntime = "auto" | "codex_app_server";

/** The synopsis of the command's argument. */
export const RUNTIME_USAGE = "[auto | codex_app_server | on | off]";

/**
 * Reads the argument of `/codex-runtime` (and `herald codex-runtime`):
 * "" shows the state (`mode` null); `on` and `codex_app_server` choose the
 * Codex app-server, `off` and `auto` Herald's own loop, in any case.
 *
 * @example
 * ```ts
 * parseRuntimeArgument("ON"); // { mode: "codex_app_server" }
 * parseRuntimeArgument("x"); // { error: 'Usage: /codex-runtime [auto | ...' }
 * ```
 */
export function parseRuntimeArgument(
  args: string,
): { mode: OpenAiRuntime | null } | { error: string } {
  const word = args.trim().toLowerCase();
  if (word === "") return { mode: null };
  if (word === "on" || word === "codex_app_server") return { mode: "codex_app_server" };
  if (word === "off" || word === "auto") return { mode: "auto" };
  return {
    error: `Usage: /codex-runtime ${RUNTIME_USAGE}; "${args.trim()}" is none of these. ` +
      "`on` runs the turns in the Codex app-server, `auto` in Herald's own loop.",
  };
}

/** The `/codex-runtime` command. */
export const codexRuntimeCommand: SlashCommand = {
  name: "codex-runtime",
  description: "show or switch what runs the turns: Herald's own loop or the Codex app-server",
  usage: RUNTIME_USAGE,
  run(args): SlashOutcome {
    const parsed = parseRuntimeArgument(args);
    if ("error" in parsed) return { kind: "reply", text: parsed.error };
    return { kind: "set_runtime", mode: parsed.mode };
  },
};

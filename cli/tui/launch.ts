/**
 * Starting the interactive chat with the prompt on screen as early as
 * possible: this module and the TUI's own modules are all it loads before
 * the first frame; the profile, the agent runtime and the conversation load
 * behind the prompt (cli/chat/tui_backend.ts, through adapters/lazy.ts).
 * Bare `herald` on a terminal comes here straight from cli/main.ts, and
 * `herald chat` / `herald resume` from the command tree.
 *
 * @module
 */

import { join } from "node:path";
import type { ProcessEnv } from "../../core/config/mod.ts";
import { VERSION } from "../../core/version.ts";
import { parseProfileSelector } from "../../core/profiles/names.ts";
import { importLazily } from "../../adapters/lazy.ts";
import { profilePaths, resolveRoot } from "../../adapters/home/layout.ts";
import { readActiveProfileSync } from "../../adapters/home/active_profile.ts";
import { runTui, type TuiResult } from "./app.ts";
import { colorEnabled, createStyle } from "./style.ts";
import { processTerminal } from "./terminal.ts";
import type { TuiBackend, TuiChatOptions, TuiStart } from "../chat/tui_backend.ts";

/** What {@link runInteractiveChat} needs. */
export interface InteractiveChat {
  env: ProcessEnv;
  /** The profile named with `-p`, as typed. */
  profile?: string;
  options?: TuiChatOptions & { color?: boolean };
  start?: TuiStart & { pick?: boolean };
  /** Raw key bytes (standard input). */
  input: ReadableStream<Uint8Array>;
}

/** The profile the status line names before the backend has checked it. */
function profileName(env: ProcessEnv, flagged: string | undefined): string {
  try {
    if (flagged !== undefined) return parseProfileSelector(flagged);
    return readActiveProfileSync(resolveRoot(env)) ?? "default";
  } catch {
    // The backend reports the problem once it loads.
    return flagged ?? "default";
  }
}

/** Runs the terminal UI until the user leaves; the caller prints nothing while it runs. */
export async function runInteractiveChat(chat: InteractiveChat): Promise<TuiResult> {
  const { env } = chat;
  const profile = profileName(env, chat.profile);
  let historyPath: string | undefined;
  try {
    historyPath = join(profilePaths(resolveRoot(env), profile).home, "chat_history.jsonl");
  } catch {
    historyPath = undefined;
  }
  let backend: TuiBackend | undefined;
  const options = chat.options ?? {};
  return await runTui({
    terminal: processTerminal(chat.input),
    style: createStyle(
      colorEnabled(env, { noColorFlag: options.color === false, isTerminal: true }),
    ),
    profile,
    version: VERSION,
    cwd: Deno.cwd(),
    historyPath,
    pick: chat.start?.pick,
    async open(hooks) {
      const module = await importLazily<typeof import("../chat/tui_backend.ts")>(
        "cli/chat/tui_backend.ts",
      );
      const opened = await module.openTuiBackend(
        env,
        chat.profile,
        options,
        chat.start ?? {},
        hooks,
      );
      backend = opened;
      return { conversation: opened.conversation, resumed: opened.resumed };
    },
    recap: (sessionId) => backend?.recap(sessionId) ?? Promise.resolve([]),
    recentSessions: () => backend?.recentSessions() ?? Promise.resolve([]),
  });
}

/** The line printed once the chat has ended, on standard error. */
export function farewell(result: TuiResult): string {
  if (result.deleted) return `Deleted session ${result.sessionId}.\n`;
  if (result.sessionId) {
    return `Session ${result.sessionId} saved; continue with: herald -c (or herald resume)\n`;
  }
  return "";
}

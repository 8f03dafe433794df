/**
 * What the terminal UI loads behind its prompt: the profile's context, its
 * agent runtime and the conversation, plus the recap and the recent
 * sessions it shows. Loaded lazily (adapters/lazy.ts) once the prompt is
 * drawn, so none of it delays the first frame.
 *
 * @module
 */

import { Conversation } from "../../core/agent/conversation.ts";
import { continueTarget, recapOf, recentSessions } from "../../core/usecases/sessions.ts";
import { openAgentRuntimeLazily } from "../../adapters/runtime/lazy_agent_runtime.ts";
import { type ChatRuntimeFlags, chatRuntimeOptions } from "./runtime_options.ts";
import { createContext } from "../context.ts";
import { captureOutput } from "../io.ts";
import type { ProcessEnv } from "../../core/config/mod.ts";
import type { RecapEntry } from "../../core/sessions/mod.ts";
import { type ApprovalSurface, YOLO_NOTICE } from "../../core/tools/approval_policy.ts";

/** How the backend reaches the screen: approvals and warnings (the TUI's hooks). */
export interface BackendHooks {
  approvals: ApprovalSurface;
  warn(message: string): void;
}

/** One session the picker offers. */
export interface RecentSession {
  id: string;
  title: string | null;
  /** Epoch milliseconds of its last message (or start). */
  lastActive: number;
  firstLine: string;
}

/** The chat options the terminal UI honours. */
export type TuiChatOptions = ChatRuntimeFlags;

/** What the terminal UI gets once the backend is open. */
export interface TuiBackend {
  conversation: Conversation;
  /** The stored session the conversation continues, when it does. */
  resumed?: string;
  recap(sessionId: string): Promise<RecapEntry[]>;
  recentSessions(): Promise<RecentSession[]>;
}

/** Where the chat starts: a new session, a stored one, the last one of this folder. */
export interface TuiStart {
  resume?: string;
  /** Resume the newest session started in the current folder. */
  continueHere?: boolean;
}

/**
 * Opens the profile (`profile`, else the sticky default), its runtime and
 * the conversation, reporting warnings and asking approvals through `hooks`.
 *
 * @throws ProfileNotFoundError, NotFoundError (the session to resume), ModelError.
 */
export async function openTuiBackend(
  env: ProcessEnv,
  profile: string | undefined,
  options: TuiChatOptions,
  start: TuiStart,
  hooks: BackendHooks,
): Promise<TuiBackend> {
  const c = createContext(captureOutput(), env, profile);
  const paths = await c.paths();
  const context = await c.profileContext();
  const cwd = Deno.cwd();
  const resume = start.continueHere ? await continueTarget(context, cwd) : start.resume;
  const runtime = await openAgentRuntimeLazily(paths, {
    ...chatRuntimeOptions(options, env, false),
    approvals: hooks.approvals,
    onWarning: (file, message) => hooks.warn(`${file}: ${message}`),
  });
  if (runtime.approvals.yolo) hooks.warn(YOLO_NOTICE);
  const conversation = await Conversation.open({ runtime, resume });
  return {
    conversation,
    resumed: resume,
    recap: (sessionId) => recapOf(context, sessionId),
    recentSessions: async () =>
      (await recentSessions(context, { limit: 50 })).map((entry) => ({
        id: entry.id,
        title: entry.title,
        lastActive: entry.last_active ?? entry.started_at,
        firstLine: entry.first_line ?? "",
      })),
  };
}

/**
 * The contracts every slash command shares: what a command is, what it may
 * read, and what it returns. The registry and the skill commands both build
 * on these, so neither has to import the other for them.
 *
 * @module
 */

import type { KanbanOpener } from "../kanban/service.ts";
import type { Automations } from "../schedules/automations.ts";
import type { SkillCatalog } from "../skills/mod.ts";

/** What a surface should do after a slash command. */
export type SlashOutcome =
  /** Show `text` and keep the session. */
  | { kind: "reply"; text: string }
  /** End the session; with `deleteSession`, delete its rows, transcript and request dumps on shutdown. */
  | { kind: "exit"; deleteSession: boolean; text: string }
  /** Start a fresh session; with `clear`, the surface also clears what it shows (`/clear`). */
  | { kind: "new_session"; text: string; clear?: boolean }
  /** `/resume <id>`: continue that stored session; `target` null: the surface offers a picker. */
  | { kind: "resume"; target: string | null }
  /** `/usage`: show the context used and the tokens spent. */
  | { kind: "usage" }
  /** `/tools`: list the tools the model is offered. */
  | { kind: "tools" }
  /** Use another model (of `provider`, when given) for the following turns. */
  | { kind: "set_model"; model: string; provider?: string; text: string }
  /** Send `message` to the agent as the user's turn (skills and bundles use this). */
  | { kind: "send"; message: string }
  /** `/rollback`: list the session's checkpoints (`checkpoint` null) or roll back checkpoint N. */
  | { kind: "rollback"; checkpoint: number | null }
  /** `/title <text>`: give the session this title (checked; unique within the profile). */
  | { kind: "set_title"; title: string }
  /** `/compact`: summarise the middle of the history now, minding `focus` (may be empty). */
  | { kind: "compact"; focus: string }
  /**
   * Show `text`, then send `message` to the agent as the user's next turn
   * (`/blueprint <name>` seeds the conversation that fills a blueprint).
   */
  | { kind: "seed"; text: string; message: string }
  /**
   * `/codex-runtime`: show which runtime runs the turns (`mode` null), or
   * switch the runtime of the next session.
   */
  | { kind: "set_runtime"; mode: "auto" | "codex_app_server" | null };

/** What a command may read about the session it runs in. */
export interface SlashContext {
  sessionId?: string;
  model: string;
  provider: string;
  /** The session's title, or null when it has none yet. */
  title?: string | null;
  /** The profile's scheduled jobs, where the surface can reach them (`/cron`, `/blueprint`). */
  automations?: Automations;
  /** The shared kanban board, where the surface can reach it (`/kanban`). */
  kanban?: KanbanOpener;
  /**
   * The chat the conversation is in, as a delivery target
   * (`telegram:<chat>[:<thread>]`), when it is one: a job made here
   * delivers back to it.
   */
  origin?: string;
}

/** One slash command. */
export interface SlashCommand {
  /** Name without the slash, lowercase. */
  name: string;
  aliases?: readonly string[];
  /** One line for `/help`. */
  description: string;
  /** Argument synopsis for `/help`, e.g. `[--delete]`. */
  usage?: string;
  run(args: string, context: SlashContext): SlashOutcome | Promise<SlashOutcome>;
}

/**
 * What a command needs to know about the registry it runs in: the catalog of
 * skills and bundles, and which names the built-in commands already take.
 */
export interface SlashCommandNames {
  /** Where skills and bundles come from, when the surface has them. */
  readonly catalog?: SkillCatalog;
  /** Every built-in name and alias. */
  names(): ReadonlySet<string>;
}

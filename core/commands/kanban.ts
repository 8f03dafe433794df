/**
 * `/kanban`: the shared kanban board from any chat surface. The words go
 * to the one parser and runner `herald kanban` uses
 * (core/kanban/kanban_command.ts), over the board the surface put in the
 * {@link SlashContext} (`kanban`).
 *
 * @module
 */

import { runKanbanCommand } from "../kanban/kanban_command.ts";
import type { SlashCommand, SlashOutcome } from "./types.ts";

/** `/kanban create|list|show|assign|link|unlink|comment|complete|block|unblock|archive|tail|stats|boards`. */
export const kanbanCommand: SlashCommand = {
  name: "kanban",
  description: "the shared task board: create, list, show, link and complete tasks (/kanban help)",
  usage: '[list | create "<title>" | show <id> | complete <id> | ...]',
  async run(args, context): Promise<SlashOutcome> {
    const text = await runKanbanCommand(args, context.kanban ? { kanban: context.kanban } : {});
    return { kind: "reply", text };
  },
};

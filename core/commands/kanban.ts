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
    const subscribe = originChat(context.origin);
    const text = await runKanbanCommand(args, {
      ...(context.kanban ? { kanban: context.kanban } : {}),
      ...(subscribe ? { subscribe } : {}),
    });
    return { kind: "reply", text };
  },
};

/** The chat of an origin target (`telegram:<chat>[:<thread>]`), or undefined. */
function originChat(
  origin: string | undefined,
): { platform: string; chatId: string; threadId?: string } | undefined {
  const [platform, chatId, threadId] = origin?.split(":") ?? [];
  if (!platform || !chatId) return undefined;
  return { platform, chatId, ...(threadId ? { threadId } : {}) };
}

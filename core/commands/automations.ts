/**
 * `/cron` and `/blueprint` (alias `/bp`): scheduled jobs from any chat
 * surface. Both hand their arguments to the one handler their CLI and
 * dashboard twins share (core/schedules/cron_command.ts,
 * core/blueprints/command.ts), over the profile's {@link Automations} that
 * the surface put in the {@link SlashContext}. A blueprint named without
 * values seeds the conversation that fills it: its fill request becomes
 * the user's next turn.
 *
 * @module
 */

import { runBlueprintCommand } from "../blueprints/mod.ts";
import { runCronCommand } from "../schedules/cron_command.ts";
import type { SlashCommand, SlashContext, SlashOutcome } from "./types.ts";

function automationContext(context: SlashContext) {
  return {
    ...(context.automations ? { automations: context.automations } : {}),
    ...(context.origin === undefined ? {} : { origin: context.origin }),
  };
}

/** `/cron list|show|create|edit|pause|resume|run|remove|status`. */
export const cronCommand: SlashCommand = {
  name: "cron",
  description: "list, create, change and run scheduled jobs (/cron help shows how)",
  usage: "[list | show <id> | create <schedule> <prompt> | pause <id> | ...]",
  async run(args, context): Promise<SlashOutcome> {
    return { kind: "reply", text: await runCronCommand(args, automationContext(context)) };
  },
};

/** `/blueprint [name [slot=value ...]]`: schedule a job from the blueprint catalog. */
export const blueprintCommand: SlashCommand = {
  name: "blueprint",
  aliases: ["bp"],
  description: "schedule a job from a blueprint (no name: the catalog)",
  usage: "[name [slot=value ...]]",
  async run(args, context): Promise<SlashOutcome> {
    const reply = await runBlueprintCommand(args, automationContext(context));
    return reply.agent_seed === undefined
      ? { kind: "reply", text: reply.text }
      : { kind: "seed", text: reply.text, message: reply.agent_seed };
  },
};

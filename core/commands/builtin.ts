/**
 * The built-in slash commands: /help, /new, /clear, /resume, /model, /bundles, /rollback,
 * /title, /compact, /usage, /tools, /codex-runtime, /exit and /quit.
 *
 * @module
 */

import { blueprintCommand, cronCommand } from "./automations.ts";
import { kanbanCommand } from "./kanban.ts";
import { codexRuntimeCommand } from "./runtime.ts";
import type { SlashCommand, SlashOutcome, SlashRegistry } from "./registry.ts";
import { bundlesCommand, skillHelpLines } from "./skills.ts";
import { parseSessionTitle, SessionTitleInvalidError } from "../sessions/titles.ts";
import { parseModelSpec } from "../providers.ts";

const DELETE_FLAGS = new Set(["--delete", "-d"]);

/** Parses the arguments of /exit and /quit: nothing, or `--delete` / `-d` in any case. */
function exitCommand(name: "exit" | "quit"): SlashCommand {
  return {
    name,
    description: name === "exit" ? "end the session" : "end the session (same as /exit)",
    usage: "[--delete]",
    run(args): SlashOutcome {
      const words = args.split(/\s+/).filter(Boolean);
      const unknown = words.filter((word) => !DELETE_FLAGS.has(word.toLowerCase()));
      if (unknown.length > 0) {
        return {
          kind: "reply",
          text:
            `Unknown argument "${
              unknown[0]
            }" for /${name}; use /${name} to leave or /${name} --delete ` +
            "(-d) to leave and delete this session. The session continues.",
        };
      }
      const deleteSession = words.length > 0;
      return {
        kind: "exit",
        deleteSession,
        text: deleteSession ? "Leaving; this session will be deleted." : "Leaving.",
      };
    },
  };
}

/** `/rollback` lists the session's checkpoints; `/rollback N` rolls back checkpoint N. */
const rollbackCommand: SlashCommand = {
  name: "rollback",
  description: "list file checkpoints, or restore checkpoint N and drop its exchange",
  usage: "[N]",
  run(args): SlashOutcome {
    if (args === "") return { kind: "rollback", checkpoint: null };
    if (/^\d{1,6}$/.test(args) && Number(args) >= 1) {
      return { kind: "rollback", checkpoint: Number(args) };
    }
    return {
      kind: "reply",
      text: `Usage: /rollback [N]; "${args}" is not a checkpoint number (1 is the newest).`,
    };
  },
};

/** `/title` shows the session's title; `/title <text>` sets it (unique within the profile). */
const titleCommand: SlashCommand = {
  name: "title",
  description: "show the session's title, or give it one (unique within the profile)",
  usage: "[text]",
  run(args, context): SlashOutcome {
    if (args !== "") {
      try {
        return { kind: "set_title", title: parseSessionTitle(args) };
      } catch (error) {
        if (error instanceof SessionTitleInvalidError) {
          return { kind: "reply", text: error.message };
        }
        throw error;
      }
    }
    return {
      kind: "reply",
      text: context.title
        ? `Title: ${context.title}`
        : "This session has no title yet; give it one with /title <text>.",
    };
  },
};

/** `/compact [focus]` summarises the middle of the history now. */
const compactCommand: SlashCommand = {
  name: "compact",
  aliases: ["compress"],
  description: "summarise the middle of the conversation now to free context",
  usage: "[focus]",
  run: (args): SlashOutcome => ({ kind: "compact", focus: args }),
};

/** The commands every surface has. `/help` lists whatever the registry holds. */
export function builtinCommands(registry: () => SlashRegistry): SlashCommand[] {
  return [
    {
      name: "help",
      description: "list the commands",
      async run() {
        const lines = registry().list().map((command) => {
          const names = [command.name, ...(command.aliases ?? [])].map((n) => `/${n}`).join(", ");
          return `  ${names}${command.usage ? ` ${command.usage}` : ""}  ${command.description}`;
        });
        const skills = await skillHelpLines(registry());
        return { kind: "reply", text: ["Commands:", ...lines, ...skills].join("\n") };
      },
    },
    {
      name: "new",
      aliases: ["reset"],
      description: "start a fresh session (the current one stays saved)",
      run: () => ({ kind: "new_session", text: "Started a new session." }),
    },
    {
      name: "clear",
      description: "clear the screen and start a fresh session (the current one stays saved)",
      run: () => ({ kind: "new_session", text: "Started a new session.", clear: true }),
    },
    {
      name: "resume",
      description: "continue a stored session (without an id: pick from the recent ones)",
      usage: "[session id]",
      run(args): SlashOutcome {
        if (/\s/.test(args)) {
          return { kind: "reply", text: `Usage: /resume [session id]; "${args}" has spaces.` };
        }
        return { kind: "resume", target: args === "" ? null : args };
      },
    },
    {
      name: "usage",
      description: "show the context used and the tokens this run spent",
      run: () => ({ kind: "usage" }),
    },
    {
      name: "tools",
      description: "list the tools the model can use",
      run: () => ({ kind: "tools" }),
    },
    {
      name: "model",
      description: "show the model, or switch model (or provider:model) for the next turns",
      usage: "[name | provider:name]",
      run(args, context) {
        if (args === "") {
          return { kind: "reply", text: `Model: ${context.model} (provider ${context.provider})` };
        }
        if (/\s/.test(args)) {
          return { kind: "reply", text: `Usage: /model <name>; "${args}" has spaces.` };
        }
        const { provider, model } = parseModelSpec(args);
        if (model === "") {
          return {
            kind: "reply",
            text: `Usage: /model ${provider}:<name>; the model name is missing.`,
          };
        }
        return {
          kind: "set_model",
          model,
          ...(provider === undefined ? {} : { provider }),
          text: `Model set to ${args} for this session.`,
        };
      },
    },
    bundlesCommand(registry),
    rollbackCommand,
    titleCommand,
    compactCommand,
    cronCommand,
    blueprintCommand,
    kanbanCommand,
    codexRuntimeCommand,
    exitCommand("exit"),
    exitCommand("quit"),
  ];
}

/**
 * The built-in slash commands: /help, /new, /model, /bundles, /exit and /quit.
 *
 * @module
 */

import type { SlashCommand, SlashOutcome, SlashRegistry } from "./registry.ts";
import { bundlesCommand, skillHelpLines } from "./skills.ts";

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
      name: "model",
      description: "show the model, or switch to another model name for the next turns",
      usage: "[name]",
      run(args, context) {
        if (args === "") {
          return { kind: "reply", text: `Model: ${context.model} (provider ${context.provider})` };
        }
        if (/\s/.test(args)) {
          return { kind: "reply", text: `Usage: /model <name>; "${args}" has spaces.` };
        }
        return { kind: "set_model", model: args, text: `Model set to ${args} for this session.` };
      },
    },
    bundlesCommand(registry),
    exitCommand("exit"),
    exitCommand("quit"),
  ];
}

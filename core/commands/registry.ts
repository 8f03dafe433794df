/**
 * Slash commands, defined once and shared by every surface (terminal chat,
 * dashboard chat, messaging gateways). A command never performs I/O itself:
 * it returns an outcome that the surface carries out.
 *
 * Skills and skill bundles are dynamic commands: a line that names no
 * built-in command is looked up in the registry's {@link SkillCatalog},
 * bundles before skills.
 *
 * @module
 */

import {
  completeSlash,
  type SkillCatalog,
  type SkillCatalogSnapshot,
  type SlashCompletion,
} from "../skills/mod.ts";
import { runCatalogCommand } from "./skills.ts";
import type { SlashCommand, SlashCommandNames, SlashContext, SlashOutcome } from "./types.ts";

export type { SlashCommand, SlashCommandNames, SlashContext, SlashOutcome } from "./types.ts";

/** Options of a {@link SlashRegistry}. */
export interface SlashRegistryOptions {
  /** Skills and bundles offered as `/<name>`; without it there are none. */
  catalog?: SkillCatalog;
}

const COMMAND_TOKEN = /^\/([A-Za-z][\w-]*)(?:\s+([\s\S]*))?$/;

/** A parsed slash-command line. */
export interface SlashInput {
  /** The command name as typed, lowercased, without the slash. */
  name: string;
  /** Everything after the name, trimmed. */
  args: string;
}

/**
 * Parses `/name args`. Returns undefined for text that is not a command,
 * such as a path (`/usr/bin is ...`) or a lone slash.
 */
export function parseSlashInput(line: string): SlashInput | undefined {
  const match = COMMAND_TOKEN.exec(line.trim());
  if (!match) return undefined;
  return { name: match[1].toLowerCase(), args: (match[2] ?? "").trim() };
}

/**
 * The registry of slash commands. Names are unique; an underscore also
 * matches a hyphen. Built-in commands win over bundles, bundles over skills.
 */
export class SlashRegistry implements SlashCommandNames {
  readonly #commands: SlashCommand[] = [];
  readonly #byName = new Map<string, SlashCommand>();
  /** Where skills and bundles come from, when the surface has them. */
  readonly catalog?: SkillCatalog;

  /** Creates a registry holding `commands`. */
  constructor(commands: readonly SlashCommand[] = [], options: SlashRegistryOptions = {}) {
    this.catalog = options.catalog;
    for (const command of commands) this.register(command);
  }

  /** Adds a command; a name or alias already taken is a programming error. */
  register(command: SlashCommand): void {
    for (const name of [command.name, ...(command.aliases ?? [])]) {
      if (this.#byName.has(name)) throw new TypeError(`Slash command "/${name}" registered twice`);
      this.#byName.set(name, command);
    }
    this.#commands.push(command);
  }

  /** The command for a name or alias (`my_cmd` also finds `my-cmd`). */
  find(name: string): SlashCommand | undefined {
    const key = name.toLowerCase();
    return this.#byName.get(key) ?? this.#byName.get(key.replaceAll("_", "-"));
  }

  /** Every command, in registration order. */
  list(): readonly SlashCommand[] {
    return this.#commands;
  }

  /** Every built-in name and alias. */
  names(): ReadonlySet<string> {
    return new Set(this.#byName.keys());
  }

  /**
   * Runs a line if it is a slash command. Returns undefined for ordinary
   * text. A name that is no built-in is looked up as a bundle, then as a
   * skill (both become a `send`); anything else is a reply pointing at `/help`.
   */
  async dispatch(line: string, context: SlashContext): Promise<SlashOutcome | undefined> {
    const input = parseSlashInput(line);
    if (!input) return undefined;
    const command = this.find(input.name);
    if (command) return await command.run(input.args, context);
    if (this.catalog) {
      const outcome = await runCatalogCommand(this.catalog, input.name, input.args);
      if (outcome) return outcome;
    }
    return {
      kind: "reply",
      text: `Unknown command /${input.name}; type /help to see the commands.`,
    };
  }

  /**
   * Autocomplete for `prefix` over the built-in commands and, given a
   * catalog snapshot, its bundles and skills.
   */
  complete(prefix: string, snapshot?: SkillCatalogSnapshot): SlashCompletion[] {
    return completeSlash(prefix, {
      commands: this.#commands,
      ...(snapshot ? { skills: () => snapshot.skills, bundles: () => snapshot.bundles } : {}),
    });
  }
}

/**
 * The autocomplete list under a `/` in the input: a listbox of commands,
 * bundles and skills with their markers; the input keeps focus and moves
 * the active option (aria-activedescendant).
 */

import type { Completion } from "./slash.ts";

/** The listbox's id, for the input's aria-controls. */
export const SLASH_MENU_ID = "chat-slash-menu";

/** The id of option `index`, for the input's aria-activedescendant. */
export function slashOptionId(index: number): string {
  return `chat-slash-option-${index}`;
}

const KIND_LABEL = { command: "command", bundle: "bundle", skill: "skill" } as const;

/** The open list of matching completions. */
export function SlashMenu(
  props: { entries: Completion[]; active: number; onPick: (entry: Completion) => void },
) {
  return (
    <ul id={SLASH_MENU_ID} class="chat-slash" role="listbox" aria-label="Commands">
      {props.entries.map((entry, index) => (
        <li
          key={`${entry.kind}:${entry.name}`}
          id={slashOptionId(index)}
          role="option"
          aria-selected={index === props.active}
          class={`chat-slash-option chat-slash-${entry.kind}${
            index === props.active ? " active" : ""
          }`}
          // Keeps the focus in the input.
          onMouseDown={(event) => event.preventDefault()}
          onClick={() => props.onPick(entry)}
        >
          <span class="chat-slash-marker" title={KIND_LABEL[entry.kind]}>{entry.marker}</span>
          <span class="chat-slash-name">/{entry.name}</span>
          <span class="chat-slash-description">{entry.description}</span>
        </li>
      ))}
    </ul>
  );
}

/**
 * Small controls the Settings sections share: an on/off switch, a list
 * editor, a status badge and text with `code` spans. A field's frame
 * (label, control, hint, error) is components/ui.tsx's `Field`.
 *
 * @module
 */

import type { ComponentChildren } from "preact";
import { Button } from "../../components/ui.tsx";

/** An on/off switch: a checkbox with `role="switch"`, labelled. */
export function Switch(props: {
  label: string;
  checked: boolean;
  onChange: (checked: boolean) => void;
  id?: string;
  disabled?: boolean;
  /** Shows the label to screen readers only. */
  hideLabel?: boolean;
  describedBy?: string;
}) {
  return (
    <label class="settings-switch">
      <input
        id={props.id}
        type="checkbox"
        role="switch"
        checked={props.checked}
        disabled={props.disabled}
        aria-describedby={props.describedBy}
        onChange={(event) => props.onChange((event.currentTarget as HTMLInputElement).checked)}
      />
      <span class="settings-switch-track" aria-hidden="true" />
      <span class={props.hideLabel ? "visually-hidden" : ""}>{props.label}</span>
    </label>
  );
}

/** A list of strings: one text box per item, with Remove and Add item. */
export function ListEditor(props: {
  label: string;
  items: string[];
  onChange: (items: string[]) => void;
  id?: string;
  describedBy?: string;
  placeholder?: string;
}) {
  const { items, onChange, label } = props;
  const set = (index: number, value: string) =>
    onChange(items.map((item, at) => at === index ? value : item));
  return (
    <div class="settings-list" role="group" aria-label={label} aria-describedby={props.describedBy}>
      {items.length === 0 && <p class="muted settings-list-empty">No items.</p>}
      {items.map((item, index) => (
        <div class="settings-list-row" key={index}>
          <input
            type="text"
            id={index === 0 ? props.id : undefined}
            value={item}
            aria-label={`${label}, item ${index + 1}`}
            placeholder={props.placeholder}
            onInput={(event) => set(index, (event.currentTarget as HTMLInputElement).value)}
          />
          <Button
            variant="ghost"
            aria-label={`Remove ${label} item ${index + 1}`}
            onClick={() =>
              onChange(items.filter((_, at) =>
                at !== index
              ))}
          >
            Remove
          </Button>
        </div>
      ))}
      <Button
        id={items.length === 0 ? props.id : undefined}
        onClick={() =>
          onChange([...items, ""])}
        aria-label={`Add ${label} item`}
      >
        Add item
      </Button>
    </div>
  );
}

/** A short status label: ok, warn, off or error. */
export function Badge(
  props: { kind: "ok" | "warn" | "off" | "error"; children: ComponentChildren },
) {
  return <span class={`settings-badge settings-badge-${props.kind}`}>{props.children}</span>;
}

/** Text in which `backticked` parts are shown as code (as the schema's descriptions write them). */
export function CodeText(props: { text: string }) {
  const parts = props.text.split("`");
  return <>{parts.map((part, index) => index % 2 === 1 ? <code key={index}>{part}</code> : part)}
  </>;
}

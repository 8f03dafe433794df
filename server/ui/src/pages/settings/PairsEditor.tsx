/**
 * A list of name and value pairs (an MCP server's environment or HTTP
 * headers), one row each. A value whose name looks secret (by the rule the
 * server uses to move it to `.env`: core/config/secret_names.ts) is typed
 * into a password box, shown only while its Show button is pressed.
 *
 * @module
 */

import { isSecretEnvName, isSecretHeader } from "../../../../../core/config/secret_names.ts";
import { Button } from "../../components/ui.tsx";

/** One row: a name, its value, and whether a secret value is shown. */
export interface Pair {
  name: string;
  value: string;
  shown?: boolean;
}

/** Environment variables (`NAME=value`) or HTTP headers (`Name: value`). */
export type PairKind = "env" | "headers";

/** True when the value of `name` is a secret of this kind. */
function isSecretPair(kind: PairKind, name: string): boolean {
  const trimmed = name.trim();
  return trimmed !== "" && (kind === "env" ? isSecretEnvName(trimmed) : isSecretHeader(trimmed));
}

/**
 * The pairs as a record, blank rows left out, or the message about the
 * first row that has a value but no name.
 */
export function pairsRecord(
  pairs: readonly Pair[],
  kind: PairKind,
): Record<string, string> | string {
  const record: Record<string, string> = {};
  for (const [index, pair] of pairs.entries()) {
    const name = pair.name.trim();
    if (!name && !pair.value.trim()) continue;
    if (!name) {
      return `Row ${index + 1} has a value but no ${kind === "env" ? "variable" : "header"} name`;
    }
    record[name] = pair.value.trim();
  }
  return record;
}

/** The rows, each with its name, value, Show (for a secret) and Remove, and Add. */
export function PairsEditor(props: {
  /** The first name box's id (the field's label points at it). */
  id: string;
  /** "Environment" or "Headers": names the group and each box. */
  label: string;
  kind: PairKind;
  pairs: Pair[];
  onChange: (pairs: Pair[]) => void;
  describedBy?: string;
}) {
  const { pairs, onChange, label, kind } = props;
  const set = (index: number, change: Partial<Pair>) =>
    onChange(pairs.map((pair, at) => at === index ? { ...pair, ...change } : pair));
  const noun = kind === "env" ? "variable" : "header";
  return (
    <div
      class="settings-pairs"
      role="group"
      aria-label={label}
      aria-describedby={props.describedBy}
    >
      {pairs.map((pair, index) => {
        const secret = isSecretPair(kind, pair.name);
        const n = index + 1;
        return (
          <div class="settings-pair" key={index}>
            <input
              id={index === 0 ? props.id : undefined}
              type="text"
              class="settings-pair-name"
              autoComplete="off"
              spellcheck={false}
              placeholder={kind === "env" ? "NAME" : "Name"}
              aria-label={`${label}, ${noun} ${n} name`}
              value={pair.name}
              onInput={(event) =>
                set(index, { name: (event.currentTarget as HTMLInputElement).value })}
            />
            <input
              type={secret && !pair.shown ? "password" : "text"}
              class="settings-pair-value"
              autoComplete={secret ? "new-password" : "off"}
              spellcheck={false}
              placeholder="value"
              aria-label={`${label}, ${noun} ${n} value`}
              value={pair.value}
              onInput={(event) =>
                set(index, { value: (event.currentTarget as HTMLInputElement).value })}
            />
            <div class="settings-pair-actions">
              {secret && (
                <Button
                  variant="ghost"
                  aria-pressed={pair.shown === true}
                  aria-label={`${pair.shown ? "Hide" : "Show"} the value of ${pair.name.trim()}`}
                  onClick={() => set(index, { shown: !pair.shown })}
                >
                  {pair.shown ? "Hide" : "Show"}
                </Button>
              )}
              <Button
                variant="ghost"
                aria-label={`Remove ${noun} ${n}`}
                onClick={() => onChange(pairs.filter((_, at) => at !== index))}
              >
                Remove
              </Button>
            </div>
          </div>
        );
      })}
      <Button
        onClick={() => onChange([...pairs, { name: "", value: "" }])}
      >
        {kind === "env" ? "Add a variable" : "Add a header"}
      </Button>
    </div>
  );
}

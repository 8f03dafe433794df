/**
 * Slash-command autocomplete over `commands.catalog`: when the input is a
 * command name being typed, and which entries match it. Pure.
 */

/** One slash-command completion from `commands.catalog`. */
export interface Completion {
  name: string;
  description: string;
  kind: "command" | "bundle" | "skill";
  marker: string;
}

/**
 * The command name being typed (without the slash) when `value` is a
 * slash and a name with nothing after it, else null.
 *
 * @example
 * ```ts
 * slashQuery("/rev"); // "rev"
 * slashQuery("/review the diff"); // null
 * ```
 */
export function slashQuery(value: string): string | null {
  const match = /^\/([^\s/]*)$/.exec(value);
  return match ? match[1] : null;
}

/**
 * The entries whose name starts with `query`, `_` counting as `-` (as the
 * server's `/my_bundle` finds `my-bundle`), in the catalog's order.
 */
export function matchCompletions(entries: Completion[], query: string): Completion[] {
  const wanted = query.toLowerCase().replaceAll("_", "-");
  return entries.filter((entry) => entry.name.toLowerCase().startsWith(wanted));
}

/**
 * Reading JSON text that should hold an object (a tool's arguments or
 * result), without throwing, and telling a plain object from the rest.
 *
 * @module
 */

/**
 * Whether `value` is a plain object (not null, not an array), as parsed
 * JSON or YAML gives one.
 *
 * @example
 * ```ts
 * isRecord({ a: 1 }); // true
 * isRecord([1]);      // false
 * ```
 */
export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/**
 * `text` parsed as a JSON object; null when it is absent, not JSON, or not
 * an object (an array, a string, null).
 *
 * @example
 * ```ts
 * parseJsonObject('{"exit_code":1}'); // { exit_code: 1 }
 * parseJsonObject("[1]");             // null
 * ```
 */
export function parseJsonObject(text: string | undefined): Record<string, unknown> | null {
  if (text === undefined) return null;
  try {
    const value: unknown = JSON.parse(text);
    return isRecord(value) ? value : null;
  } catch {
    return null;
  }
}

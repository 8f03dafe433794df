/**
 * Reading JSON text that should hold an object (a tool's arguments or
 * result), without throwing.
 *
 * @module
 */

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
    const value = JSON.parse(text);
    return value !== null && typeof value === "object" && !Array.isArray(value)
      ? value as Record<string, unknown>
      : null;
  } catch {
    return null;
  }
}

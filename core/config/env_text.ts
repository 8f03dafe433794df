/**
 * The `.env` format: `NAME=value` lines, `#` comments, optional `export `,
 * single or double quotes. Editing keeps every other line as written.
 *
 * @module
 */

import { checkEnvValueSize } from "./limits.ts";

/** A line that could not be understood; it is kept, never rewritten. */
export interface EnvWarning {
  line: number;
  message: string;
}

/** Parsed `.env` content. */
export interface ParsedEnv {
  values: Map<string, string>;
  warnings: EnvWarning[];
}

const ASSIGNMENT = /^\s*(?:export\s+)?([A-Za-z_][A-Za-z0-9_]*)\s*=\s*(.*)$/;

function unquote(raw: string): string {
  const value = raw.trim();
  if (value.startsWith('"')) {
    const end = value.lastIndexOf('"');
    const inner = end > 0 ? value.slice(1, end) : value.slice(1);
    return inner.replace(
      /\\(["\\nrt])/g,
      (_, c: string) => ({ n: "\n", r: "\r", t: "\t" } as Record<string, string>)[c] ?? c,
    );
  }
  if (value.startsWith("'")) {
    const end = value.lastIndexOf("'");
    return end > 0 ? value.slice(1, end) : value.slice(1);
  }
  return value.replace(/\s+#.*$/, "");
}

/**
 * Parses `.env` text. Later assignments win; malformed lines become warnings.
 *
 * @example
 * ```ts
 * parseEnv('A=1\n# note\nB="two words"').values.get("B") // "two words"
 * ```
 */
export function parseEnv(text: string): ParsedEnv {
  const values = new Map<string, string>();
  const warnings: EnvWarning[] = [];
  text.split(/\r?\n/).forEach((line, index) => {
    if (line.trim() === "" || line.trimStart().startsWith("#")) return;
    const match = ASSIGNMENT.exec(line);
    if (!match) {
      warnings.push({ line: index + 1, message: "not a NAME=value line (ignored, kept)" });
      return;
    }
    values.set(match[1], unquote(match[2]));
  });
  return { values, warnings };
}

/** Formats a value so {@link parseEnv} reads it back exactly. */
export function quoteEnvValue(value: string): string {
  if (/^[A-Za-z0-9_./:@+,-]*$/.test(value)) return value;
  const escaped = value.replace(/\\/g, "\\\\").replace(/"/g, '\\"').replace(/\n/g, "\\n")
    .replace(/\r/g, "\\r").replace(/\t/g, "\\t");
  return `"${escaped}"`;
}

/**
 * Sets `name` in `.env` text: the first assignment is replaced in place,
 * later duplicates removed, or a line is appended. Other lines are untouched.
 *
 * @throws ValueTooLargeError for a value over `MAX_ENV_VALUE_BYTES`.
 */
export function setEnvValue(text: string, name: string, value: string): string {
  checkEnvValueSize(name, value);
  const line = `${name}=${quoteEnvValue(value)}`;
  const lines = text === "" ? [] : text.split("\n");
  if (lines.length > 0 && lines[lines.length - 1] === "") lines.pop();
  let replaced = false;
  const out: string[] = [];
  for (const existing of lines) {
    const match = ASSIGNMENT.exec(existing);
    if (match && match[1] === name) {
      if (!replaced) out.push(line);
      replaced = true;
    } else {
      out.push(existing);
    }
  }
  if (!replaced) out.push(line);
  return out.join("\n") + "\n";
}

/** Removes every assignment of `name`; returns the text unchanged when absent. */
export function removeEnvValue(text: string, name: string): string {
  const lines = text.split("\n").filter((existing) => ASSIGNMENT.exec(existing)?.[1] !== name);
  return lines.join("\n");
}

/**
 * Removes every assignment of each of `names` that is set in `text`; returns
 * the new text and the names that were set, in `names` order. Every other
 * line is kept as written.
 *
 * @example
 * ```ts
 * removeEnvValuesFromText("A=1\nB=2\n", ["B", "C"]); // { text: "A=1\n", removed: ["B"] }
 * ```
 */
export function removeEnvValuesFromText(
  text: string,
  names: readonly string[],
): { text: string; removed: string[] } {
  const present = parseEnv(text).values;
  const removed = names.filter((name) => present.has(name));
  return { text: removed.reduce(removeEnvValue, text), removed };
}

/**
 * The config form, worked out from the JSON Schema the server answers
 * (`GET /api/config/schema`): which fields each section has and how each
 * is edited, the form's draft values, and the `{set: {...}}` of what
 * changed. Pure functions, no DOM.
 *
 * @module
 */

import type { JsonSchema } from "./types.ts";

/** How a field is edited. */
export type FieldKind = "boolean" | "number" | "integer" | "enum" | "string" | "secret" | "list";

/** One editable leaf of config.yaml. */
export interface FormField {
  /** The dotted key, e.g. `agent.max_turns`. */
  key: string;
  label: string;
  kind: FieldKind;
  description?: string;
  default?: unknown;
  /** The choices of an `enum` field. */
  options?: string[];
  min?: number;
  max?: number;
}

/** A top-level section of config.yaml. */
export interface FormGroup {
  id: string;
  title: string;
  description?: string;
  fields: FormField[];
}

/** A section the form does not edit (a map by name, or a list of entries), and where it is edited. */
export interface OtherSection {
  id: string;
  title: string;
  description?: string;
  /** The settings section that edits it, when one does. */
  section?: "model" | "mcp" | "messaging";
}

/** Where sections kept by name are edited on this page. */
const EDITED_IN: Record<string, OtherSection["section"]> = {
  auxiliary: "model",
  mcp_servers: "mcp",
  platforms: "messaging",
};

/** `max_turns` as a person reads it: "Max turns". */
export function labelOf(name: string): string {
  const words = name.replace(/_/g, " ").trim();
  const text = words.charAt(0).toUpperCase() + words.slice(1);
  return text.replace(/\b(url|api|mcp|id|yaml)\b/gi, (word) => word.toUpperCase());
}

function unwrap(node: JsonSchema | undefined): JsonSchema | undefined {
  return node && typeof node === "object" ? node : undefined;
}

/** The field for a leaf, or undefined when the form cannot edit it. */
function fieldOf(key: string, node: JsonSchema): FormField | undefined {
  const base = {
    key,
    label: labelOf(key.split(".").pop()!),
    description: node.description,
    default: node.default,
  };
  if (Array.isArray(node.enum) && node.enum.every((value) => typeof value === "string")) {
    return { ...base, kind: "enum", options: node.enum as string[] };
  }
  switch (node.type) {
    case "boolean":
      return { ...base, kind: "boolean" };
    case "integer":
    case "number":
      return {
        ...base,
        kind: node.type,
        min: node.minimum ?? node.exclusiveMinimum,
        max: node.maximum !== undefined && node.maximum < Number.MAX_SAFE_INTEGER
          ? node.maximum
          : node.exclusiveMaximum,
      };
    case "string":
      return { ...base, kind: node.writeOnly ? "secret" : "string" };
    case "array":
      return unwrap(node.items)?.type === "string" ? { ...base, kind: "list" } : undefined;
  }
  return undefined;
}

/** The leaves of an object section, nested objects flattened into dotted keys. */
function fieldsOf(prefix: string, node: JsonSchema): FormField[] {
  return Object.entries(node.properties ?? {}).flatMap(([name, child]) => {
    const key = `${prefix}.${name}`;
    if (child.type === "object" && child.properties) return fieldsOf(key, child);
    const field = fieldOf(key, child);
    return field ? [field] : [];
  });
}

/**
 * The form's groups (one per top-level section; top-level leaves such as
 * `plugins` under "General" first) and the sections it leaves to other
 * editors.
 */
export function formLayout(schema: JsonSchema): { groups: FormGroup[]; others: OtherSection[] } {
  const general: FormGroup = { id: "general", title: "General", fields: [] };
  const groups: FormGroup[] = [];
  const others: OtherSection[] = [];
  for (const [name, node] of Object.entries(schema.properties ?? {})) {
    if (node.type === "object" && node.properties) {
      groups.push({
        id: name,
        title: labelOf(name),
        description: node.description,
        fields: fieldsOf(name, node),
      });
      continue;
    }
    const field = fieldOf(name, node);
    if (field) {
      general.fields.push(field);
    } else {
      others.push({
        id: name,
        title: labelOf(name),
        description: node.description,
        section: EDITED_IN[name],
      });
    }
  }
  return { groups: general.fields.length > 0 ? [general, ...groups] : groups, others };
}

/** A field's value as the form holds it: text for numbers, strings and secrets. */
export type Draft = boolean | string | string[];

/** The value at dotted `key` of `config`, or undefined. */
export function valueAt(config: Record<string, unknown>, key: string): unknown {
  let current: unknown = config;
  for (const part of key.split(".")) {
    if (current === null || typeof current !== "object") return undefined;
    current = (current as Record<string, unknown>)[part];
  }
  return current;
}

/** The draft for `value` (from `GET /api/config`); a secret's draft starts empty. */
export function draftOf(field: FormField, value: unknown): Draft {
  switch (field.kind) {
    case "boolean":
      return value === undefined ? field.default === true : value === true;
    case "list":
      return Array.isArray(value) ? value.map(String) : [];
    case "secret":
      return "";
    default:
      return value === undefined || value === null ? "" : String(value);
  }
}

/** What a field's problem is before anything is sent, or null. */
export function draftProblem(field: FormField, draft: Draft): string | null {
  if (field.kind !== "number" && field.kind !== "integer") return null;
  const text = String(draft).trim();
  if (text === "") return null;
  const number = Number(text);
  if (!Number.isFinite(number)) return "Enter a number";
  if (field.kind === "integer" && !Number.isInteger(number)) return "Enter a whole number";
  return null;
}

/**
 * The JSON value `{set: {...}}` sends for a draft: `null` (the key is
 * removed, its default applies) for an empty number or text, the number
 * for a number, the list without empty items.
 */
export function sentValue(field: FormField, draft: Draft): unknown {
  switch (field.kind) {
    case "boolean":
      return draft;
    case "list":
      return (draft as string[]).map((item) => item.trim()).filter((item) => item !== "");
    case "number":
    case "integer": {
      const text = String(draft).trim();
      return text === "" ? null : Number(text);
    }
    default:
      return String(draft).trim() === "" ? null : String(draft);
  }
}

/**
 * The `{set: {...}}` of the fields whose draft differs from what was loaded:
 * a secret only when something was typed into it.
 */
export function changedValues(
  fields: readonly FormField[],
  loaded: Readonly<Record<string, Draft>>,
  drafts: Readonly<Record<string, Draft>>,
): Record<string, unknown> {
  const set: Record<string, unknown> = {};
  for (const field of fields) {
    const draft = drafts[field.key];
    if (draft === undefined) continue;
    if (field.kind === "secret") {
      if (String(draft) !== "") set[field.key] = draft;
      continue;
    }
    const before = JSON.stringify(sentValue(field, loaded[field.key]));
    if (JSON.stringify(sentValue(field, draft)) !== before) {
      set[field.key] = sentValue(field, draft);
    }
  }
  return set;
}

/**
 * The character offset of 1-based `line` and `column` in `text` (clamped to
 * the text), for moving the caret to a parse error.
 */
export function offsetOf(text: string, line: number, column: number): number {
  let offset = 0;
  for (let current = 1; current < line; current++) {
    const next = text.indexOf("\n", offset);
    if (next === -1) return text.length;
    offset = next + 1;
  }
  const end = text.indexOf("\n", offset);
  const lineEnd = end === -1 ? text.length : end;
  return Math.min(offset + Math.max(column - 1, 0), lineEnd);
}

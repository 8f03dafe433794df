/**
 * The one way Herald reads YAML it did not write (config.yaml, profile.yaml,
 * skill bundles, SKILL.md frontmatter): one document, the core schema,
 * unique keys, nothing printed, and aliases (`*name`) checked before they are expanded, so an
 * alias that names no anchor, an alias inside the node it names, or an
 * "alias bomb" is a problem with a line and column instead of an exception
 * from deep inside the parser or a blow-up in memory and time.
 *
 * @module
 */

import YAML from "yaml";

/**
 * The most aliases one YAML text may hold, and the `maxAliasCount` given to
 * the `yaml` package when they are expanded (a reference count weighted by
 * the aliases nested inside the anchored node). Hand-written config and
 * skill files use a handful at most.
 */
export const MAX_YAML_ALIASES = 100;

/** Why YAML text could not be read, and where (1-based line and column). */
export interface YamlProblem {
  line: number;
  column: number;
  reason: string;
}

/** Options of {@link readYaml}. */
export interface ReadYamlOptions {
  /** Treat parser warnings (an unknown `!tag`, for example) as problems. */
  strictTags?: boolean;
}

/** What {@link readYaml} gave: the document and its plain data, or the first problem. */
export type YamlRead =
  | { ok: true; doc: YAML.Document; value: unknown }
  | { ok: false; problem: YamlProblem };

/** Keys that would reach an object's prototype if assigned; never looked up as data. */
const PROTOTYPE_KEYS = new Set(["__proto__"]);

/** 1-based line and column of character `offset` in `text`. */
export function positionOf(text: string, offset: number): { line: number; column: number } {
  const before = text.slice(0, Math.max(0, offset)).split("\n");
  return { line: before.length, column: before[before.length - 1].length + 1 };
}

function problemAt(text: string, node: YAML.Node | undefined, reason: string): YamlProblem {
  return { ...positionOf(text, node?.range?.[0] ?? 0), reason };
}

/**
 * Checks every alias in document order: it must follow its anchor, must not
 * sit inside the node it names (a cycle), and there may be at most
 * {@link MAX_YAML_ALIASES} of them. Returns the aliases when all is well.
 */
function checkAliases(doc: YAML.Document, text: string): YAML.Alias[] | YamlProblem {
  const anchors = new Map<string, YAML.Node>();
  const aliases: YAML.Alias[] = [];
  let problem: YamlProblem | undefined;
  YAML.visit(doc, (_key, node, path) => {
    if (YAML.isAlias(node)) {
      aliases.push(node);
      const target = anchors.get(node.source);
      if (aliases.length > MAX_YAML_ALIASES) {
        problem = problemAt(
          text,
          node,
          `more than ${MAX_YAML_ALIASES} aliases (*name); write the values out instead`,
        );
      } else if (!target) {
        problem = problemAt(
          text,
          node,
          `alias *${node.source} names no anchor &${node.source} before it`,
        );
      } else if (path.includes(target)) {
        problem = problemAt(text, node, `alias *${node.source} is inside the node it names`);
      }
      if (problem) return YAML.visit.BREAK;
    } else if (YAML.isNode(node) && node.anchor) {
      anchors.set(node.anchor, node);
    }
  });
  return problem ?? aliases;
}

/**
 * Converts the document to plain data with alias expansion capped. When the
 * cap is hit, the alias being expanded at that moment is the one reported:
 * each alias node records itself while it is converted (on this document
 * only, removed afterwards).
 */
function toPlainData(doc: YAML.Document, text: string, aliases: YAML.Alias[]): YamlRead {
  const converting: YAML.Alias[] = [];
  for (const alias of aliases) {
    const convert = YAML.Alias.prototype.toJSON.bind(alias);
    Object.defineProperty(alias, "toJSON", {
      configurable: true,
      value: (arg: unknown, ctx: unknown) => {
        converting.push(alias);
        const value = convert(arg as string, ctx as never);
        converting.pop();
        return value;
      },
    });
  }
  try {
    return { ok: true, doc, value: doc.toJS({ maxAliasCount: MAX_YAML_ALIASES }) };
  } catch (error) {
    const at = converting.at(-1) ?? aliases[0];
    const reason = /excessive alias count/i.test((error as Error).message)
      ? `aliases expand to too much data (more than ${MAX_YAML_ALIASES} copies); ` +
        "write the values out instead"
      : (error as Error).message.split("\n")[0];
    return { ok: false, problem: problemAt(text, at, reason) };
  } finally {
    for (const alias of aliases) delete (alias as { toJSON?: unknown }).toJSON;
  }
}

/**
 * Parses one YAML document and converts it to plain data; never throws.
 * Errors carry the line and column of the first problem; a key `__proto__`
 * is kept as an ordinary own key by the parser and dropped by
 * {@link withoutPrototypeKeys}, which callers that walk user keys apply.
 *
 * @example
 * ```ts
 * readYaml("a: &x 1\nb: *x\n");          // { ok: true, value: { a: 1, b: 1 }, ... }
 * readYaml("a: *nope\n").ok;             // false: line 1, column 4
 * ```
 */
export function readYaml(text: string, options: ReadYamlOptions = {}): YamlRead {
  let doc: YAML.Document;
  try {
    doc = YAML.parseDocument(text, {
      // The core schema whatever a `%YAML 1.1` line says: no merge keys, dates or sets.
      schema: "core",
      prettyErrors: true,
      uniqueKeys: true,
      logLevel: "error",
    });
  } catch (error) {
    return { ok: false, problem: { line: 1, column: 1, reason: (error as Error).message } };
  }
  const first = doc.errors[0] ?? (options.strictTags ? doc.warnings[0] : undefined);
  if (first) {
    const pos = first.linePos?.[0] ?? { line: 1, col: 1 };
    const reason = first.message.split("\n")[0]
      .replace(/ at line \d+, column \d+:?$/, "")
      .replace(/:\s*$/, "");
    return { ok: false, problem: { line: pos.line, column: pos.col, reason } };
  }
  const aliases = checkAliases(doc, text);
  if (!Array.isArray(aliases)) return { ok: false, problem: aliases };
  return toPlainData(doc, text, aliases);
}

/**
 * A deep copy of plain data without `__proto__` keys, so later code that
 * copies or assigns user keys can never reach a prototype.
 */
export function withoutPrototypeKeys<T>(value: T): T {
  if (Array.isArray(value)) return value.map((item) => withoutPrototypeKeys(item)) as T;
  if (value !== null && typeof value === "object" && !(value instanceof Date)) {
    const copy: Record<string, unknown> = {};
    for (const [key, child] of Object.entries(value)) {
      if (!PROTOTYPE_KEYS.has(key)) copy[key] = withoutPrototypeKeys(child);
    }
    return copy as T;
  }
  return value;
}

/** True for keys that must never be treated as data (`__proto__`). */
export function isPrototypeKey(key: string): boolean {
  return PROTOTYPE_KEYS.has(key);
}

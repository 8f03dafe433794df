/**
 * Codex's `config.toml` as Herald writes it: a small TOML emitter, the
 * managed block between marker comments, merging that block into the
 * user's file (everything outside the markers kept byte for byte), and a
 * scanner that tells which settings the user's own text already holds, so
 * the block never repeats a key (a duplicate key is invalid TOML and makes
 * codex fall back to its defaults).
 *
 * The block holds only top-level `key = value` lines (dotted keys, inline
 * tables; never a `[table]` header) and always sits at the top of the file:
 * keys written after a user's `[table]` header would land in that table.
 *
 * The scanner is not a full TOML parser. It reads the statement structure
 * (table headers, `key = value` with dotted and quoted keys, strings of all
 * four kinds, arrays and inline tables spanning lines) well enough to list
 * the keys each statement defines; it does not check values (a bad date or
 * number is not noticed) and does not resolve keys an inline table or an
 * array of tables defines inside itself beyond their top key. Text it
 * cannot follow is reported with its line ({@link TomlScanError}).
 *
 * @module
 */

import { HeraldError } from "../errors.ts";

/** A TOML value Herald writes: strings, finite numbers, booleans, arrays and inline tables. */
export type TomlValue =
  | string
  | number
  | boolean
  | readonly TomlValue[]
  | { readonly [key: string]: TomlValue };

/** One `dotted.key = value` line of the managed block; `key` is the path, unquoted. */
export interface TomlEntry {
  key: readonly string[];
  value: TomlValue;
}

/** The first line of the managed block. */
export const MANAGED_BLOCK_START =
  "# >>> managed by herald: `herald codex-runtime migrate` rewrites this block; edit outside it";
/** The last line of the managed block. */
export const MANAGED_BLOCK_END = "# <<< end of herald's managed block";

const START_PREFIX = "# >>> managed by herald";
const BARE_KEY = /^[A-Za-z0-9_-]+$/;

/** Text that cannot be read as TOML, or a managed block Herald cannot place safely. */
export class TomlScanError extends HeraldError {
  /** Creates the error for `file`'s `line` (1-based). */
  constructor(readonly line: number, problem: string) {
    super("codex_config_invalid", "parse", `config.toml line ${line}: ${problem}`, {
      details: { line },
    });
  }
}

/**
 * A TOML basic string: quotes, backslashes and control characters escaped.
 *
 * @example
 * ```ts
 * tomlString('say "hi"\n'); // "\"say \\\"hi\\\"\\n\""
 * ```
 */
export function tomlString(text: string): string {
  let out = '"';
  for (const char of text) {
    const code = char.codePointAt(0)!;
    if (char === '"') out += '\\"';
    else if (char === "\\") out += "\\\\";
    else if (char === "\n") out += "\\n";
    else if (char === "\r") out += "\\r";
    else if (char === "\t") out += "\\t";
    else if (char === "\b") out += "\\b";
    else if (char === "\f") out += "\\f";
    else if (code < 0x20 || code === 0x7f) out += `\\u${code.toString(16).padStart(4, "0")}`;
    else out += char;
  }
  return out + '"';
}

/** A key segment: bare when it can be (`a-b_1`), else a quoted string. */
export function tomlKey(key: string): string {
  return BARE_KEY.test(key) ? key : tomlString(key);
}

/**
 * A value in TOML's inline syntax.
 *
 * @throws TypeError for a number that is not finite (TOML's `nan`/`inf` are never meant here).
 *
 * @example
 * ```ts
 * tomlValue({ command: "npx", args: ["-y", "x"], enabled: false });
 * // '{ command = "npx", args = ["-y", "x"], enabled = false }'
 * ```
 */
export function tomlValue(value: TomlValue): string {
  if (typeof value === "string") return tomlString(value);
  if (typeof value === "boolean") return String(value);
  if (typeof value === "number") {
    if (!Number.isFinite(value)) throw new TypeError(`not a finite number: ${value}`);
    return String(value);
  }
  if (Array.isArray(value)) return `[${value.map(tomlValue).join(", ")}]`;
  const entries = Object.entries(value as Record<string, TomlValue>);
  if (entries.length === 0) return "{}";
  return `{ ${entries.map(([k, v]) => `${tomlKey(k)} = ${tomlValue(v)}`).join(", ")} }`;
}

/** One `dotted.key = value` line (no newline). */
export function tomlLine(entry: TomlEntry): string {
  return `${entry.key.map(tomlKey).join(".")} = ${tomlValue(entry.value)}`;
}

/**
 * The managed block: the start marker, one line per entry, the end marker,
 * each line ending in `\n`.
 */
export function renderManagedBlock(entries: readonly TomlEntry[]): string {
  return [MANAGED_BLOCK_START, ...entries.map(tomlLine), MANAGED_BLOCK_END].join("\n") + "\n";
}

/** Where the managed block sits in a text: `[start, end)` in characters, end after its newline. */
interface BlockSpan {
  start: number;
  end: number;
}

/** Start offsets of the lines of `text`. */
function lineStarts(text: string): number[] {
  const starts = [0];
  for (let i = text.indexOf("\n"); i !== -1; i = text.indexOf("\n", i + 1)) starts.push(i + 1);
  return starts;
}

function lineAt(text: string, start: number): string {
  const end = text.indexOf("\n", start);
  return text.slice(start, end === -1 ? text.length : end).replace(/\r$/, "");
}

/**
 * The managed block's span in `text`, or null when there is none.
 *
 * @throws TomlScanError when a start marker has no end marker after it, or
 *   there are two blocks (the file was edited by hand; it has to be fixed first).
 */
function findBlock(text: string): BlockSpan | null {
  const starts = lineStarts(text);
  let span: BlockSpan | null = null;
  let open: number | null = null;
  for (const [index, start] of starts.entries()) {
    const line = lineAt(text, start).trimEnd();
    if (line.startsWith(START_PREFIX)) {
      if (open !== null || span !== null) {
        throw new TomlScanError(index + 1, "a second start marker of Herald's managed block");
      }
      open = start;
    } else if (line === MANAGED_BLOCK_END) {
      if (open === null) {
        throw new TomlScanError(index + 1, "the end marker of Herald's managed block has no start");
      }
      span = { start: open, end: starts[index + 1] ?? text.length };
      open = null;
    }
  }
  if (open !== null) {
    const line = starts.indexOf(open) + 1;
    throw new TomlScanError(
      line,
      `Herald's managed block starts here but has no end marker ("${MANAGED_BLOCK_END}"); ` +
        "add it or delete the block, then migrate again",
    );
  }
  return span;
}

/** `text` without the managed block (the user's own text), or `text` when there is none. */
export function outsideManagedBlock(text: string): string {
  const span = findBlock(text);
  return span ? text.slice(0, span.start) + text.slice(span.end) : text;
}

/**
 * `existing` with the managed block replaced by `block` where the markers
 * are, else with `block` put in front (after a byte-order mark, if any).
 * Everything outside the markers stays byte for byte; a file written with
 * CRLF line ends gets the block with CRLF too. `existing` null (no file)
 * gives the block alone.
 *
 * @throws TomlScanError when the markers are broken, or the block sits after a
 *   `[table]` header (its keys would belong to that table; move it to the top).
 */
export function mergeManagedBlock(existing: string | null, block: string): string {
  if (existing === null || existing === "") return block;
  // The file's own line ending: the one its first line ends with.
  const crlf = /^[^\n]*\r\n/.test(existing);
  const placed = crlf ? block.replace(/\r?\n/g, "\r\n") : block;
  const span = findBlock(existing);
  if (span === null) {
    const bom = existing.startsWith("\uFEFF") ? "\uFEFF" : "";
    return bom + placed + existing.slice(bom.length);
  }
  const before = existing.slice(0, span.start);
  const header = scanToml(before).headers[0];
  if (header) {
    throw new TomlScanError(
      header.line,
      `Herald's managed block must come before any [table] header (here [${
        header.path.join(".")
      }]); move the block to the top of the file, then migrate again`,
    );
  }
  return before + placed + existing.slice(span.end);
}

/** A table header the scanner found. */
export interface TomlHeader {
  path: string[];
  /** True for `[[array.of.tables]]`. */
  array: boolean;
  line: number;
}

/** What the scanner found: the keys defined, with their full paths, and the table headers. */
export interface TomlScan {
  /** Every `key = value`, as the full path (the table's path, then the dotted key). */
  keys: { path: string[]; line: number }[];
  headers: TomlHeader[];
}

/** A cursor over TOML text. */
class Scanner {
  pos = 0;
  line = 1;
  constructor(readonly text: string) {}

  get done(): boolean {
    return this.pos >= this.text.length;
  }
  peek(offset = 0): string {
    return this.text[this.pos + offset] ?? "";
  }
  next(): string {
    const char = this.text[this.pos++] ?? "";
    if (char === "\n") this.line++;
    return char;
  }
  startsWith(token: string): boolean {
    return this.text.startsWith(token, this.pos);
  }
  fail(problem: string): never {
    throw new TomlScanError(this.line, problem);
  }
  /** Spaces and tabs. */
  skipBlanks(): void {
    while (this.peek() === " " || this.peek() === "\t") this.pos++;
  }
  /** Blanks, newlines and comments. */
  skipBlankLines(): void {
    for (;;) {
      this.skipBlanks();
      const char = this.peek();
      if (char === "#") this.skipComment();
      else if (char === "\n" || char === "\r") this.next();
      else return;
    }
  }
  skipComment(): void {
    while (!this.done && this.peek() !== "\n") this.pos++;
  }
  /** After a statement: blanks, an optional comment, then a newline or the end. */
  endOfLine(): void {
    this.skipBlanks();
    if (this.peek() === "#") this.skipComment();
    if (this.peek() === "\r") this.pos++;
    if (this.done) return;
    if (this.peek() !== "\n") this.fail(`unexpected text "${this.peek()}" after a value`);
    this.next();
  }
}

function readBasicString(s: Scanner, multiline: boolean): string {
  const close = multiline ? '"""' : '"';
  let out = "";
  for (;;) {
    if (s.done) s.fail("a string is not closed");
    if (s.startsWith(close)) {
      s.pos += close.length;
      // A multi-line string may end with up to two quotes before the closing three.
      while (multiline && s.peek() === '"') out += s.next();
      return out;
    }
    if (s.peek() === "\n" && !multiline) s.fail("a string is not closed on its line");
    const char = s.next();
    if (char !== "\\") {
      out += char;
      continue;
    }
    const escaped = s.next();
    const simple: Record<string, string> = {
      b: "\b",
      t: "\t",
      n: "\n",
      f: "\f",
      r: "\r",
      e: "\x1b",
      '"': '"',
      "\\": "\\",
    };
    if (escaped in simple) out += simple[escaped];
    else if (escaped === "u" || escaped === "U" || escaped === "x") {
      const length = escaped === "u" ? 4 : escaped === "U" ? 8 : 2;
      const hex = s.text.slice(s.pos, s.pos + length);
      if (!/^[0-9a-fA-F]+$/.test(hex) || hex.length !== length) s.fail("a bad escape in a string");
      s.pos += length;
      out += String.fromCodePoint(parseInt(hex, 16));
    } else if (multiline && /[ \t\r\n]/.test(escaped)) {
      while (/[ \t\r\n]/.test(s.peek())) s.next();
    } else s.fail(`an unknown escape "\\${escaped}" in a string`);
  }
}

function readLiteralString(s: Scanner, multiline: boolean): string {
  const close = multiline ? "'''" : "'";
  const start = s.pos;
  for (;;) {
    if (s.done) s.fail("a string is not closed");
    if (s.startsWith(close)) {
      let end = s.pos;
      s.pos += close.length;
      while (multiline && s.peek() === "'") {
        s.pos++;
        end++;
      }
      return s.text.slice(start, end);
    }
    if (s.peek() === "\n" && !multiline) s.fail("a string is not closed on its line");
    s.next();
  }
}

/** A string at the cursor (any of the four kinds); its text. */
function readString(s: Scanner): string {
  if (s.startsWith('"""')) {
    s.pos += 3;
    if (s.peek() === "\n") s.next();
    else if (s.startsWith("\r\n")) (s.pos++, s.next());
    return readBasicString(s, true);
  }
  if (s.startsWith("'''")) {
    s.pos += 3;
    if (s.peek() === "\n") s.next();
    else if (s.startsWith("\r\n")) (s.pos++, s.next());
    return readLiteralString(s, true);
  }
  if (s.peek() === '"') {
    s.pos++;
    return readBasicString(s, false);
  }
  s.pos++;
  return readLiteralString(s, false);
}

/** A dotted key at the cursor, segments unquoted. */
function readKey(s: Scanner): string[] {
  const path: string[] = [];
  for (;;) {
    s.skipBlanks();
    const char = s.peek();
    if (char === '"' || char === "'") {
      if (s.startsWith('"""') || s.startsWith("'''")) s.fail("a multi-line string cannot be a key");
      path.push(readString(s));
    } else {
      const match = /^[A-Za-z0-9_-]+/.exec(s.text.slice(s.pos, s.pos + 256));
      if (!match) {
        s.fail(char === "" ? "a key is missing" : `unexpected "${char}" where a key goes`);
      }
      path.push(match[0]);
      s.pos += match[0].length;
    }
    s.skipBlanks();
    if (s.peek() !== ".") return path;
    s.pos++;
  }
}

/**
 * Skips a value at the cursor. Keys defined inside an inline table are
 * added under `path` (so `a = { b = 1 }` defines `a` and `a.b`).
 */
function skipValue(s: Scanner, path: string[], keys: TomlScan["keys"]): void {
  s.skipBlanks();
  const char = s.peek();
  if (char === '"' || char === "'") {
    readString(s);
    return;
  }
  if (char === "[") {
    s.pos++;
    for (;;) {
      s.skipBlankLines();
      if (s.peek() === "]") {
        s.pos++;
        return;
      }
      skipValue(s, [], []);
      s.skipBlankLines();
      if (s.peek() === ",") s.pos++;
      else if (s.peek() !== "]") s.fail("an array is not closed");
    }
  }
  if (char === "{") {
    s.pos++;
    for (;;) {
      s.skipBlankLines();
      if (s.peek() === "}") {
        s.pos++;
        return;
      }
      const line = s.line;
      const key = [...path, ...readKey(s)];
      if (s.peek() !== "=") s.fail('"=" is missing after a key in an inline table');
      s.pos++;
      if (path.length > 0) keys.push({ path: key, line });
      skipValue(s, key, path.length > 0 ? keys : []);
      s.skipBlankLines();
      if (s.peek() === ",") s.pos++;
      else if (s.peek() !== "}") s.fail("an inline table is not closed");
    }
  }
  const match = /^[A-Za-z0-9_+\-.:]+(?: [0-9][0-9:.+\-Zz]*)?/.exec(
    s.text.slice(s.pos, s.pos + 128),
  );
  if (!match) s.fail(char === "" || char === "\n" ? "a value is missing" : `unexpected "${char}"`);
  s.pos += match[0].length;
}

/**
 * The keys and table headers of a TOML text, in order.
 *
 * @throws TomlScanError for text the scanner cannot follow (with its line).
 *
 * @example
 * ```ts
 * scanToml('a = 1\n[t.u]\nb.c = "x"\n').keys.map((k) => k.path.join("."));
 * // ["a", "t.u.b.c"]
 * ```
 */
export function scanToml(text: string): TomlScan {
  const s = new Scanner(text.startsWith("\uFEFF") ? text.slice(1) : text);
  const scan: TomlScan = { keys: [], headers: [] };
  let table: string[] = [];
  for (;;) {
    s.skipBlankLines();
    if (s.done) return scan;
    const line = s.line;
    if (s.peek() === "[") {
      const array = s.startsWith("[[");
      s.pos += array ? 2 : 1;
      table = readKey(s);
      if (!s.startsWith(array ? "]]" : "]")) s.fail("a table header is not closed");
      s.pos += array ? 2 : 1;
      scan.headers.push({ path: table, array, line });
      s.endOfLine();
      continue;
    }
    const path = [...table, ...readKey(s)];
    if (s.peek() !== "=") s.fail('"=" is missing after a key');
    s.pos++;
    scan.keys.push({ path, line });
    skipValue(s, path, scan.keys);
    s.endOfLine();
  }
}

/** What the user's own text (outside the managed block) already sets. */
export interface UserSettings {
  /**
   * Top-level names the user defines: keys of the root table (`model`,
   * `default_permissions`, the first segment of a dotted key) and the first
   * segment of every table header.
   */
  rootKeys: ReadonlySet<string>;
  /** Names of MCP servers the user defines (`[mcp_servers.x]` or `mcp_servers.x.* = ...`). */
  mcpServers: ReadonlySet<string>;
  /**
   * True when the user's text defines `mcp_servers` itself as a table
   * (`[mcp_servers]` or `mcp_servers = {...}`): then no `mcp_servers.<name>`
   * line may be added before it.
   */
  mcpServersTable: boolean;
}

/**
 * What `text` (a whole config.toml, managed block included or not) sets
 * outside the managed block.
 *
 * @throws TomlScanError when the user's text cannot be read.
 */
export function userSettings(text: string | null): UserSettings {
  const scan = scanToml(outsideManagedBlock(text ?? ""));
  const rootKeys = new Set<string>();
  const mcpServers = new Set<string>();
  let mcpServersTable = false;
  for (const { path } of [...scan.keys, ...scan.headers]) rootKeys.add(path[0]);
  for (const { path } of scan.keys) {
    if (path[0] !== "mcp_servers") continue;
    if (path.length === 1) mcpServersTable = true;
    else mcpServers.add(path[1]);
  }
  for (const { path } of scan.headers) {
    if (path[0] !== "mcp_servers") continue;
    if (path.length === 1) mcpServersTable = true;
    else mcpServers.add(path[1]);
  }
  return { rootKeys, mcpServers, mcpServersTable };
}

/**
 * Whether `text` (a whole config.toml, managed block included) defines the
 * MCP server `name`; false when the text cannot be read as TOML.
 */
export function definesMcpServer(text: string, name: string): boolean {
  try {
    const scan = scanToml(text);
    return [...scan.keys, ...scan.headers].some(({ path }) =>
      path[0] === "mcp_servers" && path[1] === name
    );
  } catch (error) {
    if (error instanceof TomlScanError) return false;
    throw error;
  }
}

/**
 * The syntax tier of file-operation results: after a write, the file is
 * checked by a parser chosen from its extension. JSON and YAML are parsed
 * in-process, TypeScript/JavaScript with the TypeScript parser (loaded on
 * first use), Python with `python3 -m py_compile` when python3 exists.
 * Everything else is skipped with the reason.
 *
 * @module
 */

import { importLazily } from "../lazy.ts";
import { basename as pathBasename, extname } from "node:path";
import { parseAllDocuments } from "yaml";
import { lineShift } from "../../core/lsp/mod.ts";
import type { LintResult } from "../../core/tools/types.ts";
import { childEnvironment } from "../process/mod.ts";

/** At most this many problems are listed in one lint output. */
const MAX_PROBLEMS = 10;
/** How long `py_compile` may run before the check is given up as skipped. */
const PYTHON_TIMEOUT_MS = 15_000;

const TS_KINDS: Record<string, "TS" | "TSX" | "JS" | "JSX"> = {
  ".ts": "TS",
  ".mts": "TS",
  ".cts": "TS",
  ".tsx": "TSX",
  ".js": "JS",
  ".mjs": "JS",
  ".cjs": "JS",
  ".jsx": "JSX",
};

/**
 * Checks the syntax of a file. `content` is the text just written; when it is
 * left out the file is read from disk. Python is always checked on disk.
 * With `before` (the file's text before the write), only the errors the
 * write introduced are reported: an error already there is not, and when
 * none is new the status is `ok`.
 *
 * @example
 * ```ts
 * await lintFile("/tmp/a.json", '{"a": }');
 * // { status: "error", output: "1:7 Unexpected token '}'" }
 * await lintFile("/tmp/a.json", '{"a": }', '{"a": }'); // { status: "ok", output: "" }
 * ```
 */
export async function lintFile(
  path: string,
  content?: string,
  before?: string | null,
): Promise<LintResult> {
  const result = await lintCurrent(path, content);
  if (result.status !== "error" || typeof before !== "string") return result;
  const after = content ?? await Deno.readTextFile(path);
  const previous = await lintPrevious(path, before);
  return onlyIntroduced(result, previous, { before, after }, extname(path) === ".py");
}

/**
 * The problems of `after` (an error result) that `before` did not have.
 * Problems are compared by message without line and column; one at the
 * line its old twin moved to (text added above shifts lines) is matched
 * first. When none is left the result is `ok`: the write introduced no
 * syntax error. `whole` treats each output as one problem (Python's
 * traceback, whose last line is the message).
 */
export function onlyIntroduced(
  after: LintResult,
  before: LintResult,
  texts: { before: string; after: string },
  whole = false,
): LintResult {
  if (before.status !== "error") return after;
  const problems = (result: LintResult) =>
    (whole
      ? [result.output]
      : result.output.split("\n").filter((line) => line !== "" && !line.startsWith("... and ")))
      .map((text) => {
        const at = /^(\d+):\d+ /.exec(text);
        const key = whole ? text.trim().split("\n").at(-1) ?? "" : text.slice(at?.[0].length ?? 0);
        return { text, key, line: at ? Number(at[1]) - 1 : -1 };
      });
  const shift = lineShift(texts.before, texts.after);
  const unmatched = new Set(problems(before));
  const current = problems(after);
  const matched = new Set<(typeof current)[number]>();
  const take = (problem: (typeof current)[number], sameLine: boolean) => {
    for (const old of unmatched) {
      if (old.key !== problem.key) continue;
      if (sameLine && (old.line < 0 || shift[old.line] !== problem.line)) continue;
      unmatched.delete(old);
      matched.add(problem);
      return;
    }
  };
  for (const problem of current) take(problem, true);
  for (const problem of current) if (!matched.has(problem)) take(problem, false);
  const introduced = current.filter((problem) => !matched.has(problem));
  if (introduced.length === 0) return { status: "ok", output: "" };
  return { status: "error", output: introduced.map((problem) => problem.text).join("\n") };
}

/** The syntax check of the text a file had before a write (Python: from a scratch copy). */
async function lintPrevious(path: string, before: string): Promise<LintResult> {
  try {
    if (extname(path).toLowerCase() !== ".py") return await lintCurrent(path, before);
    const scratch = await Deno.makeTempDir({ prefix: "herald-lint-before-" });
    try {
      const copy = `${scratch}/${pathBasename(path)}`;
      await Deno.writeTextFile(copy, before);
      return await lintPython(copy);
    } finally {
      await Deno.remove(scratch, { recursive: true }).catch(() => {});
    }
  } catch {
    return { status: "skipped", output: "" };
  }
}

/** The syntax check of `content` (or the file on disk). */
async function lintCurrent(path: string, content?: string): Promise<LintResult> {
  const ext = extname(path).toLowerCase();
  const name = pathBasename(path).toLowerCase();
  if (ext === ".json") {
    if (/^(tsconfig|jsconfig)(\..*)?\.json$/.test(name) || /[\\/]\.vscode[\\/]/.test(path)) {
      return { status: "skipped", output: "JSON with comments (JSONC) is not checked" };
    }
    return lintJson(content ?? await Deno.readTextFile(path));
  }
  if (ext === ".yaml" || ext === ".yml") return lintYaml(content ?? await Deno.readTextFile(path));
  if (ext in TS_KINDS) {
    return await lintTypeScript(path, content ?? await Deno.readTextFile(path), TS_KINDS[ext]);
  }
  if (ext === ".py") return await lintPython(path);
  return {
    status: "skipped",
    output: ext === ""
      ? "no syntax checker for files without an extension"
      : `no syntax checker for ${ext} files`,
  };
}

// --- JSON --------------------------------------------------------------------

/** Parses JSON; on failure reports `line:col message` from the parser. */
export function lintJson(text: string): LintResult {
  const source = text.startsWith("\uFEFF") ? text.slice(1) : text;
  try {
    JSON.parse(source);
    return { status: "ok", output: "" };
  } catch (error) {
    const raw = error instanceof Error ? error.message : String(error);
    const reported = /\(line (\d+) column (\d+)\)/.exec(raw);
    const message = raw
      .replace(/, (?:\.\.\.)?".*" is not valid JSON$/s, "")
      .replace(/ in JSON at position \d+.*$/s, "")
      .trim();
    if (reported) return { status: "error", output: `${reported[1]}:${reported[2]} ${message}` };
    const found = findJsonError(source);
    if (!found) return { status: "error", output: message };
    const { line, column } = lineColumn(source, found.offset);
    return { status: "error", output: `${line}:${column} ${message || found.message}` };
  }
}

/** 1-based line and column of a string offset. */
function lineColumn(text: string, offset: number): { line: number; column: number } {
  let line = 1;
  let start = 0;
  for (let i = 0; i < offset && i < text.length; i++) {
    if (text[i] === "\n") {
      line++;
      start = i + 1;
    }
  }
  return { line, column: offset - start + 1 };
}

class JsonSyntax {
  constructor(readonly offset: number, readonly message: string) {}
}

/** Locates the first syntax error of invalid JSON (JSON.parse does not always say where). */
function findJsonError(text: string): JsonSyntax | undefined {
  let i = 0;
  const fail = (message: string): never => {
    throw new JsonSyntax(i, message);
  };
  const ws = () => {
    while (i < text.length && " \t\n\r".includes(text[i])) i++;
  };
  const expect = (c: string) => {
    if (text[i] !== c) fail(i >= text.length ? "Unexpected end of input" : `Expected '${c}'`);
    i++;
  };
  const string = () => {
    expect('"');
    while (i < text.length && text[i] !== '"') {
      if (text.charCodeAt(i) < 0x20) fail("Bad control character in string");
      if (text[i] === "\\") {
        i++;
        if (text[i] === "u") {
          if (!/^[0-9a-fA-F]{4}$/.test(text.slice(i + 1, i + 5))) fail("Bad Unicode escape");
          i += 5;
          continue;
        }
        if (!'"\\/bfnrt'.includes(text[i] ?? "x")) fail("Bad escaped character");
      }
      i++;
    }
    expect('"');
  };
  const number = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/y;
  const value = (): void => {
    ws();
    const c = text[i];
    if (c === "{") {
      i++;
      ws();
      if (text[i] === "}") return void i++;
      for (;;) {
        ws();
        if (text[i] !== '"') fail("Expected a double-quoted property name");
        string();
        ws();
        expect(":");
        value();
        ws();
        if (text[i] === ",") i++;
        else return expect("}");
      }
    }
    if (c === "[") {
      i++;
      ws();
      if (text[i] === "]") return void i++;
      for (;;) {
        value();
        ws();
        if (text[i] === ",") i++;
        else return expect("]");
      }
    }
    if (c === '"') return string();
    for (const literal of ["true", "false", "null"]) {
      if (text.startsWith(literal, i)) return void (i += literal.length);
    }
    number.lastIndex = i;
    if (number.test(text)) return void (i = number.lastIndex);
    fail(i >= text.length ? "Unexpected end of input" : `Unexpected token '${c}'`);
  };
  try {
    value();
    ws();
    if (i < text.length) fail("Unexpected non-whitespace character after JSON");
    return undefined;
  } catch (error) {
    if (error instanceof JsonSyntax) return error;
    return undefined; // nesting too deep to walk; the parser's message stands alone
  }
}

// --- YAML --------------------------------------------------------------------

/** Parses every YAML document of the text; reports each error as `line:col message`. */
export function lintYaml(text: string): LintResult {
  const problems: string[] = [];
  for (const document of parseAllDocuments(text)) {
    for (const error of document.errors) {
      const position = error.linePos?.[0];
      const message = error.message.split("\n")[0].replace(/ at line \d+, column \d+:?$/, "");
      problems.push(position ? `${position.line}:${position.col} ${message}` : message);
    }
  }
  return problems.length === 0
    ? { status: "ok", output: "" }
    : { status: "error", output: problems.slice(0, MAX_PROBLEMS).join("\n") };
}

// --- TypeScript / JavaScript ---------------------------------------------------

type TypeScript = typeof import("typescript");
type Diagnostic = import("typescript").Diagnostic;
let typescript: Promise<TypeScript> | undefined;

/** Loads the TypeScript compiler once, on first use (it takes about 100 ms). */
function loadTypeScript(): Promise<TypeScript> {
  if (!typescript) {
    typescript = importLazily<{ default: TypeScript }>("typescript").then((module) =>
      module.default
    );
    typescript.catch(() => {
      typescript = undefined;
    });
  }
  return typescript;
}

/** Parses TypeScript or JavaScript source with the TypeScript parser (syntax only, no type check). */
export async function lintTypeScript(
  path: string,
  text: string,
  kind: "TS" | "TSX" | "JS" | "JSX" = TS_KINDS[extname(path).toLowerCase()] ?? "TS",
): Promise<LintResult> {
  let ts: TypeScript;
  try {
    ts = await loadTypeScript();
  } catch (error) {
    return {
      status: "skipped",
      output: `the TypeScript parser could not be loaded: ${
        error instanceof Error ? error.message : error
      }`,
    };
  }
  const source = ts.createSourceFile(
    path,
    text,
    ts.ScriptTarget.Latest,
    false,
    ts.ScriptKind[kind],
  );
  // parseDiagnostics is internal to the compiler API but stable across releases.
  const diagnostics = (source as unknown as { parseDiagnostics?: Diagnostic[] })
    .parseDiagnostics ?? [];
  if (diagnostics.length === 0) return { status: "ok", output: "" };
  const lines = diagnostics.slice(0, MAX_PROBLEMS).map((diagnostic) => {
    const message = ts.flattenDiagnosticMessageText(diagnostic.messageText, "\n");
    if (diagnostic.start === undefined) return message;
    const { line, character } = source.getLineAndCharacterOfPosition(diagnostic.start);
    return `${line + 1}:${character + 1} ${message}`;
  });
  if (diagnostics.length > MAX_PROBLEMS) {
    lines.push(`... and ${diagnostics.length - MAX_PROBLEMS} more`);
  }
  return { status: "error", output: lines.join("\n") };
}

// --- Python --------------------------------------------------------------------

/**
 * Compiles a Python file with `python3 -m py_compile`, writing bytecode to a
 * temporary cache folder so no `__pycache__` appears beside the file.
 */
export async function lintPython(path: string): Promise<LintResult> {
  const cache = await Deno.makeTempDir({ prefix: "herald-pycache-" });
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), PYTHON_TIMEOUT_MS);
  try {
    // Isolated (-I): no module from the working directory shadows py_compile, no PYTHON*
    // variable applies; the environment is the child allowlist, never Herald's credentials.
    const output = await new Deno.Command("python3", {
      args: ["-I", "-X", `pycache_prefix=${cache}`, "-m", "py_compile", path],
      env: childEnvironment(Deno.env.toObject()),
      clearEnv: true,
      stdin: "null",
      stdout: "piped",
      stderr: "piped",
      signal: controller.signal,
    }).output();
    if (controller.signal.aborted) {
      return {
        status: "skipped",
        output: `python3 did not finish within ${PYTHON_TIMEOUT_MS / 1000}s`,
      };
    }
    if (output.success) return { status: "ok", output: "" };
    const decoder = new TextDecoder();
    const text = (decoder.decode(output.stderr) || decoder.decode(output.stdout)).trim();
    return { status: "error", output: text || `python3 exited with code ${output.code}` };
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) {
      return { status: "skipped", output: "python3 is not installed" };
    }
    throw error;
  } finally {
    clearTimeout(timer);
    await Deno.remove(cache, { recursive: true }).catch(() => {});
  }
}

/**
 * The repository's import graph, read with the TypeScript parser (not a
 * regular expression), so multi-line imports, `import type`, `export ... from`,
 * `typeof import("...")` and dynamic `import(...)` are all seen, and comments
 * and strings are not mistaken for imports. Relative specifiers are resolved
 * to repository paths; bare and `node:`/`npm:` specifiers are kept as written.
 *
 * @module
 */

import ts from "typescript";
import { dirname, join, relative, resolve } from "node:path";

/** How a module names another. */
export type ImportKind = "static" | "type" | "dynamic" | "type-query";

/** One edge of the graph: `from` names `specifier` on `line`. */
export interface ImportEdge {
  /** Repository-relative path of the importing file (always `/`-separated). */
  readonly from: string;
  /** The specifier as written. */
  readonly specifier: string;
  /** Repository-relative target for a relative specifier, else undefined. */
  readonly target?: string;
  readonly kind: ImportKind;
  /** 1-based line of the import. */
  readonly line: number;
}

/** A dynamic `import(...)` whose argument is not a string literal. */
export interface VariableImport {
  readonly from: string;
  readonly line: number;
  /** The argument's source text. */
  readonly argument: string;
}

/** The parsed graph of one tree. */
export interface ImportGraph {
  /** Every source file, repository-relative, with its line count. */
  readonly files: Map<string, number>;
  readonly edges: ImportEdge[];
  readonly variableImports: VariableImport[];
}

const SKIPPED_DIRS = new Set(["node_modules", "dist", "cov", ".bench", ".git"]);

async function* sourceFiles(dir: string): AsyncGenerator<string> {
  for await (const entry of Deno.readDir(dir)) {
    if (entry.isDirectory && (SKIPPED_DIRS.has(entry.name) || entry.name.startsWith("."))) continue;
    const path = join(dir, entry.name);
    if (entry.isDirectory) yield* sourceFiles(path);
    else if (/\.(ts|tsx|mts)$/.test(entry.name) && !entry.name.endsWith(".d.ts")) yield path;
  }
}

function toPosix(path: string): string {
  return path.split(/[\\/]/).join("/");
}

/** Parses one file's text into its edges and variable-specifier imports. */
export function parseImports(
  root: string,
  file: string,
  text: string,
): { edges: ImportEdge[]; variableImports: VariableImport[] } {
  const from = toPosix(relative(root, file));
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const edges: ImportEdge[] = [];
  const variableImports: VariableImport[] = [];
  const lineOf = (node: ts.Node) =>
    source.getLineAndCharacterOfPosition(node.getStart(source)).line + 1;
  const add = (specifier: string, kind: ImportKind, node: ts.Node) => {
    const target = specifier.startsWith(".")
      ? toPosix(relative(root, resolve(dirname(file), specifier)))
      : undefined;
    edges.push({ from, specifier, target, kind, line: lineOf(node) });
  };
  const visit = (node: ts.Node): void => {
    if (ts.isImportDeclaration(node) && ts.isStringLiteral(node.moduleSpecifier)) {
      add(node.moduleSpecifier.text, node.importClause?.isTypeOnly ? "type" : "static", node);
    } else if (
      ts.isExportDeclaration(node) && node.moduleSpecifier &&
      ts.isStringLiteral(node.moduleSpecifier)
    ) {
      add(node.moduleSpecifier.text, node.isTypeOnly ? "type" : "static", node);
    } else if (
      ts.isImportEqualsDeclaration(node) && ts.isExternalModuleReference(node.moduleReference) &&
      ts.isStringLiteral(node.moduleReference.expression)
    ) {
      add(node.moduleReference.expression.text, "static", node);
    } else if (ts.isImportTypeNode(node)) {
      const argument = node.argument;
      if (ts.isLiteralTypeNode(argument) && ts.isStringLiteral(argument.literal)) {
        add(argument.literal.text, "type-query", node);
      }
    } else if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword) {
      const [argument] = node.arguments;
      if (argument && ts.isStringLiteralLike(argument)) add(argument.text, "dynamic", node);
      else {
        variableImports.push({
          from,
          line: lineOf(node),
          argument: argument?.getText(source) ?? "",
        });
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return { edges, variableImports };
}

/** Reads every .ts file under `root` (skipping node_modules and build output). */
export async function readImportGraph(root: string): Promise<ImportGraph> {
  const files = new Map<string, number>();
  const edges: ImportEdge[] = [];
  const variableImports: VariableImport[] = [];
  for await (const file of sourceFiles(root)) {
    const text = await Deno.readTextFile(file);
    files.set(
      toPosix(relative(root, file)),
      text.split("\n").length - (text.endsWith("\n") ? 1 : 0),
    );
    const parsed = parseImports(root, file, text);
    edges.push(...parsed.edges);
    variableImports.push(...parsed.variableImports);
  }
  return { files, edges, variableImports };
}

/**
 * The import cycles among `nodes`, one per strongly connected component of
 * more than one module (or a module importing itself), each listed as the
 * shortest loop through its alphabetically first member.
 */
export function importCycles(nodes: Iterable<string>, edges: Iterable<ImportEdge>): string[][] {
  const members = new Set(nodes);
  const next = new Map<string, Set<string>>();
  for (const node of members) next.set(node, new Set());
  for (const edge of edges) {
    if (edge.target && members.has(edge.from) && members.has(edge.target)) {
      next.get(edge.from)!.add(edge.target);
    }
  }
  // Tarjan's strongly connected components.
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const components: string[][] = [];
  let counter = 0;
  const connect = (node: string): void => {
    index.set(node, counter);
    low.set(node, counter++);
    stack.push(node);
    onStack.add(node);
    for (const to of next.get(node)!) {
      if (!index.has(to)) {
        connect(to);
        low.set(node, Math.min(low.get(node)!, low.get(to)!));
      } else if (onStack.has(to)) low.set(node, Math.min(low.get(node)!, index.get(to)!));
    }
    if (low.get(node) === index.get(node)) {
      const component: string[] = [];
      let member: string;
      do {
        member = stack.pop()!;
        onStack.delete(member);
        component.push(member);
      } while (member !== node);
      if (component.length > 1 || next.get(node)!.has(node)) components.push(component.sort());
    }
  };
  for (const node of [...members].sort()) if (!index.has(node)) connect(node);
  return components.map((component) => shortestLoop(component[0], new Set(component), next))
    .sort((a, b) => a[0].localeCompare(b[0]));
}

function shortestLoop(start: string, within: Set<string>, next: Map<string, Set<string>>) {
  const previous = new Map<string, string>();
  const queue = [start];
  while (queue.length > 0) {
    const node = queue.shift()!;
    for (const to of [...next.get(node)!].sort()) {
      if (!within.has(to)) continue;
      if (to === start) {
        const loop = [node];
        while (loop[0] !== start) loop.unshift(previous.get(loop[0])!);
        return [...loop, start];
      }
      if (!previous.has(to)) {
        previous.set(to, node);
        queue.push(to);
      }
    }
  }
  return [start, start];
}

/**
 * install.ps1 read with a real PowerShell grammar (tree-sitter-powershell,
 * run by web-tree-sitter), for machines where PowerShell itself cannot be
 * installed: syntax problems with their line and column, the script's
 * parameters, and the literal values of its assignments and hashtables.
 *
 * @module
 */

import { Language, type Node, Parser, type Tree } from "web-tree-sitter";

let parser: Parser | undefined;

/** Parses PowerShell `source` (the grammar is loaded once per process). */
export async function parsePowerShell(source: string): Promise<Tree> {
  if (!parser) {
    await Parser.init();
    const wasm = new URL(import.meta.resolve("tree-sitter-powershell/tree-sitter-powershell.wasm"));
    const language = await Language.load(await Deno.readFile(wasm));
    parser = new Parser();
    parser.setLanguage(language);
  }
  const tree = parser.parse(source);
  if (!tree) throw new Error("tree-sitter returned no tree for the PowerShell source");
  return tree;
}

/** A place the grammar could not read: an ERROR node, or a MISSING token it had to invent. */
export interface SyntaxProblem {
  kind: "ERROR" | "MISSING";
  /** 1-based. */
  line: number;
  /** 1-based. */
  column: number;
  /** The first 80 characters of the node's text (for MISSING: the token that is missing). */
  text: string;
}

/**
 * Every ERROR and MISSING node of `tree`, in source order.
 *
 * @example
 * ```ts
 * const tree = await parsePowerShell("function f { 'a'");
 * syntaxProblems(tree); // [{ kind: "MISSING", line: 1, column: 17, text: "}" }]
 * ```
 */
export function syntaxProblems(tree: Tree): SyntaxProblem[] {
  const problems: SyntaxProblem[] = [];
  const visit = (node: Node) => {
    if (node.isError || node.isMissing) {
      problems.push({
        kind: node.isError ? "ERROR" : "MISSING",
        line: node.startPosition.row + 1,
        column: node.startPosition.column + 1,
        text: node.isMissing ? node.type : node.text.slice(0, 80),
      });
    }
    if (!node.hasError && !node.isMissing) return;
    for (const child of node.children) if (child) visit(child);
  };
  visit(tree.rootNode);
  return problems;
}

/** One parameter of the script's `param(...)` block. */
export interface ScriptParameter {
  /** Without the `$`. */
  name: string;
  /** The type in its attribute, lowercase (`switch`, `string`), or "" when untyped. */
  type: string;
}

/** The parameters of the script's top-level `param(...)` block. */
export function scriptParameters(tree: Tree): ScriptParameter[] {
  const block = tree.rootNode.namedChildren.find((node) => node?.type === "param_block");
  if (!block) throw new Error("the script has no top-level param(...) block");
  return block.descendantsOfType("script_parameter").flatMap((parameter) => {
    if (!parameter) return [];
    const variable = parameter.namedChildren.find((node) => node?.type === "variable");
    if (!variable) return [];
    const type = parameter.descendantsOfType("type_name")[0]?.text.toLowerCase() ?? "";
    return [{ name: variable.text.replace(/^\$/, ""), type }];
  });
}

/** The `function <name> { ... }` statement of the script (anywhere in it). */
export function findFunction(tree: Tree, name: string): Node {
  const found = tree.rootNode.descendantsOfType("function_statement").find((node) =>
    node?.namedChildren.find((child) => child?.type === "function_name")?.text === name
  );
  if (!found) throw new Error(`install.ps1 has no function ${name}`);
  return found;
}

/**
 * The right-hand side of the script-level assignment `$<variable> = ...`
 * (not one inside a function).
 */
export function scriptAssignment(tree: Tree, variable: string): Node {
  for (const node of tree.rootNode.descendantsOfType("assignment_expression")) {
    if (!node || insideFunction(node)) continue;
    const left = node.namedChildren.find((child) => child?.type === "left_assignment_expression");
    if (left?.text !== `$${variable}`) continue;
    const right = node.namedChildren.find((child) => child?.type === "pipeline");
    if (right) return right;
  }
  throw new Error(`install.ps1 assigns no script-level $${variable}`);
}

function insideFunction(node: Node): boolean {
  return enclosingFunction(node) !== undefined;
}

/** The name of the `function <name> { ... }` statement `node` lies in, or undefined at script level. */
export function enclosingFunction(node: Node): string | undefined {
  for (let up = node.parent; up; up = up.parent) {
    if (up.type === "function_statement") {
      return up.namedChildren.find((child) => child?.type === "function_name")?.text;
    }
  }
  return undefined;
}

/** One command in a pipeline (`git status`, `& $Program @Arguments`, `Copy-Item ...`). */
export interface CommandUse {
  /** The command's name as written: `git`, `Copy-Item`, `$Program`. */
  name: string;
  /** The invocation operator before it (`&` or `.`), or "" when there is none. */
  operator: string;
  node: Node;
}

/**
 * Every command within `node`, in source order.
 *
 * @example
 * ```ts
 * const tree = await parsePowerShell("& $p -x; git status");
 * commandUses(tree.rootNode).map((c) => [c.operator, c.name]); // [["&", "$p"], ["", "git"]]
 * ```
 */
export function commandUses(node: Node): CommandUse[] {
  return node.descendantsOfType("command").flatMap((command) => {
    if (!command) return [];
    const name = command.childForFieldName("command_name")?.text ?? "";
    const operator = command.children.find((child) => child?.type === "command_invokation_operator")
      ?.text ?? "";
    return [{ name, operator, node: command }];
  });
}

/** A value the helpers can read from the source without running it. */
export type PsValue =
  | string
  | number
  | boolean
  | PsValue[]
  | { variable: string }
  | { member: string; of: string };

/** The node an expression reduces to once the grammar's single-child wrappers are peeled off. */
function core(node: Node): Node {
  let current = node;
  while (
    current.namedChildCount === 1 &&
    !["string_literal", "variable", "member_access", "array_expression", "hash_literal_expression"]
      .includes(current.type)
  ) {
    current = current.namedChildren[0]!;
  }
  return current;
}

/**
 * The literal value of an expression: a quoted string without variables,
 * an integer, `$true`/`$false`, `@(...)` of such values, another variable
 * (`{variable}`) or a member access such as `$entry.name` (`{member, of}`).
 *
 * @throws Error naming the text for anything else.
 */
export function psValue(node: Node): PsValue {
  const value = core(node);
  if (value.type === "string_literal") {
    const text = value.text;
    const here = text.match(/^@'\r?\n([\s\S]*?)\r?\n'@$/);
    if (here) return here[1];
    if (text.startsWith("'") && text.endsWith("'")) return text.slice(1, -1).replaceAll("''", "'");
    if (text.startsWith('"') && text.endsWith('"') && !/[$`]/.test(text)) return text.slice(1, -1);
  }
  if (value.type === "variable") {
    const name = value.text.replace(/^\$/, "");
    if (/^true$/i.test(name)) return true;
    if (/^false$/i.test(name)) return false;
    return { variable: name };
  }
  if (value.type === "member_access") {
    const of = value.namedChildren.find((child) => child?.type === "variable")?.text ?? "";
    const member = value.namedChildren.find((child) => child?.type === "member_name")?.text ?? "";
    return { member, of: of.replace(/^\$/, "") };
  }
  if (value.type === "array_expression") {
    const list = value.namedChildren.find((child) => child?.type === "statement_list");
    if (!list) return [];
    return list.namedChildren.flatMap((statement) => statement ? arrayItems(statement) : []);
  }
  if (/^\d+$/.test(value.text)) return Number(value.text);
  throw new Error(`not a literal value: ${value.text.slice(0, 80)} (${value.type})`);
}

/** The items of one statement inside `@(...)`: a comma list, or newline-separated elements. */
function arrayItems(statement: Node): PsValue[] {
  const value = core(statement);
  if (value.type === "array_literal_expression") {
    return value.namedChildren.flatMap((item) => item ? [psValue(item)] : []);
  }
  return [psValue(statement)];
}

/**
 * The entries of a hashtable literal `@{ key = value; ... }` (or `[ordered]@{...}`), in source
 * order, as [key, value node] pairs.
 */
export function hashEntries(node: Node): [string, Node][] {
  const hash = node.type === "hash_literal_expression"
    ? node
    : node.descendantsOfType("hash_literal_expression")[0];
  if (!hash) throw new Error(`not a hashtable: ${node.text.slice(0, 80)}`);
  const body = hash.namedChildren.find((child) => child?.type === "hash_literal_body");
  if (!body) return [];
  return body.namedChildren.flatMap((entry) => {
    if (entry?.type !== "hash_entry") return [];
    const key = entry.namedChildren.find((child) => child?.type === "key_expression");
    const value = entry.namedChildren.find((child) => child?.type === "pipeline");
    return key && value ? [[key.text, value] as [string, Node]] : [];
  });
}

/** The hashtable literals that are direct items of an `@( ... )` array expression, in order. */
export function arrayHashtables(node: Node): Node[] {
  const array = core(node);
  if (array.type !== "array_expression") throw new Error(`not @(...): ${node.text.slice(0, 80)}`);
  return array.descendantsOfType("hash_literal_expression").flatMap((hash) =>
    hash && enclosing(hash)?.id === array.id ? [hash] : []
  );
}

/** The nearest array or hashtable literal around `node`. */
function enclosing(node: Node): Node | undefined {
  for (let up = node.parent; up; up = up.parent) {
    if (up.type === "array_expression" || up.type === "hash_literal_expression") return up;
  }
  return undefined;
}

/**
 * Turning what a person (or a model) types into a valid FTS5 query. Every
 * term is quoted, so punctuation, hyphens and FTS5 keywords inside words
 * never become syntax; `AND`, `OR` and `NOT` between terms stay operators;
 * a trailing `*` stays a prefix search; unbalanced quotes and dangling
 * operators are dropped.
 *
 * @module
 */

const OPERATORS = new Set(["AND", "OR", "NOT"]);

type Token = { kind: "term"; text: string; prefix: boolean } | { kind: "op"; op: string };

function quote(text: string): string {
  return `"${text.replaceAll('"', '""')}"`;
}

function tokenize(input: string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  while (i < input.length) {
    const char = input[i];
    if (/\s/.test(char)) {
      i++;
      continue;
    }
    if (char === '"') {
      const end = input.indexOf('"', i + 1);
      if (end !== -1) {
        const phrase = input.slice(i + 1, end).trim();
        if (phrase) tokens.push({ kind: "term", text: phrase, prefix: false });
        i = end + 1;
        continue;
      }
      i++; // An unbalanced quote: ignore it and read the rest as words.
      continue;
    }
    let end = i;
    while (end < input.length && !/[\s"]/.test(input[end])) end++;
    const word = input.slice(i, end);
    i = end;
    if (OPERATORS.has(word)) {
      tokens.push({ kind: "op", op: word });
      continue;
    }
    const prefix = /\w\*+$/u.test(word);
    const core = word.replace(/^[^\p{L}\p{N}]+|[^\p{L}\p{N}]+$/gu, "");
    if (/[\p{L}\p{N}]/u.test(core)) tokens.push({ kind: "term", text: core, prefix });
  }
  return tokens;
}

/**
 * A valid FTS5 query for `input`, or "" when nothing searchable is left.
 *
 * @example
 * ```ts
 * toFtsQuery('chat-send "unbalanced AND')  // '"chat-send" "unbalanced"'
 * toFtsQuery("deploy* OR release")         // '"deploy"* OR "release"'
 * ```
 */
export function toFtsQuery(input: string): string {
  const parts: string[] = [];
  let pendingOp: string | undefined;
  for (const token of tokenize(input)) {
    if (token.kind === "op") {
      // An operator needs a term on its left; NOT also works after another operator's term.
      if (parts.length > 0) pendingOp = token.op;
      continue;
    }
    if (pendingOp && pendingOp !== "AND") parts.push(pendingOp);
    pendingOp = undefined;
    parts.push(quote(token.text) + (token.prefix ? "*" : ""));
  }
  return parts.join(" ");
}

/**
 * A small shell lexer: splits a command line into pipelines of simple
 * commands (across `;`, `&&`, `||`, `|`, `&`, newlines, subshells and
 * command substitutions) and collects the bodies of command substitutions
 * (`$(...)`, backticks, `<(...)`), even inside double quotes, so a caller can
 * inspect them as code of their own.
 *
 * Quoting is honoured: quotes are removed from words and the text inside them
 * is data. Comments and here-document bodies are skipped.
 *
 * @module
 */

/** A shell word after quote removal, with the bodies of substitutions found in it. */
export interface Word {
  text: string;
  subs: string[];
}

/** One command of a pipeline: its words and its redirections (`>`, `2>>`, `&>` ...). */
export interface SimpleCommand {
  words: Word[];
  redirects: { op: string; target: string }[];
}

/** A lexed command line: its pipelines and every substitution body found in it. */
export interface ParsedShell {
  pipelines: SimpleCommand[][];
  subs: string[];
}

type Token =
  | { kind: "word"; word: Word }
  | { kind: "op"; op: string }
  | { kind: "redirect"; op: string };

/**
 * Splits a command line into pipelines of simple commands and collects substitution bodies.
 *
 * @example
 * ```ts
 * const { pipelines, subs } = parseShell('cd "my dir" && echo $(date) | tee out');
 * pipelines.map((p) => p.map((c) => c.words.map((w) => w.text)));
 * // [[["cd", "my dir"]], [["echo", "$(date)"], ["tee", "out"]]]
 * subs; // ["date"]
 * ```
 */
export function parseShell(input: string): ParsedShell {
  const { tokens, subs } = lex(input);
  return { pipelines: splitPipelines(tokens), subs };
}

const SPACE = new Set([" ", "\t"]);

/** Splits a command line into words, operators and redirections; collects substitution bodies. */
function lex(input: string): { tokens: Token[]; subs: string[] } {
  const tokens: Token[] = [];
  const subs: string[] = [];
  let text = "";
  let wordSubs: string[] = [];
  let inWord = false;
  let heredocs: string[] = [];
  let i = 0;

  const endWord = () => {
    if (inWord) tokens.push({ kind: "word", word: { text, subs: wordSubs } });
    text = "";
    wordSubs = [];
    inWord = false;
  };
  const addSub = (body: string) => {
    subs.push(body);
    wordSubs.push(body);
  };

  while (i < input.length) {
    const c = input[i];
    if (SPACE.has(c)) {
      endWord();
      i++;
    } else if (c === "\n") {
      endWord();
      tokens.push({ kind: "op", op: ";" });
      i++;
      if (heredocs.length > 0) {
        i = skipHeredocs(input, i, heredocs);
        heredocs = [];
      }
    } else if (c === "#" && !inWord) {
      while (i < input.length && input[i] !== "\n") i++;
    } else if (c === "\\") {
      if (input[i + 1] === "\n") {
        i += 2;
      } else {
        text += input[i + 1] ?? "";
        inWord = true;
        i += 2;
      }
    } else if (c === "'") {
      const end = input.indexOf("'", i + 1);
      const stop = end < 0 ? input.length : end;
      text += input.slice(i + 1, stop);
      inWord = true;
      i = stop + 1;
    } else if (c === '"') {
      i = lexDoubleQuoted(input, i + 1, (s) => (text += s), addSub);
      inWord = true;
    } else if (c === "`") {
      const end = findBacktickEnd(input, i + 1);
      addSub(input.slice(i + 1, end));
      text += input.slice(i, end + 1);
      inWord = true;
      i = end + 1;
    } else if (c === "$" && input[i + 1] === "(") {
      const end = findParenEnd(input, i + 2);
      addSub(input.slice(i + 2, end));
      text += input.slice(i, end + 1);
      inWord = true;
      i = end + 1;
    } else if ((c === "<" || c === ">") && input[i + 1] === "(") {
      const end = findParenEnd(input, i + 2);
      addSub(input.slice(i + 2, end));
      text += input.slice(i, end + 1);
      inWord = true;
      i = end + 1;
    } else if (c === ">" || c === "<") {
      if (inWord && /^\d+$/.test(text)) {
        text = "";
        wordSubs = [];
        inWord = false;
      }
      endWord();
      let op = c;
      i++;
      while (i < input.length && /[<>&|-]/.test(input[i]) && op.length < 3) op += input[i++];
      tokens.push({ kind: "redirect", op });
      if (op.startsWith("<<") && op !== "<<<") {
        while (SPACE.has(input[i])) i++;
        const start = i;
        while (i < input.length && !SPACE.has(input[i]) && !/[;&|\n<>]/.test(input[i])) i++;
        heredocs.push(input.slice(start, i).replace(/["']/g, ""));
        tokens.pop();
      }
    } else if (c === "&" || c === "|" || c === ";") {
      endWord();
      const two = input.slice(i, i + 2);
      if (c === "&" && input[i + 1] === ">") {
        const op = input[i + 2] === ">" ? "&>>" : "&>";
        tokens.push({ kind: "redirect", op });
        i += op.length;
      } else if (two === "&&" || two === "||" || two === ";;") {
        tokens.push({ kind: "op", op: two });
        i += 2;
      } else if (two === "|&") {
        tokens.push({ kind: "op", op: "|" });
        i += 2;
      } else {
        tokens.push({ kind: "op", op: c });
        i++;
      }
    } else if (c === "(" || c === ")") {
      // Unquoted parentheses always end a word in a shell.
      endWord();
      tokens.push({ kind: "op", op: c });
      i++;
    } else {
      text += c;
      inWord = true;
      i++;
    }
  }
  endWord();
  return { tokens, subs };
}

/** Reads a double-quoted string starting after the opening quote; returns the index after the closing quote. */
function lexDoubleQuoted(
  input: string,
  start: number,
  emit: (s: string) => void,
  addSub: (body: string) => void,
): number {
  let i = start;
  while (i < input.length && input[i] !== '"') {
    const c = input[i];
    if (c === "\\" && i + 1 < input.length) {
      const next = input[i + 1];
      emit('"\\$`'.includes(next) ? next : next === "\n" ? "" : c + next);
      i += 2;
    } else if (c === "$" && input[i + 1] === "(") {
      const end = findParenEnd(input, i + 2);
      addSub(input.slice(i + 2, end));
      emit(input.slice(i, end + 1));
      i = end + 1;
    } else if (c === "`") {
      const end = findBacktickEnd(input, i + 1);
      addSub(input.slice(i + 1, end));
      emit(input.slice(i, end + 1));
      i = end + 1;
    } else {
      emit(c);
      i++;
    }
  }
  return i + 1;
}

/** Index of the `)` closing a `$(` or `(` whose body starts at `start` (or the input length). */
function findParenEnd(input: string, start: number): number {
  let depth = 1;
  let i = start;
  while (i < input.length) {
    const c = input[i];
    if (c === "\\") {
      i += 2;
      continue;
    }
    if (c === "'") {
      const end = input.indexOf("'", i + 1);
      i = end < 0 ? input.length : end + 1;
      continue;
    }
    if (c === '"') {
      i = lexDoubleQuoted(input, i + 1, () => {}, () => {});
      continue;
    }
    if (c === "(") depth++;
    if (c === ")" && --depth === 0) return i;
    i++;
  }
  return input.length;
}

function findBacktickEnd(input: string, start: number): number {
  let i = start;
  while (i < input.length && input[i] !== "`") i += input[i] === "\\" ? 2 : 1;
  return Math.min(i, input.length);
}

/** Skips here-document bodies that start at `start`; returns the index after the last terminator line. */
function skipHeredocs(input: string, start: number, delimiters: string[]): number {
  let i = start;
  for (const delimiter of delimiters) {
    while (i < input.length) {
      const end = input.indexOf("\n", i);
      const line = input.slice(i, end < 0 ? input.length : end);
      i = end < 0 ? input.length : end + 1;
      if (line.replace(/^\t+/, "") === delimiter) break;
    }
  }
  return i;
}

/** Groups tokens into pipelines (split by `;`, `&&`, `||`, `&`, parentheses) of simple commands. */
function splitPipelines(tokens: Token[]): SimpleCommand[][] {
  const pipelines: SimpleCommand[][] = [];
  let pipeline: SimpleCommand[] = [];
  let current: SimpleCommand = { words: [], redirects: [] };
  const endCommand = () => {
    if (current.words.length > 0 || current.redirects.length > 0) pipeline.push(current);
    current = { words: [], redirects: [] };
  };
  for (let i = 0; i < tokens.length; i++) {
    const token = tokens[i];
    if (token.kind === "word") {
      current.words.push(token.word);
    } else if (token.kind === "redirect") {
      const next = tokens[i + 1];
      if (next?.kind === "word") {
        current.redirects.push({ op: token.op, target: next.word.text });
        i++;
      }
    } else if (token.op === "|") {
      endCommand();
    } else {
      endCommand();
      if (pipeline.length > 0) pipelines.push(pipeline);
      pipeline = [];
    }
  }
  endCommand();
  if (pipeline.length > 0) pipelines.push(pipeline);
  return pipelines;
}

/**
 * Code tokenizing for highlighting, shared by the terminal and the web app:
 * a small scanner with per-language keyword tables (keywords, strings,
 * numbers, comments), no parser and no package. A line becomes tokens whose
 * texts join to the line; each token has a {@link TokenKind} or none
 * (plain). State that spans lines (a block comment, a template literal, a
 * Python triple-quoted string) is carried from one line to the next, so a
 * streamed code block is tokenized line by line.
 *
 * @example
 * ```ts
 * tokenizeCode("const x = 1; // one", "ts")[0];
 * // [{ text: "const", kind: "keyword" }, { text: " x = " }, { text: "1", kind: "number" }, ...]
 * ```
 *
 * @module
 */

/** What a token is; the renderer picks its colour. */
export type TokenKind =
  | "keyword"
  | "string"
  | "number"
  | "literal"
  | "comment"
  | "type"
  | "function"
  | "key"
  | "variable"
  | "added"
  | "removed"
  | "hunk"
  | "meta";

/** A run of a line's text: plain when `kind` is absent. */
export interface Token {
  text: string;
  kind?: TokenKind;
}

interface Rules {
  keywords: ReadonlySet<string>;
  literals: ReadonlySet<string>;
  types: ReadonlySet<string>;
  lineComments: readonly string[];
  blockComment?: readonly [string, string];
  /** Quotes of strings that end on their line. */
  quotes: string;
  /** Delimiters of strings that may span lines. */
  multiline: readonly string[];
  /** `#` starts a comment only at the start of a word (shells). */
  wordComments?: boolean;
  /** `$NAME`, `${...}` are variables (shells). */
  variables?: boolean;
  /** A string followed by ":" is a key (JSON). */
  keyStrings?: boolean;
  /** `key:` at the start of a line is a key (YAML); `key =` (TOML). */
  lineKeys?: "colon" | "equals";
  /** Capitalised words are types. */
  capitalTypes?: boolean;
  /** `'` only quotes one character (Rust lifetimes). */
  charQuote?: boolean;
  caseInsensitive?: boolean;
  /** Whole-line colouring by first character (diffs). */
  diff?: boolean;
  /** No highlighting at all (text, output). */
  plain?: boolean;
}

const words = (text: string): ReadonlySet<string> => new Set(text.split(/\s+/).filter(Boolean));
const NONE = words("");

const JS: Rules = {
  keywords: words(
    "const let var function return if else for while do break continue switch case default new " +
      "delete typeof instanceof in of class extends super this import export from as async await " +
      "yield try catch finally throw interface type enum implements private public protected " +
      "readonly static declare namespace abstract keyof satisfies void get set using",
  ),
  literals: words("true false null undefined NaN Infinity"),
  types: words("string number boolean any unknown never object bigint symbol"),
  lineComments: ["//"],
  blockComment: ["/*", "*/"],
  quotes: `"'`,
  multiline: ["`"],
  capitalTypes: true,
};

const PYTHON: Rules = {
  keywords: words(
    "and as assert async await break class continue def del elif else except finally for from " +
      "global if import in is lambda nonlocal not or pass raise return try while with yield match case",
  ),
  literals: words("True False None"),
  types: words("self cls int str float bool list dict set tuple bytes object print len range"),
  lineComments: ["#"],
  quotes: `"'`,
  multiline: [`"""`, "'''"],
  capitalTypes: true,
};

const RUST: Rules = {
  keywords: words(
    "as break const continue crate else enum extern fn for if impl in let loop match mod move mut " +
      "pub ref return self Self static struct super trait type unsafe use where while async await dyn",
  ),
  literals: words("true false None Some Ok Err"),
  types: words(
    "i8 i16 i32 i64 i128 isize u8 u16 u32 u64 u128 usize f32 f64 bool char str String Vec Option Result Box",
  ),
  lineComments: ["//"],
  blockComment: ["/*", "*/"],
  quotes: `"'`,
  multiline: [],
  capitalTypes: true,
  charQuote: true,
};

const GO: Rules = {
  keywords: words(
    "break case chan const continue default defer else fallthrough for func go goto if " +
      "import interface map package range return select struct switch type var",
  ),
  literals: words("true false nil iota"),
  types: words(
    "int int8 int16 int32 int64 uint uint8 uint16 uint32 uint64 uintptr float32 float64 string bool " +
      "error byte rune any",
  ),
  lineComments: ["//"],
  blockComment: ["/*", "*/"],
  quotes: `"'`,
  multiline: ["`"],
  capitalTypes: false,
};

const SHELL: Rules = {
  keywords: words(
    "if then else elif fi for in do done while until case esac function return local " +
      "export declare readonly set unset shift exit source alias select time",
  ),
  literals: words("true false"),
  types: words("echo cd printf test read eval exec trap pwd sudo"),
  lineComments: ["#"],
  quotes: `"'`,
  multiline: [],
  wordComments: true,
  variables: true,
};

const JSON_RULES: Rules = {
  keywords: NONE,
  literals: words("true false null"),
  types: NONE,
  lineComments: ["//"],
  blockComment: ["/*", "*/"],
  quotes: `"`,
  multiline: [],
  keyStrings: true,
};

const YAML: Rules = {
  keywords: NONE,
  literals: words("true false null yes no on off True False Null ~"),
  types: NONE,
  lineComments: ["#"],
  quotes: `"'`,
  multiline: [],
  wordComments: true,
  lineKeys: "colon",
};

const TOML: Rules = { ...YAML, lineKeys: "equals", literals: words("true false") };

const CLIKE: Rules = {
  keywords: words(
    "auto break case char class const continue default do double else enum extern float for goto " +
      "if inline int long register return short signed sizeof static struct switch typedef union " +
      "unsigned void volatile while namespace template typename public private protected virtual " +
      "override new delete this try catch throw using import package extends implements interface " +
      "final abstract fun val var let func guard self super when object is in as bool boolean string " +
      "include define ifdef ifndef endif",
  ),
  literals: words("true false null nullptr NULL nil"),
  types: words("String Integer Object"),
  lineComments: ["//"],
  blockComment: ["/*", "*/"],
  quotes: `"'`,
  multiline: [],
  capitalTypes: true,
};

const SQL: Rules = {
  keywords: words(
    "select from where insert into values update set delete create table index view drop alter " +
      "add column primary key foreign references join left right inner outer full on group by order " +
      "having limit offset as and or not in is like between distinct union all case when then else " +
      "end begin commit rollback transaction with returning exists default unique check if replace",
  ),
  literals: words("null true false"),
  types: words(
    "integer int text varchar char boolean real blob date timestamp numeric serial bigint",
  ),
  lineComments: ["--"],
  blockComment: ["/*", "*/"],
  quotes: `'"`,
  multiline: [],
  caseInsensitive: true,
};

const RUBY: Rules = {
  keywords: words(
    "def end if elsif else unless while until do class module return yield begin rescue ensure " +
      "case when then require require_relative attr_accessor private public self super and or not in",
  ),
  literals: words("nil true false"),
  types: NONE,
  lineComments: ["#"],
  quotes: `"'`,
  multiline: [],
  capitalTypes: true,
};

const GENERIC: Rules = {
  keywords: NONE,
  literals: words("true false null"),
  types: NONE,
  lineComments: ["//", "#"],
  blockComment: ["/*", "*/"],
  quotes: `"'`,
  multiline: [],
  wordComments: true,
};

const DIFF: Rules = { ...GENERIC, diff: true };
const PLAIN: Rules = { ...GENERIC, plain: true };

const ALIASES: Record<string, Rules> = {};
const register = (rules: Rules, names: string) => {
  for (const name of names.split(" ")) ALIASES[name] = rules;
};
register(JS, "ts typescript tsx mts cts js javascript jsx mjs cjs node deno");
register(PYTHON, "py python python3 py3 pyi");
register(RUST, "rs rust");
register(GO, "go golang");
register(SHELL, "sh bash zsh shell fish ksh console shellsession terminal ps1 powershell");
register(JSON_RULES, "json jsonc json5 jsonl ndjson");
register(YAML, "yaml yml");
register(TOML, "toml ini cfg conf properties env dotenv");
register(
  CLIKE,
  "c h cpp c++ cc hpp cxx java cs csharp kotlin kt swift scala dart php objc objective-c",
);
register(SQL, "sql psql mysql sqlite postgres postgresql");
register(RUBY, "rb ruby");
register(DIFF, "diff patch");
register(PLAIN, "text txt plain plaintext output log none md markdown");

/** The rules of a fence's language ("ts title=x" → ts; unknown → generic). */
function rulesFor(language: string | undefined): Rules {
  const name = (language ?? "").trim().split(/\s+/)[0].replace(/^[{.]+|[}]+$/g, "").toLowerCase();
  return ALIASES[name] ?? GENERIC;
}

/** An open construct carried to the next line. */
interface Open {
  close: string;
  kind: "comment" | "string";
}

const IDENT = /[A-Za-z_$][\w$]*/y;
const NUMBER =
  /(?:0[xX][\da-fA-F_]+|0[bB][01_]+|0[oO][0-7_]+|\d[\d_]*(?:\.\d[\d_]*)?(?:[eE][+-]?\d+)?)[A-Za-z\d_]*/y;
const SHELL_VAR = /\$(?:\{[^}]*\}|[A-Za-z_]\w*|[\d#?$!@*-])/y;
const CHAR_LITERAL = /'(?:\\.[^']*|[^\\'])'/y;
const LINE_KEY_COLON = /^(\s*(?:-\s+)?)((?:"[^"]*"|'[^']*'|[^\s#'"{[\]][^#]*?))(\s*:)(?=\s|$)/;
const LINE_KEY_EQUALS = /^(\s*)([\w.\-"']+)(\s*=)/;

/**
 * The tokenizer of one code block: feed it the block's lines in order.
 *
 * @example
 * ```ts
 * const t = new CodeTokenizer("ts");
 * t.line("const s = `a"); // a template literal opens
 * t.line("b` + 1"); // [{ text: "b`", kind: "string" }, { text: " + " }, { text: "1", kind: "number" }]
 * ```
 */
export class CodeTokenizer {
  #rules: Rules;
  #open: Open | null = null;

  /** A tokenizer for code in `language` (generic rules when unknown or absent). */
  constructor(language?: string) {
    this.#rules = rulesFor(language);
  }

  /** True when the language is not highlighted at all (text, output): every line is one plain token. */
  get plain(): boolean {
    return this.#rules.plain === true;
  }

  /** Tokenizes the next line of the block and advances the state. */
  line(text: string): Token[] {
    if (this.#rules.plain) return [{ text }];
    if (this.#rules.diff) return [diffToken(text)];
    return this.#tokenize(text);
  }

  /** Tokenizes a line as if it came next, without advancing the state. */
  peek(text: string): Token[] {
    const open = this.#open;
    try {
      return this.line(text);
    } finally {
      this.#open = open;
    }
  }

  /** An independent copy (same language, same open construct). */
  clone(): CodeTokenizer {
    const copy = new CodeTokenizer();
    copy.#rules = this.#rules;
    copy.#open = this.#open;
    return copy;
  }

  #tokenize(text: string): Token[] {
    const r = this.#rules;
    const out: Token[] = [];
    let i = 0;
    let plainFrom = 0;
    const flush = (to: number) => {
      if (to > plainFrom) out.push({ text: text.slice(plainFrom, to) });
    };
    const emit = (to: number, kind: TokenKind) => {
      flush(i);
      out.push({ text: text.slice(i, to), kind });
      i = to;
      plainFrom = to;
    };
    if (this.#open) {
      const open = this.#open;
      const end = findClose(text, 0, open.close, open.kind === "string");
      if (end < 0) return [{ text, kind: open.kind }];
      this.#open = null;
      emit(end + open.close.length, open.kind);
    } else if (r.lineKeys) {
      const match = (r.lineKeys === "colon" ? LINE_KEY_COLON : LINE_KEY_EQUALS).exec(text);
      if (match) {
        i = match[1].length;
        plainFrom = 0;
        emit(i + match[2].length, "key");
      }
    }
    const n = text.length;
    while (i < n) {
      const c = text[i];
      const comment = r.lineComments.find((lc) =>
        text.startsWith(lc, i) &&
        (lc === "#" && r.wordComments
          ? i === 0 || /\s/.test(text[i - 1])
          : lc !== "//" || text[i - 1] !== ":") // not the "//" of a URL
      );
      if (comment !== undefined) {
        emit(n, "comment");
        break;
      }
      if (r.blockComment && text.startsWith(r.blockComment[0], i)) {
        const end = text.indexOf(r.blockComment[1], i + r.blockComment[0].length);
        if (end < 0) {
          this.#open = { close: r.blockComment[1], kind: "comment" };
          emit(n, "comment");
          break;
        }
        emit(end + r.blockComment[1].length, "comment");
        continue;
      }
      const long = r.multiline.find((q) => text.startsWith(q, i));
      if (long !== undefined) {
        const end = findClose(text, i + long.length, long, true);
        if (end < 0) {
          this.#open = { close: long, kind: "string" };
          emit(n, "string");
          break;
        }
        emit(end + long.length, "string");
        continue;
      }
      if (r.quotes.includes(c)) {
        if (c === "'" && r.charQuote) {
          CHAR_LITERAL.lastIndex = i;
          if (CHAR_LITERAL.test(text)) emit(CHAR_LITERAL.lastIndex, "string");
          else i++;
          continue;
        }
        const end = findClose(text, i + 1, c, true);
        if (end < 0) {
          i++;
          continue;
        }
        const isKey = r.keyStrings && /^\s*:/.test(text.slice(end + 1, end + 12));
        emit(end + 1, isKey ? "key" : "string");
        continue;
      }
      if (c >= "0" && c <= "9" && (i === 0 || !/[\w$.]/.test(text[i - 1]))) {
        NUMBER.lastIndex = i;
        if (NUMBER.test(text)) {
          emit(NUMBER.lastIndex, "number");
          continue;
        }
      }
      if (c === "$" && r.variables) {
        SHELL_VAR.lastIndex = i;
        if (SHELL_VAR.test(text)) {
          emit(SHELL_VAR.lastIndex, "variable");
          continue;
        }
      }
      IDENT.lastIndex = i;
      if (/[A-Za-z_$]/.test(c) && (i === 0 || !/[\w$]/.test(text[i - 1])) && IDENT.test(text)) {
        const end = IDENT.lastIndex;
        const word = text.slice(i, end);
        const key = r.caseInsensitive ? word.toLowerCase() : word;
        const kind: TokenKind | null = r.keywords.has(key)
          ? "keyword"
          : r.literals.has(key)
          ? "literal"
          : r.types.has(key) || (r.capitalTypes && /^[A-Z][a-z]/.test(word))
          ? "type"
          : /^\s*\(/.test(text.slice(end, end + 8)) && r !== GENERIC
          ? "function"
          : null;
        if (kind) emit(end, kind);
        else i = end;
        continue;
      }
      i++;
    }
    flush(n);
    return out;
  }
}

/** A diff line as one token: file headers, additions, removals, hunk headers, or plain context. */
function diffToken(text: string): Token {
  if (text.startsWith("+++") || text.startsWith("---")) return { text, kind: "meta" };
  if (text.startsWith("+")) return { text, kind: "added" };
  if (text.startsWith("-")) return { text, kind: "removed" };
  if (text.startsWith("@@")) return { text, kind: "hunk" };
  return { text };
}

/** Index of the unescaped `close` from `from` on, or -1. */
function findClose(text: string, from: number, close: string, escapes: boolean): number {
  for (let i = from; i <= text.length - close.length; i++) {
    if (escapes && text[i] === "\\") {
      i++;
      continue;
    }
    if (text.startsWith(close, i)) return i;
  }
  return -1;
}

/**
 * Tokenizes a whole code block: one token list per line (split at "\n").
 *
 * @example
 * ```ts
 * tokenizeCode('print("hi")  # greet', "python");
 * ```
 */
export function tokenizeCode(code: string, language?: string): Token[][] {
  const tokenizer = new CodeTokenizer(language);
  return code.split("\n").map((line) => tokenizer.line(line));
}

/**
 * Syntax highlighting for code blocks: a small tokenizer with per-language
 * keyword tables (keywords, strings, numbers, comments), no parser and no
 * package. State that spans lines (a block comment, a template literal, a
 * Python triple-quoted string) is carried from one line to the next, so a
 * streamed code block is highlighted line by line.
 *
 * @example
 * ```ts
 * highlightCode("const x = 1; // one", "ts", createStyle(true));
 * ```
 *
 * @module
 */

import type { Paint, Style } from "./style.ts";

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
    "break case chan const continue default defer else fallthrough for func go goto if import " +
      "interface map package range return select struct switch type var",
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
    "if then else elif fi for in do done while until case esac function return local export " +
      "declare readonly set unset shift exit source alias select time",
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

interface Palette {
  keyword: Paint;
  string: Paint;
  number: Paint;
  comment: Paint;
  type: Paint;
  fn: Paint;
  key: Paint;
}

function paletteOf(style: Style): Palette {
  return {
    keyword: style.magenta,
    string: style.green,
    number: style.yellow,
    comment: style.muted,
    type: style.cyan,
    fn: style.blue,
    key: style.cyan,
  };
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
 * A highlighter for one code block: feed it the block's lines in order.
 *
 * @example
 * ```ts
 * const h = new CodeHighlighter("ts", style);
 * h.line("const s = `a"); // a template literal opens
 * h.line("b` + 1"); // "b`" is still the string
 * ```
 */
export class CodeHighlighter {
  #rules: Rules;
  readonly #style: Style;
  readonly #palette: Palette;
  #open: Open | null = null;

  /** A highlighter for code in `language` (generic rules when unknown or absent). */
  constructor(language: string | undefined, style: Style) {
    this.#rules = rulesFor(language);
    this.#style = style;
    this.#palette = paletteOf(style);
  }

  /** Highlights the next line of the block and advances the state. */
  line(text: string): string {
    if (!this.#style.enabled || this.#rules.plain) return text;
    if (this.#rules.diff) return this.#diffLine(text);
    return this.#tokenize(text);
  }

  /** Highlights a line as if it came next, without advancing the state. */
  peek(text: string): string {
    const open = this.#open;
    try {
      return this.line(text);
    } finally {
      this.#open = open;
    }
  }

  /** An independent copy (same language, same open construct). */
  clone(): CodeHighlighter {
    const copy = new CodeHighlighter(undefined, this.#style);
    copy.#rules = this.#rules;
    copy.#open = this.#open;
    return copy;
  }

  #diffLine(text: string): string {
    const s = this.#style;
    if (text.startsWith("+++") || text.startsWith("---")) return s.bold(text);
    if (text.startsWith("+")) return s.green(text);
    if (text.startsWith("-")) return s.red(text);
    if (text.startsWith("@@")) return s.cyan(text);
    return text;
  }

  #tokenize(text: string): string {
    const r = this.#rules;
    const p = this.#palette;
    let out = "";
    let i = 0;
    let plainFrom = 0;
    const flush = (to: number) => {
      if (to > plainFrom) out += text.slice(plainFrom, to);
    };
    const emit = (to: number, paint: Paint) => {
      flush(i);
      out += paint(text.slice(i, to));
      i = to;
      plainFrom = to;
    };
    if (this.#open) {
      const open = this.#open;
      const end = findClose(text, 0, open.close, open.kind === "string");
      if (end < 0) return (open.kind === "string" ? p.string : p.comment)(text);
      this.#open = null;
      emit(end + open.close.length, open.kind === "string" ? p.string : p.comment);
    } else if (r.lineKeys) {
      const match = (r.lineKeys === "colon" ? LINE_KEY_COLON : LINE_KEY_EQUALS).exec(text);
      if (match) {
        i = match[1].length;
        plainFrom = 0;
        emit(i + match[2].length, p.key);
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
        emit(n, p.comment);
        break;
      }
      if (r.blockComment && text.startsWith(r.blockComment[0], i)) {
        const end = text.indexOf(r.blockComment[1], i + r.blockComment[0].length);
        if (end < 0) {
          this.#open = { close: r.blockComment[1], kind: "comment" };
          emit(n, p.comment);
          break;
        }
        emit(end + r.blockComment[1].length, p.comment);
        continue;
      }
      const long = r.multiline.find((q) => text.startsWith(q, i));
      if (long !== undefined) {
        const end = findClose(text, i + long.length, long, true);
        if (end < 0) {
          this.#open = { close: long, kind: "string" };
          emit(n, p.string);
          break;
        }
        emit(end + long.length, p.string);
        continue;
      }
      if (r.quotes.includes(c)) {
        if (c === "'" && r.charQuote) {
          CHAR_LITERAL.lastIndex = i;
          if (CHAR_LITERAL.test(text)) emit(CHAR_LITERAL.lastIndex, p.string);
          else i++;
          continue;
        }
        const end = findClose(text, i + 1, c, true);
        if (end < 0) {
          i++;
          continue;
        }
        const isKey = r.keyStrings && /^\s*:/.test(text.slice(end + 1, end + 12));
        emit(end + 1, isKey ? p.key : p.string);
        continue;
      }
      if (c >= "0" && c <= "9" && (i === 0 || !/[\w$.]/.test(text[i - 1]))) {
        NUMBER.lastIndex = i;
        if (NUMBER.test(text)) {
          emit(NUMBER.lastIndex, p.number);
          continue;
        }
      }
      if (c === "$" && r.variables) {
        SHELL_VAR.lastIndex = i;
        if (SHELL_VAR.test(text)) {
          emit(SHELL_VAR.lastIndex, p.key);
          continue;
        }
      }
      IDENT.lastIndex = i;
      if (/[A-Za-z_$]/.test(c) && (i === 0 || !/[\w$]/.test(text[i - 1])) && IDENT.test(text)) {
        const end = IDENT.lastIndex;
        const word = text.slice(i, end);
        const key = r.caseInsensitive ? word.toLowerCase() : word;
        const paint = r.keywords.has(key)
          ? p.keyword
          : r.literals.has(key)
          ? p.number
          : r.types.has(key) || (r.capitalTypes && /^[A-Z][a-z]/.test(word))
          ? p.type
          : /^\s*\(/.test(text.slice(end, end + 8)) && r !== GENERIC
          ? p.fn
          : null;
        if (paint) emit(end, paint);
        else i = end;
        continue;
      }
      i++;
    }
    flush(n);
    return out;
  }
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
 * Highlights a whole code block, one output string per input line (the
 * line count and the visible text are unchanged).
 *
 * @example
 * ```ts
 * highlightCode('print("hi")  # greet', "python", style);
 * ```
 */
export function highlightCode(code: string, language: string | undefined, style: Style): string[] {
  const highlighter = new CodeHighlighter(language, style);
  return code.split("\n").map((line) => highlighter.line(line));
}

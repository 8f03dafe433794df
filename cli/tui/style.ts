/**
 * Terminal styling for the TUI: ANSI SGR colours that can be switched off
 * (NO_COLOR, `--no-color`, pipes), display widths that know about wide
 * East Asian characters, emoji and combining marks, ANSI-safe truncation,
 * and the SGR bookkeeping that lets wrapped lines re-open a style.
 *
 * Everything here is pure: no I/O, no environment read at import time.
 *
 * @example
 * ```ts
 * const style = createStyle(colorEnabled(Deno.env.toObject(), { isTerminal: true }));
 * console.log(style.error("failed"), displayWidth("日本"), truncate("a long line", 6));
 * ```
 *
 * @module
 */

/** Turns text into styled text; the identity when colours are off. */
export type Paint = (text: string) => string;

/** The palette the TUI draws with: plain attributes, colours and their meanings. */
export interface Style {
  /** False when every function returns its input unchanged. */
  readonly enabled: boolean;
  bold: Paint;
  dim: Paint;
  italic: Paint;
  underline: Paint;
  inverse: Paint;
  strike: Paint;
  red: Paint;
  green: Paint;
  yellow: Paint;
  blue: Paint;
  magenta: Paint;
  cyan: Paint;
  gray: Paint;
  /** Bullets, prompts, things to look at. */
  accent: Paint;
  error: Paint;
  success: Paint;
  warning: Paint;
  /** Secondary text: URLs, durations, gutters. */
  muted: Paint;
  /** Inline code. */
  code: Paint;
  heading: Paint;
  link: Paint;
}

const ESC = "\x1b";
/** The SGR sequence that turns every attribute off. */
export const SGR_RESET = `${ESC}[0m`;

function sgr(open: number, close: number): Paint {
  const on = `${ESC}[${open}m`;
  const off = `${ESC}[${close}m`;
  // A nested span that closes the same attribute would end the outer one
  // too: re-open the outer attribute after every inner close.
  return (text) => text === "" ? "" : on + text.replaceAll(off, off + on) + off;
}

const identity: Paint = (text) => text;

/**
 * A {@link Style}; with `enabled` false every function is the identity, so
 * the output holds no escape byte.
 *
 * @example
 * ```ts
 * createStyle(false).error("x"); // "x"
 * ```
 */
export function createStyle(enabled: boolean): Style {
  if (!enabled) {
    return {
      enabled: false,
      bold: identity,
      dim: identity,
      italic: identity,
      underline: identity,
      inverse: identity,
      strike: identity,
      red: identity,
      green: identity,
      yellow: identity,
      blue: identity,
      magenta: identity,
      cyan: identity,
      gray: identity,
      accent: identity,
      error: identity,
      success: identity,
      warning: identity,
      muted: identity,
      code: identity,
      heading: identity,
      link: identity,
    };
  }
  const bold = sgr(1, 22);
  const underline = sgr(4, 24);
  const red = sgr(31, 39);
  const green = sgr(32, 39);
  const yellow = sgr(33, 39);
  const blue = sgr(34, 39);
  const cyan = sgr(36, 39);
  const gray = sgr(90, 39);
  return {
    enabled: true,
    bold,
    dim: sgr(2, 22),
    italic: sgr(3, 23),
    underline,
    inverse: sgr(7, 27),
    strike: sgr(9, 29),
    red,
    green,
    yellow,
    blue,
    magenta: sgr(35, 39),
    cyan,
    gray,
    accent: cyan,
    error: red,
    success: green,
    warning: yellow,
    muted: gray,
    code: yellow,
    heading: (text) => bold(cyan(text)),
    link: (text) => underline(blue(text)),
  };
}

/**
 * Whether to colour the output. A `--no-color` flag wins; then
 * `FORCE_COLOR` (`1`, `2`, `3` or `true` force colours on, `0` or `false`
 * off); then `NO_COLOR` (any non-empty value), `TERM=dumb` and a stream
 * that is not a terminal turn colours off.
 *
 * @example
 * ```ts
 * colorEnabled({ NO_COLOR: "1" }, { isTerminal: true }); // false
 * colorEnabled({ FORCE_COLOR: "1" }, { isTerminal: false }); // true
 * ```
 */
export function colorEnabled(
  env: Record<string, string | undefined>,
  options: { noColorFlag?: boolean; isTerminal: boolean },
): boolean {
  if (options.noColorFlag) return false;
  const force = env.FORCE_COLOR?.trim().toLowerCase();
  if (force === "1" || force === "2" || force === "3" || force === "true") return true;
  if (force === "0" || force === "false") return false;
  if (env.NO_COLOR !== undefined && env.NO_COLOR !== "") return false;
  if (env.TERM === "dumb") return false;
  return options.isTerminal;
}

// CSI sequences (colours, cursor moves), OSC strings (titles, hyperlinks)
// and the remaining two-byte escapes.
/** The source of a pattern matching one escape sequence. */
export const ANSI_SOURCE =
  `${ESC}\\[[0-?]*[ -/]*[@-~]|${ESC}\\][^\\u0007${ESC}]*(?:\\u0007|${ESC}\\\\)?|${ESC}[@-Z\\\\-_]?`;
const ANSI_PATTERN = new RegExp(ANSI_SOURCE, "g");

/**
 * The text without ANSI escape sequences.
 *
 * @example
 * ```ts
 * stripAnsi("\x1b[1mbold\x1b[22m"); // "bold"
 * ```
 */
export function stripAnsi(text: string): string {
  return text.includes(ESC) ? text.replace(ANSI_PATTERN, "") : text;
}

/** One piece of styled text: an escape sequence or a run of text. */
export interface AnsiPart {
  escape: boolean;
  text: string;
}

/**
 * Splits styled text into escape sequences and the text between them.
 *
 * @example
 * ```ts
 * ansiParts("a\x1b[1mb"); // [{escape:false,text:"a"},{escape:true,text:"\x1b[1m"},{escape:false,text:"b"}]
 * ```
 */
export function ansiParts(text: string): AnsiPart[] {
  if (!text.includes(ESC)) return text === "" ? [] : [{ escape: false, text }];
  const parts: AnsiPart[] = [];
  let last = 0;
  for (const match of text.matchAll(ANSI_PATTERN)) {
    if (match.index > last) parts.push({ escape: false, text: text.slice(last, match.index) });
    parts.push({ escape: true, text: match[0] });
    last = match.index + match[0].length;
  }
  if (last < text.length) parts.push({ escape: false, text: text.slice(last) });
  return parts;
}

// Wide (two-column) ranges: Hangul Jamo, CJK, Hangul syllables, fullwidth
// forms and the emoji blocks that terminals draw two columns wide.
const WIDE_RANGES: readonly (readonly [number, number])[] = [
  [0x1100, 0x115f],
  [0x231a, 0x231b],
  [0x2329, 0x232a],
  [0x23e9, 0x23ec],
  [0x23f0, 0x23f0],
  [0x23f3, 0x23f3],
  [0x2e80, 0x303e],
  [0x3041, 0x33ff],
  [0x3400, 0x4dbf],
  [0x4e00, 0x9fff],
  [0xa000, 0xa4cf],
  [0xa960, 0xa97f],
  [0xac00, 0xd7a3],
  [0xf900, 0xfaff],
  [0xfe10, 0xfe19],
  [0xfe30, 0xfe6f],
  [0xff00, 0xff60],
  [0xffe0, 0xffe6],
  [0x16fe0, 0x18aff],
  [0x1b000, 0x1b2ff],
  [0x1f300, 0x1f64f],
  [0x1f680, 0x1f6ff],
  [0x1f900, 0x1f9ff],
  [0x1fa70, 0x1faff],
  [0x20000, 0x2fffd],
  [0x30000, 0x3fffd],
];

const EMOJI_PRESENTATION = /^\p{Emoji_Presentation}$/u;
const ZERO_WIDTH = /^[\p{Mn}\p{Me}\p{Cf}]$/u;
const widthCache = new Map<number, number>();

/** Columns of one code point on its own: 0, 1 or 2. */
function codePointWidth(cp: number): number {
  if (cp < 0x7f) return cp >= 0x20 ? 1 : 0;
  if (cp < 0xa0) return 0;
  if (cp < 0x300) return 1;
  const cached = widthCache.get(cp);
  if (cached !== undefined) return cached;
  const char = String.fromCodePoint(cp);
  let width = 1;
  if (ZERO_WIDTH.test(char) || (cp >= 0x1f3fb && cp <= 0x1f3ff) || (cp >= 0xfe00 && cp <= 0xfe0f)) {
    width = 0;
  } else if (WIDE_RANGES.some(([from, to]) => cp >= from && cp <= to)) {
    width = 2;
  } else if (cp >= 0x2300 && EMOJI_PRESENTATION.test(char)) {
    width = 2;
  }
  widthCache.set(cp, width);
  return width;
}

const ZWJ = 0x200d;
const VS16 = 0xfe0f;

function isRegionalIndicator(cp: number): boolean {
  return cp >= 0x1f1e6 && cp <= 0x1f1ff;
}

/**
 * Calls `visit` for each character cluster of plain text (a base character
 * with its combining marks, an emoji sequence joined by ZWJ, a flag) with
 * the columns it takes.
 */
export function forEachCluster(
  text: string,
  visit: (cluster: string, width: number) => void,
): void {
  let cluster = "";
  let width = 0;
  let joined = false;
  let regional = false;
  for (const char of text) {
    const cp = char.codePointAt(0)!;
    const own = codePointWidth(cp);
    if (cluster !== "" && (joined || cp === ZWJ || (own === 0 && cp >= 0x300))) {
      cluster += char;
      if (cp === VS16 && width === 1) width = 2;
      joined = cp === ZWJ;
      continue;
    }
    if (cluster !== "" && regional && isRegionalIndicator(cp)) {
      cluster += char;
      regional = false;
      continue;
    }
    if (cluster !== "") visit(cluster, width);
    cluster = char;
    width = isRegionalIndicator(cp) ? 2 : own;
    regional = isRegionalIndicator(cp);
    joined = false;
  }
  if (cluster !== "") visit(cluster, width);
}

function plainWidth(text: string): number {
  let width = 0;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code >= 0x7f) {
      let total = 0;
      forEachCluster(text, (_, w) => total += w);
      return total;
    }
    if (code >= 0x20) width++;
  }
  return width;
}

/**
 * Columns the text takes in a terminal: ANSI sequences and control
 * characters take none, East Asian wide characters and emoji two,
 * combining marks none.
 *
 * @example
 * ```ts
 * displayWidth("\x1b[31mok\x1b[39m"); // 2
 * displayWidth("漢字"); // 4
 * ```
 */
export function displayWidth(text: string): number {
  return plainWidth(stripAnsi(text));
}

/**
 * The text cut to at most `width` columns, ending with "…" when cut.
 * Escape sequences before the cut are kept and a style still open at the
 * cut is reset.
 *
 * @example
 * ```ts
 * truncate("hello world", 8); // "hello w…"
 * ```
 */
export function truncate(text: string, width: number): string {
  if (width <= 0) return "";
  if (displayWidth(text) <= width) return text;
  const room = width - 1;
  let out = "";
  let used = 0;
  let full = false;
  const state = new SgrState();
  for (const part of ansiParts(text)) {
    if (part.escape) {
      out += part.text;
      state.apply(part.text);
      continue;
    }
    forEachCluster(part.text, (cluster, w) => {
      if (full) return;
      if (used + w > room) {
        full = true;
        return;
      }
      out += cluster;
      used += w;
    });
    if (full) break;
  }
  return out + "…" + (state.active ? SGR_RESET : "");
}

/**
 * Untrusted text made safe to draw: ANSI sequences removed, `\r` and other
 * control characters dropped (so model or tool output cannot move the
 * cursor or clear the screen), tabs expanded to stops of `tabSize`.
 * Newlines are kept.
 *
 * @example
 * ```ts
 * sanitizeText("a\tb\x1b[2J\r\n"); // "a   b\n"
 * ```
 */
export function sanitizeText(text: string, tabSize = 4): string {
  // deno-lint-ignore no-control-regex
  let clean = stripAnsi(text).replace(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g, "");
  if (clean.includes("\t")) {
    clean = clean.split("\n").map((line) => expandTabs(line, tabSize)).join("\n");
  }
  return clean;
}

function expandTabs(line: string, tabSize: number): string {
  let out = "";
  let column = 0;
  for (const piece of line.split(/(\t)/)) {
    if (piece === "\t") {
      const pad = tabSize - (column % tabSize);
      out += " ".repeat(pad);
      column += pad;
    } else {
      out += piece;
      column += plainWidth(piece);
    }
  }
  return out;
}

const SGR_PATTERN = new RegExp(`^${ESC}\\[([\\d;:]*)m$`);
/** Parameters of the SGR sequences seen so far (a handful, used over and over). */
const sgrParams = new Map<string, number[]>();

/**
 * The SGR attributes in force while reading styled text left to right, so
 * a line break can close them (`SGR_RESET`) and the next line re-open them
 * ({@link SgrState.open}).
 */
export class SgrState {
  #slots = new Map<string, string>();

  /** True when some attribute is on. */
  get active(): boolean {
    return this.#slots.size > 0;
  }

  /** Reads one escape sequence; anything but SGR is ignored. */
  apply(sequence: string): void {
    let params = sgrParams.get(sequence);
    if (params === undefined) {
      const match = SGR_PATTERN.exec(sequence);
      params = !match
        ? []
        : match[1] === ""
        ? [0]
        : match[1].split(/[;:]/).map((p) => Number(p) || 0);
      if (sgrParams.size < 1024) sgrParams.set(sequence, params);
    }
    for (let i = 0; i < params.length; i++) {
      const p = params[i];
      if (p === 0) this.#slots.clear();
      else if (p === 1 || p === 2) this.#slots.set(p === 1 ? "bold" : "dim", String(p));
      else if (p === 22) {
        this.#slots.delete("bold");
        this.#slots.delete("dim");
      } else if (p >= 3 && p <= 9) this.#slots.set(`a${p}`, String(p));
      else if (p >= 23 && p <= 29) this.#slots.delete(`a${p - 20}`);
      else if (p === 21) this.#slots.set("a4", "4");
      else if ((p >= 30 && p <= 37) || (p >= 90 && p <= 97)) this.#slots.set("fg", String(p));
      else if ((p >= 40 && p <= 47) || (p >= 100 && p <= 107)) this.#slots.set("bg", String(p));
      else if (p === 39) this.#slots.delete("fg");
      else if (p === 49) this.#slots.delete("bg");
      else if (p === 38 || p === 48) {
        const count = params[i + 1] === 5 ? 2 : params[i + 1] === 2 ? 4 : 0;
        this.#slots.set(p === 38 ? "fg" : "bg", params.slice(i, i + 1 + count).join(";"));
        i += count;
      }
    }
  }

  /** The sequence that turns the current attributes back on ("" when none). */
  open(): string {
    return this.active ? `${ESC}[${[...this.#slots.values()].join(";")}m` : "";
  }

  /** An independent copy. */
  clone(): SgrState {
    const copy = new SgrState();
    for (const [key, value] of this.#slots) copy.#slots.set(key, value);
    return copy;
  }
}

/**
 * Turning the raw bytes a terminal in raw mode sends into keys: printable
 * text, bracketed pastes, and the escape sequences of xterm, rxvt, VTE and
 * kitty-style terminals for arrows, Home/End, Delete, modified Enter and the
 * like. Pure: the caller reads stdin and feeds each chunk in.
 *
 * @example
 * ```ts
 * const decoder = new KeyDecoder();
 * decoder.feed("hi\x1b[D\r"); // [{kind:"text",text:"hi"}, {kind:"left"}, {kind:"enter"}]
 * ```
 *
 * @module
 */

/** One key press (or one paste) decoded from terminal input. */
export type Key =
  | { kind: "text"; text: string }
  | { kind: "paste"; text: string }
  | { kind: "enter" }
  | { kind: "newline" }
  | { kind: "tab" }
  | { kind: "shift_tab" }
  | { kind: "backspace" }
  | { kind: "delete" }
  | { kind: "escape" }
  | { kind: "up" }
  | { kind: "down" }
  | { kind: "left" }
  | { kind: "right" }
  | { kind: "home" }
  | { kind: "end" }
  | { kind: "word_left" }
  | { kind: "word_right" }
  | { kind: "page_up" }
  | { kind: "page_down" }
  | { kind: "ctrl"; key: string };

/** The most characters (UTF-16 code units) one paste keeps; the rest is dropped. */
export const MAX_PASTE_CHARS = 1024 * 1024;

const ESC = "\x1b";
const PASTE_START = "200";
const PASTE_END = "\x1b[201~";
/** The longest escape sequence waited for; longer ones are dropped as garbage. */
const MAX_SEQUENCE = 64;

/** Keys that carry no data, built once. */
const SIMPLE = {
  enter: { kind: "enter" },
  newline: { kind: "newline" },
  tab: { kind: "tab" },
  shift_tab: { kind: "shift_tab" },
  backspace: { kind: "backspace" },
  delete: { kind: "delete" },
  escape: { kind: "escape" },
  up: { kind: "up" },
  down: { kind: "down" },
  left: { kind: "left" },
  right: { kind: "right" },
  home: { kind: "home" },
  end: { kind: "end" },
  word_left: { kind: "word_left" },
  word_right: { kind: "word_right" },
  page_up: { kind: "page_up" },
  page_down: { kind: "page_down" },
} as const satisfies Record<string, Key>;

/** What parsing an escape sequence at some offset found. */
type Parsed =
  | { state: "key"; key: Key | null; length: number }
  | { state: "incomplete" }
  | { state: "paste"; length: number };

/**
 * A streaming decoder of terminal input. Feed it every chunk read from stdin;
 * it keeps what a chunk ends in the middle of (a UTF-8 character, an escape
 * sequence, a paste) until the next chunk completes it.
 *
 * A lone ESC is held back, since it may start a sequence whose rest is still
 * on its way: when {@link KeyDecoder.pending} stays true for a moment (say
 * 50 ms) without new input, call {@link KeyDecoder.flush} to get the Escape key.
 */
export class KeyDecoder {
  readonly #utf8 = new TextDecoder("utf-8");
  /** Decoded text not yet turned into keys (the start of an escape sequence). */
  #buffer = "";
  /** The paste being read, or undefined outside a bracketed paste. */
  #paste: string[] | undefined;
  #pasteLength = 0;

  /**
   * The keys completed by `chunk` (bytes are UTF-8; a string is taken as
   * already decoded), in order.
   */
  feed(chunk: Uint8Array | string): Key[] {
    this.#buffer += typeof chunk === "string" ? chunk : this.#utf8.decode(chunk, { stream: true });
    return this.#drain();
  }

  /**
   * Ends the wait for the rest of an escape sequence: a lone pending ESC
   * becomes `{kind: "escape"}`, an unfinished sequence is dropped. A paste in
   * progress is left alone (its end marker will come).
   */
  flush(): Key[] {
    if (this.#paste !== undefined || this.#buffer === "") return [];
    const lone = this.#buffer === ESC;
    this.#buffer = "";
    return lone ? [SIMPLE.escape] : [];
  }

  /** True while the start of an escape sequence waits for its rest (see {@link KeyDecoder.flush}). */
  get pending(): boolean {
    return this.#paste === undefined && this.#buffer !== "";
  }

  #drain(): Key[] {
    const keys: Key[] = [];
    const text = this.#buffer;
    let i = 0;
    while (i < text.length) {
      if (this.#paste !== undefined) {
        const reached = this.#readPaste(text, i, keys);
        if (reached === i) break; // the rest may begin the end marker: wait for more
        i = reached;
        continue;
      }
      const code = text.charCodeAt(i);
      if (code === 0x1b) {
        const parsed = parseEscape(text, i);
        if (parsed.state === "incomplete") break;
        if (parsed.state === "paste") {
          this.#paste = [];
          this.#pasteLength = 0;
        } else if (parsed.key) {
          keys.push(parsed.key);
        }
        i += parsed.length;
      } else if (code < 0x20 || code === 0x7f) {
        if (code === 0x0d && text.charCodeAt(i + 1) === 0x0a) i++; // CR LF is one Enter
        keys.push(controlKey(code));
        i++;
      } else {
        let end = i + 1;
        while (end < text.length && isPrintable(text.charCodeAt(end))) end++;
        const run = text.slice(i, end).replace(/[\x80-\x9f]/g, "");
        if (run !== "") keys.push({ kind: "text", text: run });
        i = end;
      }
    }
    this.#buffer = text.slice(i);
    return keys;
  }

  /** Consumes paste content from `text[i..]`; returns the offset reached. */
  #readPaste(text: string, i: number, keys: Key[]): number {
    const end = text.indexOf(PASTE_END, i);
    if (end !== -1) {
      this.#appendPaste(text.slice(i, end));
      keys.push({ kind: "paste", text: normalizePaste(this.#paste!.join("")) });
      this.#paste = undefined;
      return end + PASTE_END.length;
    }
    // Keep a tail that may be the start of the end marker split across chunks.
    const keep = partialSuffix(text, i, PASTE_END);
    this.#appendPaste(text.slice(i, text.length - keep));
    return text.length - keep;
  }

  #appendPaste(part: string): void {
    const room = MAX_PASTE_CHARS - this.#pasteLength;
    if (room <= 0 || part === "") return;
    let kept = part.length <= room ? part : part.slice(0, room);
    if (kept.length < part.length && /[\ud800-\udbff]$/.test(kept)) kept = kept.slice(0, -1);
    this.#paste!.push(kept);
    this.#pasteLength = kept.length < part.length
      ? MAX_PASTE_CHARS
      : this.#pasteLength + kept.length;
  }
}

/** True for a character that is typed text (not C0, DEL or ESC). */
function isPrintable(code: number): boolean {
  return code >= 0x20 && code !== 0x7f;
}

/** The key of a C0 control character or DEL outside an escape sequence. */
function controlKey(code: number): Key {
  switch (code) {
    case 0x0d:
      return SIMPLE.enter;
    case 0x0a:
      return SIMPLE.newline;
    case 0x09:
      return SIMPLE.tab;
    case 0x08:
    case 0x7f:
      return SIMPLE.backspace;
    case 0x00:
      return { kind: "ctrl", key: "space" };
  }
  // 0x01..0x1a are Ctrl-A..Ctrl-Z; 0x1c..0x1f are Ctrl-\ ] ^ _.
  return {
    kind: "ctrl",
    key: code <= 0x1a ? String.fromCharCode(code + 0x60) : String.fromCharCode(code + 0x40),
  };
}

/** Parses the escape sequence starting at `text[i]` (an ESC). */
function parseEscape(text: string, i: number): Parsed {
  if (i + 1 >= text.length) return { state: "incomplete" };
  const next = text[i + 1];
  if (next === "[") return parseCsi(text, i);
  if (next === "O") return parseSs3(text, i);
  switch (next) {
    case "\r":
    case "\n":
      return key(SIMPLE.newline, 2);
    case "\x7f":
    case "\b":
      return key({ kind: "ctrl", key: "w" }, 2); // Alt-Backspace: delete the word before the cursor
    case "b":
      return key(SIMPLE.word_left, 2);
    case "f":
      return key(SIMPLE.word_right, 2);
    case ESC:
      return key(SIMPLE.escape, 1); // Escape pressed, then another sequence (or Escape) follows
  }
  const code = next.charCodeAt(0);
  // Any other Alt-<key> is swallowed; a control character after ESC is Escape followed by that key.
  return code < 0x20 ? key(SIMPLE.escape, 1) : key(null, 1 + codePointLength(text, i + 1));
}

/** Parses `ESC [ params intermediates final` at `text[i]`. */
function parseCsi(text: string, i: number): Parsed {
  let j = i + 2;
  while (j < text.length && isParamByte(text.charCodeAt(j))) j++;
  while (j < text.length && isIntermediateByte(text.charCodeAt(j)) && text[j] !== "$") j++;
  if (j - i > MAX_SEQUENCE) return key(null, j - i); // runaway: drop it rather than wait forever
  if (j >= text.length) return { state: "incomplete" };
  const final = text[j];
  const code = text.charCodeAt(j);
  const length = j + 1 - i;
  // rxvt ends shifted keys with `$` (`ESC[7$` is Shift-Home); take it as a final byte.
  if (final !== "$" && (code < 0x40 || code > 0x7e)) return key(null, j - i); // malformed: drop what was read
  const params = text.slice(i + 2, j);
  if (final === "~" && params === PASTE_START) return { state: "paste", length };
  return key(csiKey(params, final), length);
}

/** The key a complete CSI sequence stands for, or null to swallow it. */
function csiKey(params: string, final: string): Key | null {
  if (/^[<=>?]/.test(params)) return null; // mouse reports and replies to queries, not keys
  const fields = params.split(";");
  const first = Number(fields[0] || "1");
  const modifier = Number(fields[1] || "1");
  switch (final) {
    case "A":
    case "a": // rxvt Shift-Up
      return SIMPLE.up;
    case "B":
    case "b":
      return SIMPLE.down;
    case "C":
      return modified(modifier) ? SIMPLE.word_right : SIMPLE.right;
    case "c":
      return SIMPLE.right;
    case "D":
      return modified(modifier) ? SIMPLE.word_left : SIMPLE.left;
    case "d":
      return SIMPLE.left;
    case "H":
      return SIMPLE.home;
    case "F":
      return SIMPLE.end;
    case "Z":
      return SIMPLE.shift_tab;
    case "u": // CSI u (kitty, fixterms): code point ; modifiers
      return codePointKey(first, modifier);
    case "~":
    case "^": // rxvt Ctrl-<key>
    case "$": // rxvt Shift-<key>
      if (first === 27 && fields.length >= 3) {
        return codePointKey(Number(fields[2]), modifier); // xterm modifyOtherKeys: 27 ; mod ; code
      }
      return tildeKey(first);
  }
  return null;
}

/** True when an xterm modifier parameter includes Alt or Ctrl (for word moves). */
function modified(modifier: number): boolean {
  const bits = modifier - 1;
  return (bits & 0b110) !== 0;
}

/** The key of the numbered keys (`ESC[3~` Delete and friends, xterm and rxvt numbering). */
function tildeKey(number: number): Key | null {
  switch (number) {
    case 1:
    case 7:
      return SIMPLE.home;
    case 4:
    case 8:
      return SIMPLE.end;
    case 3:
      return SIMPLE.delete;
    case 5:
      return SIMPLE.page_up;
    case 6:
      return SIMPLE.page_down;
  }
  return null;
}

/** The key of a code point reported with xterm-style modifiers (CSI u, modifyOtherKeys). */
function codePointKey(codePoint: number, modifier: number): Key | null {
  const bits = Number.isFinite(modifier) ? modifier - 1 : 0;
  const shift = (bits & 1) !== 0;
  const alt = (bits & 2) !== 0;
  const ctrl = (bits & 4) !== 0;
  switch (codePoint) {
    case 13:
      return shift || alt || ctrl ? SIMPLE.newline : SIMPLE.enter;
    case 9:
      return shift ? SIMPLE.shift_tab : SIMPLE.tab;
    case 127:
    case 8:
      return alt || ctrl ? { kind: "ctrl", key: "w" } : SIMPLE.backspace;
    case 27:
      return SIMPLE.escape;
  }
  if (!Number.isInteger(codePoint) || codePoint < 0x20 || codePoint > 0x10ffff) return null;
  const char = String.fromCodePoint(codePoint);
  if (ctrl && /^[a-z]$/i.test(char)) return { kind: "ctrl", key: char.toLowerCase() };
  if (ctrl || alt) return null;
  return { kind: "text", text: shift ? char.toUpperCase() : char };
}

/** Parses `ESC O <final>` (application-mode keys; rxvt's ESC O a..d are Ctrl-arrows). */
function parseSs3(text: string, i: number): Parsed {
  let j = i + 2;
  while (j < text.length && /[0-9;]/.test(text[j])) j++; // some terminals put a modifier here
  if (j >= text.length) return { state: "incomplete" };
  const length = j + 1 - i;
  switch (text[j]) {
    case "A":
    case "a":
      return key(SIMPLE.up, length);
    case "B":
    case "b":
      return key(SIMPLE.down, length);
    case "C":
      return key(SIMPLE.right, length);
    case "c":
      return key(SIMPLE.word_right, length);
    case "D":
      return key(SIMPLE.left, length);
    case "d":
      return key(SIMPLE.word_left, length);
    case "H":
      return key(SIMPLE.home, length);
    case "F":
      return key(SIMPLE.end, length);
    case "M":
      return key(SIMPLE.enter, length); // keypad Enter
  }
  return key(null, length);
}

function key(found: Key | null, length: number): Parsed {
  return { state: "key", key: found, length };
}

/** CSI parameter bytes 0x30–0x3F (digits, `;`, `:`, `<=>?`). */
function isParamByte(code: number): boolean {
  return code >= 0x30 && code <= 0x3f;
}

/** CSI intermediate bytes 0x20–0x2F. */
function isIntermediateByte(code: number): boolean {
  return code >= 0x20 && code <= 0x2f;
}

/** 2 for a surrogate pair at `text[i]`, else 1. */
function codePointLength(text: string, i: number): number {
  const code = text.charCodeAt(i);
  return code >= 0xd800 && code <= 0xdbff && i + 1 < text.length ? 2 : 1;
}

/** How many characters at the end of `text` (from `from` on) are a proper prefix of `marker`. */
function partialSuffix(text: string, from: number, marker: string): number {
  const most = Math.min(marker.length - 1, text.length - from);
  for (let n = most; n > 0; n--) {
    if (text.endsWith(marker.slice(0, n))) return n;
  }
  return 0;
}

/** Paste text with line endings made `\n` and control characters other than tab and newline removed. */
function normalizePaste(text: string): string {
  // deno-lint-ignore no-control-regex
  return text.replace(/\r\n?/g, "\n").replace(/[\x00-\x08\x0b-\x1f\x7f]/g, "");
}

import assert from "node:assert/strict";
import { type Key, KeyDecoder, MAX_PASTE_CHARS } from "../../../cli/tui/keys.ts";

const bytes = (text: string) => new TextEncoder().encode(text);

/** Feeds each chunk in turn and returns every key decoded. */
function decode(...chunks: (string | Uint8Array)[]): Key[] {
  const decoder = new KeyDecoder();
  return chunks.flatMap((chunk) => decoder.feed(chunk));
}

Deno.test("printable characters in one chunk coalesce into one text key", () => {
  assert.deepEqual(decode(bytes("hello world")), [{ kind: "text", text: "hello world" }]);
});

Deno.test("a UTF-8 character split across chunks is decoded whole", () => {
  const euro = bytes("€ 日本 🙂");
  const keys = decode(euro.slice(0, 1), euro.slice(1, 5), euro.slice(5, 9), euro.slice(9));
  assert.equal(keys.map((key) => key.kind === "text" ? key.text : "?").join(""), "€ 日本 🙂");
});

Deno.test("CR is Enter, LF alone is a newline, CR LF is one Enter", () => {
  assert.deepEqual(decode("a\rb\nc\r\n"), [
    { kind: "text", text: "a" },
    { kind: "enter" },
    { kind: "text", text: "b" },
    { kind: "newline" },
    { kind: "text", text: "c" },
    { kind: "enter" },
  ]);
});

Deno.test("DEL and ^H are Backspace, tab is Tab, other control bytes are Ctrl keys", () => {
  assert.deepEqual(decode("\x7f\x08\t\x01\x03\x04\x0b\x0c\x15\x17\x1f"), [
    { kind: "backspace" },
    { kind: "backspace" },
    { kind: "tab" },
    { kind: "ctrl", key: "a" },
    { kind: "ctrl", key: "c" },
    { kind: "ctrl", key: "d" },
    { kind: "ctrl", key: "k" },
    { kind: "ctrl", key: "l" },
    { kind: "ctrl", key: "u" },
    { kind: "ctrl", key: "w" },
    { kind: "ctrl", key: "_" },
  ]);
});

Deno.test("arrow keys decode in normal (CSI) and application (SS3) cursor mode", () => {
  assert.deepEqual(decode("\x1b[A\x1b[B\x1b[C\x1b[D\x1bOA\x1bOB\x1bOC\x1bOD"), [
    { kind: "up" },
    { kind: "down" },
    { kind: "right" },
    { kind: "left" },
    { kind: "up" },
    { kind: "down" },
    { kind: "right" },
    { kind: "left" },
  ]);
});

Deno.test("Home, End, Delete and Page keys decode in xterm, VT220 and rxvt forms", () => {
  const sequences: [string, Key["kind"]][] = [
    ["\x1b[H", "home"],
    ["\x1b[F", "end"],
    ["\x1bOH", "home"],
    ["\x1bOF", "end"],
    ["\x1b[1~", "home"],
    ["\x1b[4~", "end"],
    ["\x1b[7~", "home"],
    ["\x1b[8~", "end"],
    ["\x1b[3~", "delete"],
    ["\x1b[3;5~", "delete"],
    ["\x1b[5~", "page_up"],
    ["\x1b[6~", "page_down"],
    ["\x1b[7^", "home"],
    ["\x1b[8$", "end"],
    ["\x1b[Z", "shift_tab"],
  ];
  for (const [sequence, kind] of sequences) {
    assert.deepEqual(decode(sequence), [{ kind }], JSON.stringify(sequence));
  }
});

Deno.test("Ctrl- and Alt-arrows and Alt-b/f are word moves; Shift-arrows are plain moves", () => {
  assert.deepEqual(
    decode("\x1b[1;5D\x1b[1;5C\x1b[1;3D\x1b[1;3C\x1bb\x1bf\x1bOd\x1bOc\x1b[1;2D\x1b[1;5A"),
    [
      { kind: "word_left" },
      { kind: "word_right" },
      { kind: "word_left" },
      { kind: "word_right" },
      { kind: "word_left" },
      { kind: "word_right" },
      { kind: "word_left" },
      { kind: "word_right" },
      { kind: "left" },
      { kind: "up" },
    ],
  );
});

Deno.test("Alt-Enter, Shift-Enter (CSI u and modifyOtherKeys) and Ctrl-J insert a newline", () => {
  assert.deepEqual(decode("\x1b\r\x1b[13;2u\x1b[27;2;13~\n\x1b[13u"), [
    { kind: "newline" },
    { kind: "newline" },
    { kind: "newline" },
    { kind: "newline" },
    { kind: "enter" },
  ]);
});

Deno.test("an escape sequence split across chunks is decoded once it completes", () => {
  const decoder = new KeyDecoder();
  assert.deepEqual(decoder.feed("\x1b"), []);
  assert.equal(decoder.pending, true);
  assert.deepEqual(decoder.feed("[1;"), []);
  assert.deepEqual(decoder.feed("5"), []);
  assert.deepEqual(decoder.feed("Dx"), [{ kind: "word_left" }, { kind: "text", text: "x" }]);
  assert.equal(decoder.pending, false);
});

Deno.test("a lone ESC waits and comes out as Escape on flush", () => {
  const decoder = new KeyDecoder();
  assert.deepEqual(decoder.feed(bytes("\x1b")), []);
  assert.equal(decoder.pending, true);
  assert.deepEqual(decoder.flush(), [{ kind: "escape" }]);
  assert.equal(decoder.pending, false);
  assert.deepEqual(decoder.flush(), []);
});

Deno.test("ESC ESC is an Escape followed by whatever comes next", () => {
  assert.deepEqual(decode("\x1b\x1b[A"), [{ kind: "escape" }, { kind: "up" }]);
});

Deno.test("an unfinished sequence is dropped on flush, never inserted as text", () => {
  const decoder = new KeyDecoder();
  assert.deepEqual(decoder.feed("\x1b[12"), []);
  assert.deepEqual(decoder.flush(), []);
  assert.deepEqual(decoder.feed("a"), [{ kind: "text", text: "a" }]);
});

Deno.test("unknown escape sequences are swallowed", () => {
  assert.deepEqual(
    decode("a\x1b[15~\x1b[I\x1b[O\x1bOP\x1b[<0;10;5M\x1b[?1;2c\x1b[2~\x1bxb"),
    [{ kind: "text", text: "a" }, { kind: "text", text: "b" }],
  );
});

Deno.test("kitty CSI u reports Ctrl-letters and plain characters", () => {
  assert.deepEqual(decode("\x1b[99;5u\x1b[97u\x1b[9;2u\x1b[127u\x1b[27u"), [
    { kind: "ctrl", key: "c" },
    { kind: "text", text: "a" },
    { kind: "shift_tab" },
    { kind: "backspace" },
    { kind: "escape" },
  ]);
});

Deno.test("Alt-Backspace deletes the word before the cursor (as Ctrl-W)", () => {
  assert.deepEqual(decode("\x1b\x7f"), [{ kind: "ctrl", key: "w" }]);
});

Deno.test("a bracketed paste is one key with its newlines kept and CR/CRLF made LF", () => {
  assert.deepEqual(decode("x\x1b[200~one\r\ntwo\rthree\nfour\x1b[201~y"), [
    { kind: "text", text: "x" },
    { kind: "paste", text: "one\ntwo\nthree\nfour" },
    { kind: "text", text: "y" },
  ]);
});

Deno.test("a paste keeps escape-looking text and tabs but drops other control bytes", () => {
  assert.deepEqual(decode("\x1b[200~a\tb\x07c\x1b[Ad\x1b[201~"), [
    { kind: "paste", text: "a\tbc[Ad" },
  ]);
});

Deno.test("a paste split across many chunks, even inside its markers, is one key", () => {
  const whole = "\x1b[200~first line\r\nsecond 日本\r\nthird\x1b[201~\r";
  const data = bytes(whole);
  for (const size of [1, 2, 3, 5, 7]) {
    const chunks: Uint8Array[] = [];
    for (let i = 0; i < data.length; i += size) chunks.push(data.slice(i, i + size));
    assert.deepEqual(decode(...chunks), [
      { kind: "paste", text: "first line\nsecond 日本\nthird" },
      { kind: "enter" },
    ], `chunks of ${size}`);
  }
});

Deno.test("keys typed inside a paste are text of the paste, not keys", () => {
  const decoder = new KeyDecoder();
  assert.deepEqual(decoder.feed("\x1b[200~a\r"), []);
  assert.equal(decoder.pending, false);
  assert.deepEqual(decoder.flush(), []);
  assert.deepEqual(decoder.feed("\x1b"), []);
  assert.deepEqual(decoder.feed("[201"), []);
  assert.deepEqual(decoder.feed("~"), [{ kind: "paste", text: "a\n" }]);
});

Deno.test("a paste longer than the cap is cut at 1 MiB and the rest dropped", () => {
  const decoder = new KeyDecoder();
  const block = "x".repeat(64 * 1024);
  const keys: Key[] = decoder.feed("\x1b[200~");
  for (let i = 0; i < 20; i++) keys.push(...decoder.feed(block));
  keys.push(...decoder.feed("\x1b[201~z"));
  assert.equal(keys.length, 2);
  assert.equal(keys[0].kind, "paste");
  assert.equal(keys[0].kind === "paste" && keys[0].text.length, MAX_PASTE_CHARS);
  assert.deepEqual(keys[1], { kind: "text", text: "z" });
});

Deno.test("C1 control characters are not inserted as text", () => {
  assert.deepEqual(decode("a\u0085b"), [{ kind: "text", text: "ab" }]);
});

import assert from "node:assert/strict";
import { type Completer, slashCompleter } from "../../../cli/tui/complete.ts";
import { type EditorAction, type EditorOptions, LineEditor } from "../../../cli/tui/editor.ts";
import { History } from "../../../cli/tui/history.ts";
import { type Key, KeyDecoder } from "../../../cli/tui/keys.ts";
import { displayWidth } from "../../../cli/tui/style.ts";

const PROMPT = "› ";

function editor(options: Partial<EditorOptions> = {}): LineEditor {
  return new LineEditor({ history: History.memory(), ...options });
}

/** Feeds raw terminal input through the real decoder into `ed`; returns the actions that were not "none". */
function type(ed: LineEditor, input: string): EditorAction[] {
  const keys = new KeyDecoder().feed(input);
  return keys.map((key) => ed.handle(key)).filter((action) => action.kind !== "none");
}

function press(ed: LineEditor, ...keys: Key[]): EditorAction[] {
  return keys.map((key) => ed.handle(key)).filter((action) => action.kind !== "none");
}

const k = (kind: Exclude<Key["kind"], "text" | "paste" | "ctrl">) => ({ kind }) as Key;
const ctrl = (key: string): Key => ({ kind: "ctrl", key });

/** The buffer with "|" at the cursor. */
function shown(ed: LineEditor): string {
  return `${ed.text.slice(0, ed.cursor)}|${ed.text.slice(ed.cursor)}`;
}

Deno.test("Enter submits the text, clears the buffer and adds it to history", () => {
  const history = History.memory();
  const ed = editor({ history });
  assert.deepEqual(type(ed, "hello\r"), [{ kind: "submit", text: "hello" }]);
  assert.equal(ed.text, "");
  assert.deepEqual(history.entries, ["hello"]);
});

Deno.test("Enter on an empty buffer submits empty text and adds nothing to history", () => {
  const history = History.memory();
  const ed = editor({ history });
  assert.deepEqual(type(ed, "  \r"), [{ kind: "submit", text: "  " }]);
  assert.deepEqual(history.entries, []);
});

Deno.test("a 3-line paste then Enter is exactly one submit with the three lines", () => {
  const ed = editor();
  const actions = type(ed, "\x1b[200~line one\r\nline two\r\nline three\x1b[201~");
  assert.deepEqual(actions, []);
  assert.equal(ed.text, "line one\nline two\nline three");
  assert.deepEqual(type(ed, "\r"), [{ kind: "submit", text: "line one\nline two\nline three" }]);
});

Deno.test("Enter after a trailing backslash continues on a new line instead of submitting", () => {
  const ed = editor();
  assert.deepEqual(type(ed, "first \\\r"), []);
  assert.equal(shown(ed), "first \n|");
  assert.deepEqual(type(ed, "second\r"), [{ kind: "submit", text: "first \nsecond" }]);
});

Deno.test("Alt-Enter, Shift-Enter and Ctrl-J insert a newline", () => {
  const ed = editor();
  type(ed, "a\x1b\rb\x1b[13;2uc\nd");
  assert.equal(ed.text, "a\nb\nc\nd");
});

Deno.test("typing inserts at the cursor; Left, Right, Home and End move it", () => {
  const ed = editor();
  type(ed, "held\x1b[D\x1b[Dl");
  assert.equal(shown(ed), "hel|ld");
  type(ed, "\x1b[H>");
  assert.equal(shown(ed), ">|helld");
  type(ed, "\x1b[F!");
  assert.equal(shown(ed), ">helld!|");
  type(ed, "\x1b[C");
  assert.equal(shown(ed), ">helld!|");
});

Deno.test("Backspace and Delete remove one character, surrogate pairs and combining marks whole", () => {
  const ed = editor();
  ed.set("a🙂e\u0301b", 3);
  press(ed, k("backspace"));
  assert.equal(shown(ed), "a|e\u0301b");
  press(ed, k("delete"));
  assert.equal(shown(ed), "a|b");
  press(ed, k("delete"), k("delete"));
  assert.equal(shown(ed), "a|");
  press(ed, k("backspace"), k("backspace"));
  assert.equal(shown(ed), "|");
});

Deno.test("word moves skip punctuation and stop at word ends", () => {
  const ed = editor();
  ed.set("let foo_bar = baz(42);");
  press(ed, k("word_left"));
  assert.equal(shown(ed), "let foo_bar = baz(|42);");
  press(ed, k("word_left"), k("word_left"));
  assert.equal(shown(ed), "let |foo_bar = baz(42);");
  press(ed, k("word_right"));
  assert.equal(shown(ed), "let foo_bar| = baz(42);");
  type(ed, "\x1bf");
  assert.equal(shown(ed), "let foo_bar = baz|(42);");
});

Deno.test("Ctrl-A and Ctrl-E go to the start and end of the current line", () => {
  const ed = editor();
  ed.set("one\ntwo three\nfour", 8);
  press(ed, ctrl("a"));
  assert.equal(shown(ed), "one\n|two three\nfour");
  press(ed, ctrl("e"));
  assert.equal(shown(ed), "one\ntwo three|\nfour");
});

Deno.test("Ctrl-K kills to the end of the line, Ctrl-U to its start, Ctrl-Y yanks back", () => {
  const ed = editor();
  ed.set("hello brave world", 6);
  press(ed, ctrl("k"));
  assert.equal(shown(ed), "hello |");
  press(ed, ctrl("y"));
  assert.equal(shown(ed), "hello brave world|");
  ed.set("hello brave world", 6);
  press(ed, ctrl("u"));
  assert.equal(shown(ed), "|brave world");
});

Deno.test("Ctrl-K at a line's end joins the next line; Ctrl-U at a line's start joins the previous", () => {
  const ed = editor();
  ed.set("ab\ncd", 2);
  press(ed, ctrl("k"));
  assert.equal(shown(ed), "ab|cd");
  ed.set("ab\ncd", 3);
  press(ed, ctrl("u"));
  assert.equal(shown(ed), "ab|cd");
});

Deno.test("Ctrl-W kills the whitespace-separated word before the cursor", () => {
  const ed = editor();
  ed.set("read @src/main.ts  ");
  press(ed, ctrl("w"));
  assert.equal(shown(ed), "read |");
  press(ed, ctrl("w"));
  assert.equal(shown(ed), "|");
});

Deno.test("Ctrl-L asks to clear the screen and Ctrl-C interrupts without clearing the buffer", () => {
  const ed = editor();
  type(ed, "draft");
  assert.deepEqual(type(ed, "\x0c"), [{ kind: "clear_screen" }]);
  assert.deepEqual(type(ed, "\x03"), [{ kind: "interrupt" }]);
  assert.equal(ed.text, "draft");
});

Deno.test("Ctrl-D is EOF on an empty buffer and deletes the character under the cursor otherwise", () => {
  const ed = editor();
  type(ed, "ab\x1b[D\x1b[D");
  assert.deepEqual(type(ed, "\x04"), []);
  assert.equal(shown(ed), "|b");
  assert.deepEqual(type(ed, "\x04"), []);
  assert.deepEqual(type(ed, "\x04"), [{ kind: "eof" }]);
});

Deno.test("Up and Down move between lines of a multi-line buffer, keeping the column", () => {
  const ed = editor({ history: History.memory(["older"]) });
  ed.set("first line\nab\nthird line", 7);
  press(ed, k("down"));
  assert.equal(shown(ed), "first line\nab|\nthird line");
  press(ed, k("down"));
  assert.equal(shown(ed), "first line\nab\nthird l|ine");
  press(ed, k("up"), k("up"));
  assert.equal(shown(ed), "first l|ine\nab\nthird line");
  press(ed, k("down"));
  assert.equal(shown(ed), "first line\nab|\nthird line");
});

Deno.test("Up on the first line recalls history and Down past the newest brings the draft back", () => {
  const ed = editor({ history: History.memory(["oldest", "newer"]) });
  type(ed, "my draft");
  press(ed, k("up"));
  assert.equal(ed.text, "newer");
  press(ed, k("up"));
  assert.equal(ed.text, "oldest");
  press(ed, k("up"));
  assert.equal(ed.text, "oldest");
  press(ed, k("down"));
  assert.equal(ed.text, "newer");
  press(ed, k("down"));
  assert.equal(shown(ed), "my draft|");
  press(ed, k("down"));
  assert.equal(shown(ed), "my draft|");
});

Deno.test("a recalled multi-line entry can be passed with Up and walked back with Down", () => {
  const ed = editor({ history: History.memory(["one", "two\nlines"]) });
  press(ed, k("up"));
  assert.equal(shown(ed), "two|\nlines");
  press(ed, k("up"));
  assert.equal(ed.text, "one");
  press(ed, k("down"));
  assert.equal(shown(ed), "two\nlines|");
  press(ed, k("up"));
  assert.equal(shown(ed), "two|\nlines");
});

Deno.test("a submission is recalled by Up at once", () => {
  const ed = editor();
  type(ed, "first\rsecond\r");
  press(ed, k("up"));
  assert.equal(ed.text, "second");
  press(ed, k("up"));
  assert.equal(ed.text, "first");
});

const slash: Completer = slashCompleter(() => [
  { name: "bundles", description: "List skill bundles" },
  { name: "help", description: "Show commands" },
  { name: "model", description: "Switch model" },
  { name: "models", description: "List models" },
  { name: "mode", description: "Set mode" },
]);

Deno.test("Tab with one candidate completes a command and adds a space", () => {
  const ed = editor({ complete: slash });
  type(ed, "/bun\t");
  assert.equal(shown(ed), "/bundles |");
  assert.equal(ed.menuOpen, false);
});

Deno.test("Tab completing a folder keeps the slash and adds no space", () => {
  const folder: Completer = (text, cursor) => ({
    start: 0,
    end: cursor,
    candidates: text.startsWith("@s") ? [{ value: "@src/" }] : [],
  });
  const ed = editor({ complete: folder });
  type(ed, "@s\t");
  assert.equal(shown(ed), "@src/|");
});

Deno.test("Tab with several candidates inserts their common prefix and opens a menu", () => {
  const ed = editor({ complete: slash });
  type(ed, "/mo\t");
  assert.equal(shown(ed), "/mode|");
  assert.equal(ed.menuOpen, true);
  const view = ed.render(80, PROMPT);
  assert.deepEqual(view.lines, [
    "› /mode",
    "  /mode    Set mode",
    "  /model   Switch model",
    "  /models  List models",
  ]);
  assert.equal(view.menuRow, 1);
  assert.equal(view.selectedRow, 1);
});

Deno.test("Tab and Down move in the menu, Up moves back, Enter accepts without submitting", () => {
  const ed = editor({ complete: slash });
  type(ed, "/mo\t");
  press(ed, k("tab"), k("down"));
  assert.equal(ed.render(80, PROMPT).selectedRow, 3);
  press(ed, k("up"));
  assert.equal(ed.render(80, PROMPT).selectedRow, 2);
  assert.deepEqual(type(ed, "\r"), []);
  assert.equal(shown(ed), "/model |");
  assert.equal(ed.menuOpen, false);
  assert.deepEqual(type(ed, "gpt\r"), [{ kind: "submit", text: "/model gpt" }]);
});

Deno.test("Escape closes the menu and keeps the text; typing closes it and inserts", () => {
  const ed = editor({ complete: slash });
  type(ed, "/mo\t");
  press(ed, k("escape"));
  assert.equal(ed.menuOpen, false);
  assert.equal(shown(ed), "/mode|");
  press(ed, k("tab"));
  assert.equal(ed.menuOpen, true);
  type(ed, "l");
  assert.equal(ed.menuOpen, false);
  assert.equal(shown(ed), "/model|");
});

Deno.test("the menu shows at most 8 rows and '… N more', scrolling to the selection", () => {
  const many: Completer = (_text, cursor) => ({
    start: 0,
    end: cursor,
    candidates: Array.from(
      { length: 12 },
      (_, i) => ({ value: `/s${String(i).padStart(2, "0")}` }),
    ),
  });
  const ed = editor({ complete: many });
  type(ed, "/s\t");
  let view = ed.render(40, PROMPT);
  assert.equal(view.lines.length, 1 + 8 + 1);
  assert.equal(view.lines.at(-1), "  … 4 more");
  for (let i = 0; i < 9; i++) press(ed, k("tab"));
  view = ed.render(40, PROMPT);
  assert.equal(view.lines[view.selectedRow!], "  /s09");
  assert.equal(view.lines[view.menuRow!], "  /s02");
});

Deno.test("Tab with no completer or no candidates changes nothing", () => {
  const ed = editor();
  type(ed, "abc\t");
  assert.equal(shown(ed), "abc|");
  const none = editor({ complete: slash });
  type(none, "/zzz\t");
  assert.equal(shown(none), "/zzz|");
  assert.equal(none.menuOpen, false);
});

Deno.test("render puts the prompt on the first row and indents continuation rows", () => {
  const ed = editor();
  ed.set("one\ntwo", 5);
  assert.deepEqual(ed.render(80, PROMPT), {
    lines: ["› one", "  two"],
    cursorRow: 1,
    cursorCol: 3,
  });
});

Deno.test("render soft-wraps long lines at the width, counting wide characters as 2", () => {
  const ed = editor();
  ed.set("abcdefghij");
  assert.deepEqual(ed.render(6, PROMPT).lines, ["› abcd", "  efgh", "  ij"]);
  ed.set("日本語のテキスト");
  const view = ed.render(8, PROMPT);
  assert.deepEqual(view.lines, ["› 日本語", "  のテキ", "  スト"]);
  for (const line of view.lines) assert.ok(displayWidth(line) <= 8);
  assert.deepEqual([view.cursorRow, view.cursorCol], [2, 6]);
});

Deno.test("the cursor at the end of a full row goes to the start of the next row", () => {
  const ed = editor();
  ed.set("abcd");
  assert.deepEqual(ed.render(6, PROMPT), { lines: ["› abcd", "  "], cursorRow: 1, cursorCol: 2 });
  ed.set("abcdef", 4);
  assert.deepEqual(ed.render(6, PROMPT), { lines: ["› abcd", "  ef"], cursorRow: 1, cursorCol: 2 });
});

Deno.test("render shows tabs as spaces and control characters as ^X", () => {
  const ed = editor();
  ed.set("a\tb\x07");
  const view = ed.render(40, PROMPT);
  assert.deepEqual(view.lines, ["› a    b^G"]);
  assert.equal(view.cursorCol, 2 + 8);
});

Deno.test("the cursor steps over emoji sequences, flags and combining marks whole", () => {
  const ed = editor();
  const text = "a👩‍💻🇯🇵e\u0301☺️b";
  ed.set(text, 0);
  const stops: number[] = [];
  for (let i = 0; i < 7; i++) {
    press(ed, k("right"));
    stops.push(ed.cursor);
  }
  assert.deepEqual(stops, [1, 6, 10, 12, 14, 15, 15]);
  const back: number[] = [];
  for (let i = 0; i < 7; i++) {
    press(ed, k("left"));
    back.push(ed.cursor);
  }
  assert.deepEqual(back, [14, 12, 10, 6, 1, 0, 0]);
});

Deno.test("the cursor column counts emoji and flags as 2 and combining marks as 0", () => {
  const ed = editor();
  ed.set("a👩‍💻🇯🇵e\u0301☺️b");
  assert.equal(ed.render(80, PROMPT).cursorCol, 2 + 1 + 2 + 2 + 1 + 2 + 1);
});

Deno.test("set clamps the cursor and clear empties the buffer", () => {
  const ed = editor();
  ed.set("abc", 99);
  assert.equal(ed.cursor, 3);
  ed.set("abc", -4);
  assert.equal(ed.cursor, 0);
  ed.clear();
  assert.equal(shown(ed), "|");
});

Deno.test("a failed history write is reported and the entry still recalled", async () => {
  const history = await History.load("/proc/herald-no-such-dir/history");
  const reported = Promise.withResolvers<unknown>();
  const ed = editor({ history, onHistoryError: reported.resolve });
  type(ed, "kept\r");
  assert.ok(await reported.promise instanceof Error);
  press(ed, k("up"));
  assert.equal(ed.text, "kept");
});

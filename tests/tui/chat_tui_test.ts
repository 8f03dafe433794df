/**
 * The interactive chat as a person meets it: `herald chat` behind a real
 * pseudo-terminal, the screen read through a headless terminal emulator,
 * the model a scripted server on 127.0.0.1. Each test keeps a snapshot of
 * the screen in .artifacts/tui/.
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { type ModelServer, startModelServer } from "../fakes/model_server.ts";
import { configureModel } from "../e2e/_herald.ts";
import { tempDir } from "../_helpers.ts";
import { PtyScreen } from "./_pty.ts";

const PROMPT = /^›( |$)/m;

interface ChatSetup {
  home: string;
  work: string;
  server: ModelServer;
}

/** A home whose default model is the scripted server, and an empty working folder. */
async function setup(path: string, server: ModelServer, extra = ""): Promise<ChatSetup> {
  const home = join(path, "home");
  const work = join(path, "work");
  await Deno.mkdir(work, { recursive: true });
  await configureModel(home, server.openaiBaseUrl, extra);
  return { home, work, server };
}

function openChat(s: ChatSetup, args: string[] = ["chat"], extraEnv: Record<string, string> = {}) {
  return PtyScreen.spawn({
    cwd: s.work,
    env: { HERALD_HOME: s.home, HOME: s.home, ...extraEnv },
    args,
  });
}

/** Waits for the prompt with the conversation loaded (the status line names the model). */
async function ready(screen: PtyScreen): Promise<void> {
  await screen.waitFor(PROMPT);
  await screen.waitFor("custom/test-model");
}

/** The user messages of each chat completion request the server received. */
function userMessages(server: ModelServer): string[][] {
  return server.requests
    .filter((request) => request.path.endsWith("/chat/completions"))
    .map((request) =>
      (request.body as { messages: { role: string; content: unknown }[] }).messages
        .filter((message) => message.role === "user")
        .map((message) => String(message.content))
    );
}

Deno.test("tui: the prompt and status line are drawn; Tab completes /bun to /bundles", async () => {
  await using dir = await tempDir();
  await using server = await startModelServer();
  const s = await setup(dir.path, server);
  await using screen = openChat(s);
  await ready(screen);
  await screen.type("/bun");
  screen.press("tab");
  await screen.waitFor(/^› \/bundles/m);
  await screen.snapshot("tab-completes-bundles");
});

Deno.test("tui: Up recalls the last line after a restart", async () => {
  await using dir = await tempDir();
  await using server = await startModelServer({ replies: [{ text: "Hello there." }] });
  const s = await setup(dir.path, server);
  {
    await using screen = openChat(s);
    await ready(screen);
    await screen.type("remember this line");
    screen.press("enter");
    await screen.waitFor("Hello there.");
    await screen.waitFor(PROMPT);
    screen.press("ctrl-d");
    assert.equal((await screen.exited).exitCode, 0);
  }
  await using screen = openChat(s);
  await ready(screen);
  screen.press("up");
  await screen.waitFor(/^› remember this line/m);
  await screen.snapshot("history-after-restart");
});

Deno.test("tui: a pasted 3-line block is one message and one model request", async () => {
  await using dir = await tempDir();
  await using server = await startModelServer({ replies: [{ text: "Got all three." }] });
  const s = await setup(dir.path, server);
  await using screen = openChat(s);
  await ready(screen);
  screen.paste("first line\nsecond line\nthird line");
  await screen.waitFor("third line");
  screen.press("enter");
  await screen.waitFor("Got all three.");
  await screen.snapshot("paste-is-one-message");
  const requests = userMessages(server);
  assert.equal(requests.length, 1, "one model request");
  assert.deepEqual(requests[0], ["first line\nsecond line\nthird line"]);
});

Deno.test("tui: text typed during a streamed answer is queued and sent afterwards as its own turn", async () => {
  await using dir = await tempDir();
  const answer = Array.from({ length: 30 }, (_, i) => `word${i}`).join(" ");
  await using server = await startModelServer({
    replies: [
      { text: answer, chunkSize: 6, chunkDelayMs: 60 },
      { text: "Second answer." },
    ],
  });
  const s = await setup(dir.path, server);
  await using screen = openChat(s);
  await ready(screen);
  await screen.type("tell me something long");
  screen.press("enter");
  await screen.waitFor("word2");
  await screen.type("my follow-up");
  screen.press("enter");
  await screen.waitFor("queued: my follow-up");
  await screen.snapshot("typed-during-answer-queued");
  await screen.waitFor("Second answer.");
  const all = screen.allText();
  const answerStart = all.indexOf("word0");
  const answerEnd = all.indexOf("word29");
  assert.ok(answerStart !== -1 && answerEnd > answerStart, all);
  assert.ok(!all.slice(answerStart, answerEnd).includes("my follow-up"), all);
  const requests = userMessages(server);
  assert.equal(requests.length, 2);
  assert.deepEqual(requests[1].at(-1), "my follow-up");
  await screen.snapshot("typed-during-answer-sent");
});

Deno.test("tui: a command that exits 1 shows as failed with its exit code", async () => {
  await using dir = await tempDir();
  await using server = await startModelServer({
    replies: [
      { toolCalls: [{ name: "terminal", arguments: { command: "echo oops; exit 1" } }] },
      { text: "The command failed." },
    ],
  });
  const s = await setup(dir.path, server);
  await using screen = openChat(s);
  await ready(screen);
  await screen.type("run it");
  screen.press("enter");
  await screen.waitFor("The command failed.");
  const text = screen.allText();
  assert.match(text, /✗ exit 1 · /, "the status line of the block says failed, with the code");
  assert.match(text, /│ oops/, "the output is previewed");
  await screen.snapshot("failed-command");
});

Deno.test("tui: a patch shows a diff", async () => {
  await using dir = await tempDir();
  await using server = await startModelServer({
    replies: [
      {
        toolCalls: [{
          name: "patch",
          arguments: { path: "notes.txt", old_string: "colour: red", new_string: "colour: blue" },
        }],
      },
      { text: "Changed it." },
    ],
  });
  const s = await setup(dir.path, server);
  await Deno.writeTextFile(join(s.work, "notes.txt"), "name: herald\ncolour: red\nsize: 3\n");
  await using screen = openChat(s);
  await ready(screen);
  await screen.type("make it blue");
  screen.press("enter");
  await screen.waitFor("Changed it.");
  const text = screen.allText();
  assert.match(text, /-.*colour: red/);
  assert.match(text, /\+.*colour: blue/);
  await screen.snapshot("patch-diff");
  assert.equal(
    await Deno.readTextFile(join(s.work, "notes.txt")),
    "name: herald\ncolour: blue\nsize: 3\n",
  );
});

Deno.test("tui: a write_file over an existing file shows a diff from the tool's own reading", async () => {
  await using dir = await tempDir();
  await using server = await startModelServer({
    replies: [
      {
        toolCalls: [{
          name: "write_file",
          arguments: { path: "notes.txt", content: "name: herald\ncolour: green\nsize: 3\n" },
        }],
      },
      { text: "Rewrote it." },
    ],
  });
  const s = await setup(dir.path, server);
  await Deno.writeTextFile(join(s.work, "notes.txt"), "name: herald\ncolour: red\nsize: 3\n");
  await using screen = openChat(s);
  await ready(screen);
  await screen.type("make it green");
  screen.press("enter");
  await screen.waitFor("Rewrote it.");
  const text = screen.allText();
  assert.match(text, /-.*colour: red/, "the line the write replaced");
  assert.match(text, /\+.*colour: green/);
  await screen.snapshot("write-diff");
});

Deno.test("tui: one Ctrl-C at an idle prompt asks for another; the second exits", async () => {
  await using dir = await tempDir();
  await using server = await startModelServer();
  const s = await setup(dir.path, server);
  await using screen = openChat(s);
  await ready(screen);
  screen.press("ctrl-c");
  await screen.waitFor("Press Ctrl-C again to exit");
  await screen.snapshot("ctrl-c-once");
  // Still running: typing works.
  await screen.type("still here");
  await screen.waitFor(/^› still here/m);
  screen.press("ctrl-c"); // clears the input
  await screen.waitFor((sc) => !sc.text().includes("still here"));
  screen.press("ctrl-c");
  await screen.waitFor("Press Ctrl-C again to exit");
  screen.press("ctrl-c");
  const exit = await screen.exited;
  assert.equal(exit.exitCode, 0);
});

Deno.test("tui: Markdown is rendered, /usage and /tools answer, and a resumed session shows a recap", async () => {
  await using dir = await tempDir();
  await using server = await startModelServer({
    replies: [{
      text: "# Plan\n\nThis is **bold** and `code`.\n\n- one\n- two\n\n```ts\nconst x = 1;\n```\n",
    }],
  });
  const s = await setup(dir.path, server);
  {
    await using screen = openChat(s);
    await ready(screen);
    await screen.type("make a plan");
    screen.press("enter");
    await screen.waitFor("const x = 1;");
    const text = screen.allText();
    assert.ok(!text.includes("**bold**"), "the markers are not shown");
    assert.ok(!text.includes("```"), "the fence is not shown");
    await screen.snapshot("markdown");
    await screen.type("/usage");
    screen.press("enter");
    await screen.waitFor("Context:");
    await screen.type("/tools");
    screen.press("enter");
    await screen.waitFor("read_file");
    await screen.snapshot("usage-and-tools");
    await screen.type("/exit");
    screen.press("enter");
    assert.equal((await screen.exited).exitCode, 0);
  }
  await using screen = openChat(s, ["-c"]);
  await screen.waitFor("where you left off");
  await screen.waitFor("make a plan");
  await screen.snapshot("resume-recap");
});

Deno.test("tui: a dangerous command asks in the TUI and a denial is shown", async () => {
  await using dir = await tempDir();
  await using server = await startModelServer({
    replies: [
      { toolCalls: [{ name: "terminal", arguments: { command: "rm -rf build" } }] },
      { text: "Understood, not deleting." },
    ],
  });
  const s = await setup(dir.path, server);
  await Deno.mkdir(join(s.work, "build"));
  await using screen = openChat(s);
  await ready(screen);
  await screen.type("clean up");
  screen.press("enter");
  await screen.waitFor("wants to run a dangerous command");
  await screen.snapshot("approval-dialog");
  // A deliberate key press: the question ignores keys in its first moments.
  await new Promise((resolve) => setTimeout(resolve, 500));
  await screen.type("d");
  await screen.waitFor("Understood, not deleting.");
  assert.ok((await Deno.stat(join(s.work, "build"))).isDirectory, "nothing was deleted");
});

Deno.test("tui: the spinner says when a request is retried, and for how long", async () => {
  await using dir = await tempDir();
  await using server = await startModelServer({
    replies: [
      { status: 503, message: "Overloaded.", headers: { "retry-after-ms": "2500" } },
      { text: "Back again." },
    ],
  });
  const s = await setup(dir.path, server);
  await using screen = openChat(s);
  await ready(screen);
  await screen.type("hello");
  screen.press("enter");
  await screen.waitFor(/retrying in [23] s, attempt 2 of \d/);
  await screen.snapshot("retrying");
  await screen.waitFor("Back again.");
});

Deno.test("tui: with no model set up, herald says to run herald setup and exits 1", async () => {
  await using dir = await tempDir();
  const home = join(dir.path, "home");
  await using screen = PtyScreen.spawn({
    cwd: dir.path,
    env: { HERALD_HOME: home, HOME: home },
    args: [],
  });
  await screen.waitFor("run `herald setup`");
  await screen.snapshot("no-model");
  assert.equal((await screen.exited).exitCode, 1);
});

Deno.test("tui: Ctrl-C stops a streamed answer, and queued messages return to the input box", async () => {
  await using dir = await tempDir();
  const answer = Array.from({ length: 200 }, (_, i) => `w${i}`).join(" ");
  await using server = await startModelServer({
    replies: [{ text: answer, chunkSize: 4, chunkDelayMs: 50 }],
  });
  const s = await setup(dir.path, server);
  await using screen = openChat(s);
  await ready(screen);
  await screen.type("go on and on");
  screen.press("enter");
  await screen.waitFor("w3");
  await screen.type("next question");
  screen.press("enter");
  await screen.waitFor("queued: next question");
  screen.press("ctrl-c");
  await screen.waitFor("(interrupted)");
  await screen.waitFor(/^› next question/m);
  await screen.snapshot("interrupted-queue-restored");
  assert.ok(!screen.allText().includes("w199"), "the answer stopped");
  assert.equal(userMessages(server).length, 1, "the queued message was not sent");
});

Deno.test("tui: text typed while an approval question appears does not answer it", async () => {
  await using dir = await tempDir();
  await using server = await startModelServer({
    replies: [
      { toolCalls: [{ name: "terminal", arguments: { command: "rm -rf build" } }] },
      { text: "Left it alone." },
    ],
  });
  const s = await setup(dir.path, server);
  await Deno.mkdir(join(s.work, "build"));
  await using screen = openChat(s);
  await ready(screen);
  await screen.type("clean up");
  screen.press("enter");
  await screen.waitFor("wants to run a dangerous command");
  // A sentence starting with "a" (always), as if the user kept typing for the queue.
  screen.write("also tell me more");
  // The spinner keeps drawing, so the screen never settles: give the keys time to arrive.
  await new Promise((resolve) => setTimeout(resolve, 800));
  assert.match(screen.text(), /wants to run a dangerous command/, "the question is still open");
  assert.ok((await Deno.stat(join(s.work, "build"))).isDirectory, "nothing was approved");
  screen.press("escape");
  await screen.waitFor("Left it alone.");
  // What was typed is kept in the input box, not lost.
  await screen.waitFor(/^› also tell me more/m);
  await screen.snapshot("approval-typing-goes-to-input");
  assert.ok((await Deno.stat(join(s.work, "build"))).isDirectory, "denied: still there");
  const config = await Deno.readTextFile(join(s.home, "config.yaml"));
  assert.ok(!config.includes("rm_recursive"), "no rule was saved");
});

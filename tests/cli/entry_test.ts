/**
 * The peer entry points: global options anywhere (`-C`, `-p`), bare
 * `herald`, `herald "prompt"`, `herald -c`, typo'd commands, `-v`, and
 * errors as JSON with `--json`. Routing is unit-tested on argv; the prompt
 * paths run in-process against the scripted model server.
 */

import assert from "node:assert/strict";
import { captureOutput, run } from "../../cli/app.ts";
import {
  type EntryTree,
  extractGlobalArgs,
  hasJsonFlag,
  nearCommand,
  routeEntry,
} from "../../cli/argv.ts";
import { reportError } from "../../cli/errors.ts";
import { OutputClosedError } from "../../cli/io.ts";
import { HeraldError } from "../../core/errors.ts";
import { CommanderError } from "commander";
import { startModelServer } from "../fakes/model_server.ts";
import { configureModel } from "../e2e/_herald.ts";
import { tempDir } from "../_helpers.ts";

const TREE: EntryTree = {
  commands: ["chat", "resume", "sessions", "config", "doctor", "profile", "help", "completion"],
  programFlags: ["--safe-mode"],
  chatOptions: [
    { flags: ["-q", "--query"], takesValue: true },
    { flags: ["--json"], takesValue: false },
    { flags: ["-m", "--model"], takesValue: true },
    { flags: ["--yolo"], takesValue: false },
  ],
  subcommands: { config: ["show", "get", "set"], sessions: ["list", "show"] },
};

function stdin(text: string): () => ReadableStream<Uint8Array> {
  return () =>
    new ReadableStream({
      start(controller) {
        if (text !== "") controller.enqueue(new TextEncoder().encode(text));
        controller.close();
      },
    });
}

async function herald(
  home: string,
  argv: string[],
  terminal?: { input?: string; interactive?: boolean },
) {
  const io = captureOutput();
  const code = await run(argv, {
    io,
    env: { HERALD_HOME: home, HOME: "/nonexistent" },
    terminal: terminal && {
      input: stdin(terminal.input ?? ""),
      interactive: terminal.interactive ?? false,
    },
  });
  return { code, stdout: io.stdout, stderr: io.stderr };
}

/** The user messages the model server was sent, first request of each turn. */
function userPrompts(requests: { body: unknown }[]): string[] {
  return requests.map((request) => {
    const messages = (request.body as { messages: { role: string; content: unknown }[] }).messages;
    return String(messages.filter((m) => m.role === "user").at(-1)?.content);
  });
}

Deno.test("-C and --cd are taken out of argv in any position, like -p", () => {
  assert.deepEqual(extractGlobalArgs(["-C", "../app", "sessions", "list"]), {
    profile: undefined,
    cd: "../app",
    rest: ["sessions", "list"],
  });
  assert.equal(extractGlobalArgs(["sessions", "--cd", "/w", "list"]).cd, "/w");
  assert.equal(extractGlobalArgs(["--cd=/x", "doctor"]).cd, "/x");
  assert.equal(extractGlobalArgs(["-C/y", "doctor"]).cd, "/y");
  assert.equal(extractGlobalArgs(["-C", "a", "-C", "b"]).cd, "b");
  assert.deepEqual(extractGlobalArgs(["-p", "w", "-C", "d", "x"]), {
    profile: "w",
    cd: "d",
    rest: ["x"],
  });
  assert.deepEqual(extractGlobalArgs(["--", "-C", "d"]).rest, ["--", "-C", "d"]);
  assert.throws(() => extractGlobalArgs(["doctor", "-C"]), /Option -C needs a folder/);
  assert.throws(() => extractGlobalArgs(["--cd", "--"]), /Option --cd needs a folder/);
});

Deno.test("-pX and -CX count only before the command or prompt: after it they are text", () => {
  assert.deepEqual(extractGlobalArgs(["chat", "-q", "-Cool stuff"]), {
    profile: undefined,
    rest: ["chat", "-q", "-Cool stuff"],
  });
  assert.deepEqual(extractGlobalArgs(["sessions", "rename", "x", "-pfoo"]), {
    profile: undefined,
    rest: ["sessions", "rename", "x", "-pfoo"],
  });
  assert.deepEqual(extractGlobalArgs(["fix", "-Cthis", "-pthat"]).rest, [
    "fix",
    "-Cthis",
    "-pthat",
  ]);
  // Before the first word, and the spaced and long forms anywhere, still count.
  assert.deepEqual(extractGlobalArgs(["-pwork", "-C/src", "--json", "sessions", "list"]), {
    profile: "work",
    cd: "/src",
    rest: ["--json", "sessions", "list"],
  });
  assert.deepEqual(extractGlobalArgs(["chat", "-q", "hi", "-p", "w", "-C", "d"]), {
    profile: "w",
    cd: "d",
    rest: ["chat", "-q", "hi"],
  });
  assert.deepEqual(extractGlobalArgs(["chat", "--profile=w", "--cd=d"]), {
    profile: "w",
    cd: "d",
    rest: ["chat"],
  });
  assert.equal(extractGlobalArgs(["sessions", "--profile", "w", "list"]).profile, "w");
});

Deno.test("a prompt that starts with -C reaches the model as typed", async () => {
  await using home = await tempDir();
  await using server = await startModelServer({ replies: [{ text: "noted" }] });
  await configureModel(home.path, server.openaiBaseUrl);
  const io = captureOutput();
  const code = await run(["chat", "-q", "-Cool stuff"], {
    io,
    env: { HERALD_HOME: home.path, HOME: "/nonexistent" },
  });
  assert.equal(code, 0, io.stderr);
  assert.deepEqual(userPrompts(server.requests), ["-Cool stuff"]);
});

Deno.test("--json counts only before a -- terminator", () => {
  assert.equal(hasJsonFlag(["sessions", "list", "--json"]), true);
  assert.equal(hasJsonFlag(["chat", "-q", "x"]), false);
  assert.equal(hasJsonFlag(["config", "set", "k", "--", "--json"]), false);
});

Deno.test("a command name first goes to the command tree as typed", () => {
  for (
    const argv of [
      ["sessions", "list", "--json"],
      ["--safe-mode", "chat"],
      ["resume"],
      ["help", "sessions"],
      ["--help"],
      ["--bogus"],
      ["--bogus", "hello there"],
    ]
  ) {
    assert.deepEqual(routeEntry(argv, TREE, true), { kind: "command", argv }, argv.join(" "));
  }
});

Deno.test("bare herald is the chat on a terminal and one prompt from piped input", () => {
  assert.deepEqual(routeEntry([], TREE, true), { kind: "command", argv: ["chat"] });
  assert.deepEqual(routeEntry([], TREE, false), { kind: "stdin", argv: ["chat"] });
  assert.deepEqual(routeEntry(["--safe-mode", "-m", "big"], TREE, true), {
    kind: "command",
    argv: ["--safe-mode", "chat", "-m", "big"],
  });
  assert.deepEqual(routeEntry(["--json"], TREE, false), {
    kind: "stdin",
    argv: ["chat", "--json"],
  });
  // A question given with -q is not read from standard input as well.
  assert.deepEqual(routeEntry(["-q", "hi"], TREE, false), {
    kind: "command",
    argv: ["chat", "-q", "hi"],
  });
});

Deno.test("words that are not a command become one chat -q prompt, options kept", () => {
  assert.deepEqual(routeEntry(["read notes.txt"], TREE, true), {
    kind: "command",
    argv: ["chat", "-q", "read notes.txt"],
  });
  assert.deepEqual(routeEntry(["read", "notes.txt", "--json"], TREE, false), {
    kind: "command",
    argv: ["chat", "--json", "-q", "read notes.txt"],
  });
  assert.deepEqual(routeEntry(["-m", "big", "--model=x", "fix", "it"], TREE, true), {
    kind: "command",
    argv: ["chat", "-m", "big", "--model=x", "-q", "fix it"],
  });
  assert.deepEqual(routeEntry(["frobnicate"], TREE, true), {
    kind: "command",
    argv: ["chat", "-q", "frobnicate"],
  });
  // A real word two edits from a command (hello, help) is a prompt, not a typo.
  assert.deepEqual(routeEntry(["hello"], TREE, true), {
    kind: "command",
    argv: ["chat", "-q", "hello"],
  });
  assert.deepEqual(routeEntry(["--", "chta"], TREE, true), {
    kind: "command",
    argv: ["chat", "-q", "chta"],
  });
  assert.deepEqual(routeEntry(["--", "sessions", "-v"], TREE, true), {
    kind: "command",
    argv: ["chat", "-q", "sessions -v"],
  });
  assert.throws(() => routeEntry([" "], TREE, true), /The prompt is empty/);
});

Deno.test("-c and --continue go to chat --continue, with or without a prompt", () => {
  assert.deepEqual(routeEntry(["-c"], TREE, true), {
    kind: "command",
    argv: ["chat", "--continue"],
  });
  assert.deepEqual(routeEntry(["--continue"], TREE, false), {
    kind: "stdin",
    argv: ["chat", "--continue"],
  });
  assert.deepEqual(routeEntry(["-c", "now", "add", "tests"], TREE, true), {
    kind: "command",
    argv: ["chat", "--continue", "-q", "now add tests"],
  });
  // After -c every word is the prompt, even one that names a command.
  assert.deepEqual(routeEntry(["-c", "sessions"], TREE, true), {
    kind: "command",
    argv: ["chat", "--continue", "-q", "sessions"],
  });
});

Deno.test("-v, -V and --version print the version", () => {
  for (const flag of ["-v", "-V", "--version"]) {
    assert.deepEqual(routeEntry([flag], TREE, true), { kind: "version" });
    assert.deepEqual(routeEntry(["--safe-mode", flag], TREE, false), { kind: "version" });
  }
});

Deno.test("a single word close to a command is refused with the command and the way to send it", () => {
  assert.equal(nearCommand("chta", TREE.commands), "chat");
  assert.equal(nearCommand("Sesions", TREE.commands), "sessions");
  assert.equal(nearCommand("summarise", TREE.commands), undefined);
  assert.throws(
    () => routeEntry(["chta"], TREE, true),
    (error: Error & { code?: string; kind?: string }) => {
      assert.equal(error.code, "unknown_command");
      assert.equal(error.kind, "usage");
      assert.equal(
        error.message,
        'Unknown command "chta"; did you mean `herald chat`? ' +
          'To send "chta" to the agent as a prompt, run `herald -- chta`',
      );
      return true;
    },
  );
  // Followed by one of that command's subcommands, it is the same typo.
  assert.throws(
    () => routeEntry(["confg", "show", "--json"], TREE, true),
    new RegExp(
      'Unknown command "confg"; did you mean `herald config`\\? ' +
        'To send "confg show" to the agent as a prompt, run `herald -- confg show`$',
    ),
  );
  assert.throws(() => routeEntry(["sesions", "list"], TREE, true), /`herald sessions`/);
  // Two words otherwise, or one with spaces, are a sentence: a prompt.
  assert.deepEqual(routeEntry(["chta", "now"], TREE, true), {
    kind: "command",
    argv: ["chat", "-q", "chta now"],
  });
  assert.equal(routeEntry(["confg", "everything"], TREE, true).kind, "command");
  assert.deepEqual(routeEntry(["chta now"], TREE, true), {
    kind: "command",
    argv: ["chat", "-q", "chta now"],
  });
});

Deno.test("herald chta exits 2 with the suggestion and asks no model", async () => {
  await using home = await tempDir();
  const result = await herald(home.path, ["chta"]);
  assert.equal(result.code, 2);
  assert.equal(result.stdout, "");
  assert.match(result.stderr, /^herald: Unknown command "chta"; did you mean `herald chat`\?/);
  assert.match(result.stderr, /`herald -- chta`\n$/);
});

Deno.test('herald "prompt" and piped input run one turn and print the answer', async () => {
  await using home = await tempDir();
  await using model = await startModelServer({
    replies: [{ text: "first answer" }, { text: "second answer" }, { text: "third" }],
  });
  await configureModel(home.path, model.openaiBaseUrl);

  const worded = await herald(home.path, ["what", "is", "here?"]);
  assert.equal(worded.code, 0, worded.stderr);
  assert.equal(worded.stdout, "first answer\n");

  const piped = await herald(home.path, [], { input: "summarise this\nplease\n\n" });
  assert.equal(piped.code, 0, piped.stderr);
  assert.equal(piped.stdout, "second answer\n");

  const json = JSON.parse((await herald(home.path, ["--json"], { input: "as json" })).stdout);
  assert.equal(json.response, "third");
  assert.deepEqual(userPrompts(model.requests), [
    "what is here?",
    "summarise this\nplease",
    "as json",
  ]);
});

Deno.test("bare herald with empty piped input is a usage error that says what to do", async () => {
  await using home = await tempDir();
  for (const input of ["", "  \n\n"]) {
    const result = await herald(home.path, [], { input });
    assert.equal(result.code, 2);
    assert.equal(result.stdout, "");
    assert.match(result.stderr, /^herald: Standard input was empty, so there is no prompt to run/);
    assert.match(result.stderr, /herald "your prompt"/);
  }
});

Deno.test("-v and -V print the version line", async () => {
  await using home = await tempDir();
  for (const flag of ["-v", "-V"]) {
    const result = await herald(home.path, [flag]);
    assert.equal(result.code, 0);
    assert.match(result.stdout, /^herald \d+\.\d+\.\d+ \(([0-9a-f]{12}|unknown)\)\n$/);
  }
});

Deno.test("-C to a missing path or a file is a usage error naming the path", async () => {
  await using home = await tempDir();
  const file = `${home.path}/plain.txt`;
  await Deno.writeTextFile(file, "x");
  const cwd = Deno.cwd();
  const missing = await herald(home.path, ["sessions", "list", "-C", `${home.path}/nope`]);
  assert.equal(missing.code, 2);
  assert.equal(missing.stderr, `herald: Cannot run in "${home.path}/nope" (-C): no such folder\n`);
  const notFolder = await herald(home.path, ["--cd", file, "doctor"]);
  assert.equal(notFolder.code, 2);
  assert.equal(notFolder.stderr, `herald: Cannot run in "${file}" (-C): not a folder\n`);
  assert.equal(Deno.cwd(), cwd);
});

Deno.test("-C moves to the folder before the command runs", async () => {
  await using home = await tempDir();
  await using work = await tempDir();
  const cwd = Deno.cwd();
  try {
    const result = await herald(home.path, ["-C", work.path, "--version"]);
    assert.equal(result.code, 0);
    assert.equal(Deno.realPathSync(Deno.cwd()), Deno.realPathSync(work.path));
  } finally {
    Deno.chdir(cwd);
  }
});

Deno.test("with --json an error is one JSON line on stdout as well as the exit code", async () => {
  await using home = await tempDir();
  const unknownKey = await herald(home.path, ["config", "get", "nope", "--json"]);
  assert.equal(unknownKey.code, 2);
  assert.deepEqual(JSON.parse(unknownKey.stdout), {
    error: {
      code: "config_unknown_key",
      message: unknownKey.stderr.replace(/^herald: /, "").trimEnd(),
    },
  });
  assert.equal(unknownKey.stdout.split("\n").length, 2);

  const option = await herald(home.path, ["sessions", "list", "--json", "--bogus"]);
  assert.equal(option.code, 2);
  assert.equal(JSON.parse(option.stdout).error.code, "unknown_option");
  assert.match(JSON.parse(option.stdout).error.message, /unknown option '--bogus'/);

  const typo = await herald(home.path, ["--json", "chta"]);
  assert.equal(typo.code, 2);
  assert.equal(JSON.parse(typo.stdout).error.code, "unknown_command");

  const badProfile = await herald(home.path, ["-p", "Bad Name", "doctor", "--json"]);
  assert.equal(badProfile.code, 2);
  assert.equal(JSON.parse(badProfile.stdout).error.code, "profile_name_invalid");

  // Without --json (or after --) stdout stays empty.
  const plain = await herald(home.path, ["config", "get", "nope"]);
  assert.equal(plain.stdout, "");
  assert.equal(plain.code, 2);
});

Deno.test("with --json, a command that already printed its JSON gets no second document", async () => {
  await using home = await tempDir();
  await Deno.writeTextFile(`${home.path}/config.yaml`, "a: [\n");
  const bad = await herald(home.path, ["doctor", "--json"]);
  assert.equal(bad.code, 1);
  assert.equal(JSON.parse(bad.stdout).ok, false);
  assert.match(bad.stderr, /^herald: 1 check failed/);
});

Deno.test("reportError with json prints the code and the one-line message of every kind of error", () => {
  const cases: [unknown, string, number][] = [
    [new HeraldError("profile_missing", "not_found", "No such profile"), "profile_missing", 2],
    [
      new CommanderError(1, "commander.missingArgument", "error: missing argument"),
      "missing_argument",
      2,
    ],
    [new Error("boom\nat line 2"), "internal", 1],
  ];
  for (const [error, code, exit] of cases) {
    const io = captureOutput();
    assert.equal(reportError(error, io, { json: true }), exit);
    const printed = JSON.parse(io.stdout);
    assert.equal(printed.error.code, code);
    assert.equal(`herald: ${printed.error.message}\n`, io.stderr);
    assert.deepEqual(Object.keys(printed.error), ["code", "message"]);
  }
  const quiet = captureOutput();
  assert.equal(reportError(new OutputClosedError(), quiet, { json: true }), 0);
  assert.equal(quiet.stdout + quiet.stderr, "");
});

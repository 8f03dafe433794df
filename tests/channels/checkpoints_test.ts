/**
 * Checkpoints and `/rollback` walked through end to end, as a user on a
 * channel would: the conversation object over a profile's real runtime
 * (checkpoints.enabled in its config.yaml), the scripted model server
 * calling the real write_file and patch tools in a temporary project, once
 * inside a git repository and once outside one. Two turns change files, the
 * user edits one by hand, `/rollback` lists, `/rollback 1` undoes the second
 * turn, a later `/rollback 1` the first; the hand-edit survives, the model
 * never again sees the dropped exchanges, and the repository's `.git` is
 * untouched.
 */

import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { join } from "node:path";
import { createProfile } from "../../adapters/home/mod.ts";
import { openStateStore } from "../../adapters/sqlite/mod.ts";
import { type ModelServer, startModelServer } from "../fakes/model_server.ts";
import { configureModel } from "../e2e/_herald.ts";
import { tempDir } from "../_helpers.ts";
import { openEchoChannel } from "./echo_channel.ts";

const README = "# Demo\n";
const NOTES = "notes the user wrote\n";

async function git(cwd: string, ...args: string[]): Promise<string> {
  const output = await new Deno.Command("git", {
    args: ["-c", "user.name=Test", "-c", "user.email=test@example.com", ...args],
    cwd,
    env: { GIT_CONFIG_NOSYSTEM: "1", HOME: cwd },
    stdout: "piped",
    stderr: "piped",
  }).output();
  const text = new TextDecoder().decode(output.stdout);
  assert.ok(output.success, `git ${args.join(" ")}: ${new TextDecoder().decode(output.stderr)}`);
  return text;
}

/** Every file under `dir` with the SHA-256 of its bytes, and every folder. */
async function digest(dir: string): Promise<string[]> {
  const lines: string[] = [];
  const walk = async (path: string, prefix: string) => {
    for await (const entry of Deno.readDir(path)) {
      const name = `${prefix}/${entry.name}`;
      const full = join(path, entry.name);
      if (entry.isDirectory) {
        lines.push(`${name}/`);
        await walk(full, name);
      } else {
        const hash = createHash("sha256").update(await Deno.readFile(full)).digest("hex");
        lines.push(`${name} ${hash}`);
      }
    }
  };
  await walk(dir, "");
  return lines.sort();
}

async function exists(path: string): Promise<boolean> {
  return await Deno.lstat(path).then(() => true, () => false);
}

/** The user messages of the model request number `index` (0-based). */
function userTexts(model: ModelServer, index: number): string[] {
  const body = model.requests[index].body as { messages: { role: string; content: unknown }[] };
  return body.messages.filter((message) => message.role === "user").map((message) =>
    String(message.content)
  );
}

async function walkThrough(inGitRepo: boolean): Promise<void> {
  await using root = await tempDir();
  await using project = await tempDir("herald-project-");
  const work = project.path;
  await Deno.writeTextFile(join(work, "README.md"), README);
  await Deno.writeTextFile(join(work, "notes.txt"), NOTES);
  if (inGitRepo) {
    await git(work, "init", "-q");
    await git(work, "add", "README.md", "notes.txt");
    await git(work, "commit", "-q", "-m", "start");
  }
  const gitBefore = inGitRepo ? await digest(join(work, ".git")) : [];

  await using model = await startModelServer({
    replies: [
      {
        toolCalls: [
          {
            name: "patch",
            arguments: { path: "README.md", old_string: "# Demo\n", new_string: "# Demo\n\nHi.\n" },
          },
          { name: "write_file", arguments: { path: "greet.txt", content: "hello\n" } },
        ],
      },
      { text: "Added the greeting." },
      {
        toolCalls: [
          { name: "write_file", arguments: { path: "notes.txt", content: "agent notes\n" } },
          { name: "write_file", arguments: { path: "src/new/deep.txt", content: "deep\n" } },
        ],
      },
      { text: "Tuned the notes." },
      { text: "Only the greeting is left." },
      { text: "Starting over." },
    ],
  });
  const paths = await createProfile(root.path, "checkpoints", { bundledSkills: false });
  await configureModel(paths.home, model.openaiBaseUrl, "checkpoints:\n  enabled: true\n");
  const channel = await openEchoChannel(paths, work, "deny");

  await channel.send("add a greeting");
  assert.equal(await Deno.readTextFile(join(work, "README.md")), "# Demo\n\nHi.\n");
  await channel.send("tune the notes");
  assert.equal(await Deno.readTextFile(join(work, "notes.txt")), "agent notes\n");
  assert.equal(await Deno.readTextFile(join(work, "src", "new", "deep.txt")), "deep\n");
  await Deno.writeTextFile(join(work, "greet.txt"), "hello from the user\n");

  await channel.send("/rollback");
  const listing = channel.transcript.at(-1)!;
  assert.match(listing, /^< Checkpoints of this session \(newest first\):/);
  assert.match(
    listing,
    /\n {2}1\. \d{4}-\d\d-\d\d \d\d:\d\d {2}"tune the notes" {2}\(notes\.txt, src\/new\/deep\.txt\)/,
  );
  assert.match(
    listing,
    /\n {2}2\. \d{4}-\d\d-\d\d \d\d:\d\d {2}"add a greeting" {2}\(README\.md, greet\.txt\)/,
  );

  await channel.send("/rollback 1");
  const first = channel.transcript.at(-1)!;
  assert.match(first, /^< Rolled back checkpoint 1 \("tune the notes", /);
  assert.match(first, /\nRestored: notes\.txt\n/);
  assert.match(first, /\nRemoved \(created since\): src\/new\/deep\.txt/);
  assert.doesNotMatch(first, /hand-edits/);
  assert.equal(await Deno.readTextFile(join(work, "notes.txt")), NOTES);
  assert.equal(await exists(join(work, "src")), false, "the folders made for deep.txt are gone");
  assert.equal(await Deno.readTextFile(join(work, "README.md")), "# Demo\n\nHi.\n");

  await channel.send("what is left?");
  assert.deepEqual(userTexts(model, 4), ["add a greeting", "what is left?"]);

  await channel.send("/rollback 1");
  const second = channel.transcript.at(-1)!;
  assert.match(second, /^< Rolled back checkpoint 1 \("add a greeting", /);
  assert.match(second, /: 2 exchanges dropped/, "the later turn without a checkpoint goes too");
  assert.match(second, /\nRestored: README\.md/);
  assert.match(second, /\nKept your hand-edits \(not overwritten\): greet\.txt/);
  assert.equal(await Deno.readTextFile(join(work, "README.md")), README);
  assert.equal(await Deno.readTextFile(join(work, "greet.txt")), "hello from the user\n");

  await channel.send("/rollback");
  assert.match(channel.transcript.at(-1)!, /No checkpoints in this session:/);
  await channel.send("/rollback 3");
  assert.match(channel.transcript.at(-1)!, /has no checkpoints to roll back/);

  await channel.send("start over");
  assert.deepEqual(userTexts(model, 5), ["start over"], "the dropped exchanges are never sent");
  assert.equal(model.requests.length, 6);

  const store = openStateStore(paths.stateDb);
  try {
    const [session] = store.listSessions();
    const stored = store.getMessages(session.id);
    assert.deepEqual(stored.map((message) => [message.role, message.content]), [
      ["user", "start over"],
      ["assistant", "Starting over."],
    ]);
    assert.equal(store.getSession(session.id)?.messageCount, 2);
    assert.equal(store.getSession(session.id)?.toolCallCount, 0);
  } finally {
    store.close();
  }

  if (inGitRepo) {
    assert.deepEqual(await digest(join(work, ".git")), gitBefore, ".git is untouched");
    assert.equal(await git(work, "status", "--porcelain"), "?? greet.txt\n");
  } else {
    assert.equal(await exists(join(work, ".git")), false, "no repository is made");
  }
  const checkpoints = join(paths.home, "checkpoints");
  assert.ok(await exists(checkpoints), "checkpoints live in the profile home");
  await channel.send("/exit");
}

Deno.test("checkpoint, rollback and a kept hand-edit walk through in a git repository", async () => {
  await walkThrough(true);
});

Deno.test("checkpoint, rollback and a kept hand-edit walk through outside a git repository", async () => {
  await walkThrough(false);
});

Deno.test("with checkpoints off, /rollback says how to turn them on and nothing is kept", async () => {
  await using root = await tempDir();
  await using project = await tempDir("herald-project-");
  await using model = await startModelServer({
    replies: [
      { toolCalls: [{ name: "write_file", arguments: { path: "a.txt", content: "a\n" } }] },
      { text: "Wrote a." },
    ],
  });
  const paths = await createProfile(root.path, "plain", { bundledSkills: false });
  await configureModel(paths.home, model.openaiBaseUrl);
  const channel = await openEchoChannel(paths, project.path, "deny");
  await channel.send("write a");
  await channel.send("/rollback 1");
  assert.match(channel.transcript.at(-1)!, /Checkpoints are off.*checkpoints\.enabled true/);
  assert.equal(await Deno.readTextFile(join(project.path, "a.txt")), "a\n");
  assert.equal(await exists(join(paths.home, "checkpoints")), false);
  await channel.send("/exit");
});

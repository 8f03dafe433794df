/**
 * The per-file lock: callers in one process take turns, a real second
 * `deno` process holding the lock makes this one wait (and its change is
 * seen), and a holder that exits or is killed frees the lock at once.
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { lockFilePath, updateTextFile, withFileLock } from "../../../adapters/fs/mod.ts";
import { FileLockTimeoutError } from "../../../core/errors.ts";
import { REPO_ROOT, tempDir } from "../../_helpers.ts";

const HOLDER = new URL("./_lock_holder.ts", import.meta.url).pathname;

const delay = (ms: number) => new Promise((done) => setTimeout(done, ms));

/** A `_lock_holder.ts` process: send it lines, read its lines. */
interface Holder extends AsyncDisposable {
  readonly child: Deno.ChildProcess;
  send(line: string): Promise<void>;
  /** The next line it printed, or null when its output ended. */
  next(): Promise<string | null>;
}

function spawnHelper(args: string[]): Holder {
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", "--allow-all", "--quiet", HOLDER, ...args],
    cwd: REPO_ROOT,
    stdin: "piped",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const stderr = new Response(child.stderr).text();
  const writer = child.stdin.getWriter();
  const reader = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  let buffered = "";
  let ended = false;
  const next = async () => {
    while (!buffered.includes("\n")) {
      const { value, done } = await reader.read();
      if (done) {
        ended = true;
        return null;
      }
      buffered += value;
    }
    const line = buffered.slice(0, buffered.indexOf("\n"));
    buffered = buffered.slice(line.length + 1);
    return line;
  };
  return {
    child,
    next,
    async send(line) {
      await writer.write(new TextEncoder().encode(`${line}\n`));
    },
    async [Symbol.asyncDispose]() {
      await writer.close().catch(() => {});
      try {
        child.kill("SIGKILL");
      } catch {
        // Already gone.
      }
      while (!ended && (await next()) !== null) { /* drain */ }
      await child.status;
      await stderr;
    },
  };
}

/** Starts a process that holds the lock of `file` until told otherwise. */
async function holdInOtherProcess(file: string): Promise<Holder> {
  const holder = spawnHelper(["hold", file]);
  const first = await holder.next();
  if (first !== "locked") {
    await holder[Symbol.asyncDispose]();
    throw new Error(`the holder process did not take the lock (printed ${first})`);
  }
  return holder;
}

async function names(dir: string): Promise<string[]> {
  const found: string[] = [];
  for await (const entry of Deno.readDir(dir)) found.push(entry.name);
  return found.sort();
}

Deno.test("callers in one process take turns on one file and every change is kept", async () => {
  await using dir = await tempDir();
  const file = join(dir.path, "counter.txt");
  let inside = 0;
  let most = 0;
  await Promise.all(Array.from({ length: 50 }, () =>
    updateTextFile(file, async (text) => {
      inside++;
      most = Math.max(most, inside);
      await delay(1);
      inside--;
      return String(Number(text || "0") + 1);
    })));
  assert.equal(await Deno.readTextFile(file), "50");
  assert.equal(most, 1);
  assert.deepEqual(await names(dir.path), ["counter.txt"], "no lock or temp file is left");
});

Deno.test("different files do not wait on each other", async () => {
  await using dir = await tempDir();
  let entered!: () => void;
  const inside = new Promise<void>((done) => entered = done);
  let release!: () => void;
  const released = new Promise<void>((done) => release = done);
  const holding = withFileLock(join(dir.path, "a.yaml"), async () => {
    entered();
    await released;
  });
  await inside;
  assert.equal(await withFileLock(join(dir.path, "b.yaml"), () => "b done"), "b done");
  release();
  await holding;
});

Deno.test("the lock is released when the locked function throws, and the sidecar is 0600", async () => {
  await using dir = await tempDir();
  const file = join(dir.path, "config.yaml");
  await assert.rejects(
    withFileLock(file, async () => {
      assert.equal((await Deno.stat(lockFilePath(file))).mode! & 0o777, 0o600);
      throw new RangeError("planned failure");
    }),
    RangeError,
  );
  assert.equal(await withFileLock(file, () => "again"), "again");
  assert.equal(lockFilePath(join(dir.path, ".env")), join(dir.path, ".env.lock"));
  assert.equal(lockFilePath(file), join(dir.path, ".config.yaml.lock"));
});

Deno.test("taking the lock of a file again inside its own section is an error, not a hang", async () => {
  await using dir = await tempDir();
  const file = join(dir.path, "config.yaml");
  await assert.rejects(
    withFileLock(file, () => withFileLock(file, () => "never")),
    (error: Error) => error instanceof TypeError && /not re-entrant/.test(error.message),
  );
  assert.equal(await withFileLock(file, () => "free"), "free");
});

Deno.test("a second process holding the lock makes this one wait, and its change is kept", async () => {
  await using dir = await tempDir();
  const file = join(dir.path, ".env");
  await Deno.writeTextFile(file, "A=1\n");
  await using holder = await holdInOtherProcess(file);
  let entered = false;
  const mine = updateTextFile(file, (text) => {
    entered = true;
    return text + "C=3\n";
  });
  await delay(300);
  assert.equal(entered, false, "this process waits while the other holds the lock");
  await holder.send("append B=2\\n");
  assert.equal(await holder.next(), "appended");
  await holder.send("release");
  await mine;
  assert.equal(await holder.next(), "released");
  assert.equal(await Deno.readTextFile(file), "A=1\nB=2\nC=3\n");
  assert.deepEqual(await names(dir.path), [".env"]);
});

Deno.test("waiting on a lock another process keeps gives up after the timeout with the file named", async () => {
  await using dir = await tempDir();
  const file = join(dir.path, "config.yaml");
  await Deno.writeTextFile(file, "agent: {}\n");
  await using holder = await holdInOtherProcess(file);
  await assert.rejects(
    updateTextFile(file, () => "lost\n", { timeoutMs: 150 }),
    (error: Error) =>
      error instanceof FileLockTimeoutError && error.code === "file_lock_timeout" &&
      error.message.includes(file),
  );
  assert.equal(await Deno.readTextFile(file), "agent: {}\n");
  await holder.send("release");
  assert.equal(await holder.next(), "released");
});

Deno.test("a holder that exits without releasing, or is killed, does not wedge the others", async () => {
  await using dir = await tempDir();
  const file = join(dir.path, "profile.yaml");
  {
    await using holder = await holdInOtherProcess(file);
    await holder.send("exit");
    assert.equal((await holder.child.status).code, 3);
  }
  assert.equal(await withFileLock(file, () => "after exit", { timeoutMs: 5_000 }), "after exit");
  {
    await using holder = await holdInOtherProcess(file);
    holder.child.kill("SIGKILL");
    assert.equal((await holder.child.status).signal, "SIGKILL");
    // The killed holder's sidecar is still there, unlocked; the next holder reuses it.
    assert.deepEqual(await names(dir.path), [".profile.yaml.lock"]);
  }
  await updateTextFile(file, () => "description: ok\n", { timeoutMs: 5_000 });
  assert.equal(await Deno.readTextFile(file), "description: ok\n");
  assert.deepEqual(await names(dir.path), ["profile.yaml"]);
});

Deno.test("processes incrementing one file together lose no increment", async () => {
  await using dir = await tempDir();
  const file = join(dir.path, "counter.txt");
  const processes = Array.from({ length: 4 }, () => spawnHelper(["increment", file, "25"]));
  try {
    await Promise.all(
      Array.from(
        { length: 25 },
        () => updateTextFile(file, (text) => String(Number(text || "0") + 1)),
      ),
    );
    for (const helper of processes) assert.equal((await helper.child.status).code, 0);
  } finally {
    for (const helper of processes) await helper[Symbol.asyncDispose]();
  }
  assert.equal(await Deno.readTextFile(file), String(4 * 25 + 25));
  assert.deepEqual(await names(dir.path), ["counter.txt"]);
});

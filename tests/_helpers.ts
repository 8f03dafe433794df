/**
 * Shared test helpers. Each test builds its own temporary home with
 * `await using`, so no test depends on another's state.
 *
 * @module
 */

/** A temporary directory removed when the binding goes out of scope. */
export interface TempDir extends AsyncDisposable {
  /** Absolute path of the directory. */
  readonly path: string;
}

/**
 * Creates a temporary directory that is deleted on dispose.
 *
 * @example
 * ```ts
 * await using dir = await tempDir();
 * await Deno.writeTextFile(`${dir.path}/x`, "y");
 * ```
 */
export async function tempDir(prefix = "herald-test-"): Promise<TempDir> {
  const path = await Deno.makeTempDir({ prefix });
  return {
    path,
    async [Symbol.asyncDispose]() {
      await Deno.remove(path, { recursive: true }).catch(() => {});
    },
  };
}

/** Absolute path of the repository root (the folder holding deno.json). */
export const REPO_ROOT: string = new URL("../", import.meta.url).pathname.replace(/\/$/, "");

/** True while `pid` runs; an unreaped zombie (PID 1 here does not reap) counts as gone. */
export async function processRunning(pid: number): Promise<boolean> {
  try {
    const stat = await Deno.readTextFile(`/proc/${pid}/stat`);
    return stat.slice(stat.lastIndexOf(")") + 2)[0] !== "Z";
  } catch {
    return false;
  }
}

/** Config keys named after `Object.prototype` members: each must be an unknown key on every surface. */
export const PROTOTYPE_KEYS: readonly string[] = [
  "constructor",
  "toString",
  "__proto__",
  "hasOwnProperty",
  "model.constructor",
  "model.__proto__.x",
];

/** The Deno cache this test process uses, so a child with an empty HOME downloads nothing. */
export async function denoDir(): Promise<string> {
  const output = await new Deno.Command(Deno.execPath(), {
    args: ["info", "--json"],
    stdout: "piped",
    stderr: "null",
  }).output();
  return JSON.parse(new TextDecoder().decode(output.stdout)).denoDir;
}

/** What a child process printed so far, collected as it comes. */
export interface CollectedOutput {
  stdout(): string;
  stderr(): string;
  /** Settles when both streams have ended. */
  ended: Promise<void>;
}

/** Reads a spawned child's piped stdout and stderr to their ends, as text. */
export function collectOutput(
  child: { stdout: ReadableStream<Uint8Array>; stderr: ReadableStream<Uint8Array> },
): CollectedOutput {
  let stdout = "", stderr = "";
  const pump = async (stream: ReadableStream<Uint8Array>, add: (text: string) => void) => {
    for await (const text of stream.pipeThrough(new TextDecoderStream())) add(text);
  };
  const ended = Promise.all([
    pump(child.stdout, (text) => stdout += text),
    pump(child.stderr, (text) => stderr += text),
  ]).then(() => {});
  return { stdout: () => stdout, stderr: () => stderr, ended };
}

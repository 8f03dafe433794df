/**
 * Starts the independent stdio JSON-RPC server (`_stdio_peer.ts`) as a real
 * subprocess and connects a Herald peer to it.
 */

import { join } from "node:path";
import { REPO_ROOT } from "../../_helpers.ts";
import type { RpcConnection, RpcConnectionEnd, RpcStreams } from "../../../adapters/rpc/mod.ts";

/** A running child and what it logged on stderr. */
export interface StdioChild extends AsyncDisposable {
  child: Deno.ChildProcess;
  /** Everything received by the child so far, parsed from its `got <json>` log lines. */
  received(): unknown[];
  /** Its whole stderr so far. */
  stderr(): string;
}

/** Starts `_stdio_peer.ts` with `framing` (and `split` when asked). */
export function startStdioChild(framing: "ndjson" | "content-length", split = false): StdioChild {
  const child = new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "--quiet",
      join(REPO_ROOT, "tests", "adapters", "rpc", "_stdio_peer.ts"),
      framing,
      ...(split ? ["split"] : []),
    ],
    stdin: "piped",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  let log = "";
  const stderrDone = (async () => {
    for await (const chunk of child.stderr.pipeThrough(new TextDecoderStream())) log += chunk;
  })();
  return {
    child,
    received: () =>
      log.split("\n").filter((line) => line.startsWith("got {"))
        .map((line) => JSON.parse(line.slice(4))),
    stderr: () => log,
    async [Symbol.asyncDispose]() {
      try {
        child.kill();
      } catch {
        // Already gone.
      }
      await child.status;
      await stderrDone;
    },
  };
}

/** The child's stdout and stdin as the streams of a connection. */
export function streamsOf(child: Deno.ChildProcess): RpcStreams {
  return { readable: child.stdout, writable: child.stdin };
}

/** Waits until `check` holds (polling), or fails naming `what`. */
export async function until(check: () => boolean, what: string, ms = 10_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`Timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/** Closes `connection` and returns how it ended. */
export async function closeAndEnd(connection: RpcConnection): Promise<RpcConnectionEnd> {
  await connection.close();
  return await connection.ended;
}

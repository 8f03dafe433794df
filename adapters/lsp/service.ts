/**
 * The language-server diagnostics of the file tools: for a file just
 * written, the diagnostics the edit introduced, as the `lsp_diagnostics`
 * text. One server per (server id, workspace root), started on the first
 * file it handles and kept until {@link LspDiagnostics.close}. A pair that
 * does not answer `initialize` or deliver diagnostics within the wait
 * timeout, or whose process ends, is marked broken: it is stopped and
 * skipped (every later write returns at once without diagnostics) until
 * {@link LspDiagnostics.restart}. A server whose program is nowhere is
 * skipped silently. Nothing here ever fails a write.
 *
 * @module
 */

import {
  formatDiagnostics,
  introducedDiagnostics,
  type LspServerConfig,
  lspServers,
  type LspServerSpec,
  serverForPath,
} from "../../core/lsp/mod.ts";
import { childEnvironment } from "../process/mod.ts";
import type { LspClient } from "./client.ts";
import { importLazily } from "../lazy.ts";
import { missingServerReason, resolveServerProgram } from "./command.ts";
import { findWorkspaceRoot } from "./workspace.ts";

/** The `lsp` section of the configuration. */
export interface LspConfig {
  /** False turns the language-server channel off. */
  enabled?: boolean;
  /** Seconds `initialize` and each wait for diagnostics may take (default 8). */
  wait_timeout?: number;
  /** Servers by id: overrides of the built-ins and servers of one's own. */
  servers?: Record<string, LspServerConfig>;
}

/** Options of {@link openLspDiagnostics}. */
export interface LspDiagnosticsOptions {
  /** Working directory: relative server programs are found from it. */
  cwd: string;
  /** Environment the servers' allowlisted environment is taken from (default: Herald's). */
  env?: Readonly<Record<string, string | undefined>>;
  /** Herald's checkout whose node_modules/.bin is searched first (default: this one, from source). */
  checkout?: string;
}

/** Default of `lsp.wait_timeout`, in seconds. */
export const DEFAULT_LSP_WAIT_SECONDS = 8;

/** The state of one (server, root) pair. */
export interface LspServerStatus {
  server: string;
  root: string;
  state: "starting" | "running" | "broken" | "missing";
  /** Pid of its process group while one runs. */
  pid?: number;
  /** Why it is broken or missing. */
  reason?: string;
}

/** The diagnostics seam of the file tools, with its servers. */
export interface LspDiagnostics {
  /**
   * The `lsp_diagnostics` text for the file at `path` (absolute, already
   * written): the diagnostics its current text has that `before` (the text
   * before the write; null for a new file; undefined when unknown, as for a
   * file over 256 KiB, gives "") had not.
   * "" when there is nothing to report, no server or no root. Never rejects.
   */
  diagnose(path: string, before?: string | null): Promise<string>;
  /** Every (server, root) pair met so far. */
  status(): LspServerStatus[];
  /** Stops every server and forgets broken ones; the next write starts afresh. */
  restart(): Promise<void>;
  /** Stops every server (`shutdown`, `exit`, then the process group). */
  close(): Promise<void>;
}

interface Pair {
  status: LspServerStatus;
  client?: Promise<LspClient | undefined>;
  /** The tail of this pair's diagnose calls: one at a time per server. */
  queue: Promise<unknown>;
}

/** Largest file (bytes) that is sent to a server. */
const MAX_FILE_BYTES = 2 * 1024 * 1024;

/**
 * Opens the language-server diagnostics for the `lsp` configuration. No
 * server starts until a file needs one.
 *
 * @example
 * ```ts
 * const lsp = openLspDiagnostics(config.lsp, { cwd });
 * const tools = builtinTools({ diagnostics: lsp.diagnose });
 * // ... at the end:
 * await lsp.close();
 * ```
 */
export function openLspDiagnostics(
  config: LspConfig | undefined,
  options: LspDiagnosticsOptions,
): LspDiagnostics {
  const enabled = config?.enabled ?? true;
  const timeoutMs = Math.round((config?.wait_timeout ?? DEFAULT_LSP_WAIT_SECONDS) * 1000);
  const specs = lspServers(config?.servers);
  const pairs = new Map<string, Pair>();
  const environment = options.env ?? Deno.env.toObject();
  let closed = false;

  const startClient = async (pair: Pair, spec: LspServerSpec): Promise<LspClient | undefined> => {
    const [program, ...args] = spec.command;
    const resolve = {
      cwd: options.cwd,
      path: environment.PATH,
      ...("checkout" in options ? { checkout: options.checkout } : {}),
    };
    const found = resolveServerProgram(program, resolve);
    if (!found) {
      pair.status = {
        ...pair.status,
        state: "missing",
        reason: missingServerReason(program, resolve),
      };
      return undefined;
    }
    try {
      // The client (and the JSON-RPC stack behind it) loads with the first server started.
      const { LspClient } = await importLazily<typeof import("./client.ts")>(
        "adapters/lsp/client.ts",
      );
      const client = await LspClient.start({
        id: spec.id,
        program: found,
        args,
        root: pair.status.root,
        env: childEnvironment(environment),
        timeoutMs,
      });
      if (closed) {
        await client.stop();
        return undefined;
      }
      pair.status = { ...pair.status, state: "running", pid: client.pid };
      return client;
    } catch (error) {
      markBroken(pair, error);
      return undefined;
    }
  };

  const markBroken = (pair: Pair, error: unknown) => {
    const reason = error instanceof Error ? error.message : String(error);
    pair.status = { server: pair.status.server, root: pair.status.root, state: "broken", reason };
  };

  const pairFor = (spec: LspServerSpec, root: string): Pair => {
    const key = `${spec.id}\0${root}`;
    let pair = pairs.get(key);
    if (!pair) {
      pair = {
        status: { server: spec.id, root, state: "starting" },
        queue: Promise.resolve(),
      };
      pair.client = startClient(pair, spec);
      pairs.set(key, pair);
    }
    return pair;
  };

  const run = async (pair: Pair, path: string, before: string | null) => {
    const client = await pair.client;
    if (!client || pair.status.state !== "running") return "";
    if (!client.alive) {
      markBroken(pair, new Error("the server ended"));
      await client.kill();
      return "";
    }
    let after: string;
    try {
      if ((await Deno.stat(path)).size > MAX_FILE_BYTES) return "";
      after = await Deno.readTextFile(path);
    } catch {
      return "";
    }
    try {
      const result = await client.diagnose(path, before, after);
      const introduced = introducedDiagnostics(result.before, result.after, before ?? "", after);
      return formatDiagnostics(path, introduced);
    } catch (error) {
      markBroken(pair, error);
      await client.kill();
      return "";
    }
  };

  const stopAll = async () => {
    const all = [...pairs.values()];
    pairs.clear();
    await Promise.all(all.map(async (pair) => {
      const client = await pair.client;
      await pair.queue.catch(() => {});
      await client?.stop();
    }));
  };

  return {
    async diagnose(path, before) {
      try {
        // Without the earlier text nothing can be told introduced (every old
        // problem would pass for the edit's), so no server is asked.
        if (!enabled || closed || before === undefined) return "";
        const spec = serverForPath(specs, path);
        if (!spec) return "";
        const root = await findWorkspaceRoot(path);
        if (!root || closed) return "";
        const pair = pairFor(spec, root);
        if (pair.status.state === "broken" || pair.status.state === "missing") return "";
        const result = pair.queue.then(() => run(pair, path, before));
        pair.queue = result.catch(() => {});
        return await result;
      } catch {
        return "";
      }
    },
    status: () => [...pairs.values()].map((pair) => ({ ...pair.status })),
    restart: stopAll,
    async close() {
      closed = true;
      await stopAll();
    },
  };
}

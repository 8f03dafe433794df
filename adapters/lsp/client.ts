/**
 * One language server, started as a process group and spoken to in
 * `Content-Length`-framed JSON-RPC: `initialize`, documents opened and
 * replaced whole, diagnostics awaited (pushed by `publishDiagnostics`, or
 * pulled with `textDocument/diagnostic` when the server offers it), and
 * `shutdown` + `exit` at the end. The requests servers send to their client
 * are answered with defaults, so none stalls waiting for them.
 *
 * @module
 */

import { sleep } from "../../core/_util/sleep.ts";
import { fileURLToPath, pathToFileURL } from "node:url";
import { RpcError, type RpcMethod, type RpcMethods, RpcTimeoutError } from "../../core/rpc/mod.ts";
import { languageIdFor, type LspDiagnostic } from "../../core/lsp/mod.ts";
import { type ProcessGroup, spawnProcessGroup } from "../process/mod.ts";
import { connectContentLength, type RpcConnection } from "../rpc/mod.ts";

/** How long an unversioned push waits for a further publish before taking what it has. */
const PUSH_SETTLE_MS = 150;
/** The `ContentModified` error code of a pull that raced an edit. */
const CONTENT_MODIFIED = -32801;
/** Grace between SIGTERM and SIGKILL when a server is stopped. */
const STOP_GRACE_MS = 1000;

/** Options of {@link LspClient.start}. */
export interface LspClientOptions {
  /** The server's id (for messages). */
  id: string;
  /** Absolute path of the program. */
  program: string;
  args: string[];
  /** The workspace root: the server's working folder and `rootUri`. */
  root: string;
  /** Environment of the server (only these variables). */
  env: Record<string, string>;
  /** How long `initialize` and each wait for diagnostics may take. */
  timeoutMs: number;
}

/** Neither diagnostics nor an answer came in time. */
export class LspTimeoutError extends Error {
  /** Names what did not answer. */
  constructor(what: string, timeoutMs: number) {
    super(`${what} did not answer within ${timeoutMs} ms`);
    this.name = "LspTimeoutError";
  }
}

interface OpenDocument {
  version: number;
  text: string;
  /** Diagnostics of `text`, once known. */
  diagnostics?: LspDiagnostic[];
}

interface Published {
  count: number;
  version?: number;
  diagnostics: LspDiagnostic[];
}

/** The diagnostics of a file's text before and after an edit. */
export interface DiagnosticPair {
  before: LspDiagnostic[];
  after: LspDiagnostic[];
}

/** A method answering every call with `value`, or with what `value` returns for the params. */
function answer(value: null | object | ((params: unknown) => unknown)): RpcMethod {
  return {
    call: (params) => Promise.resolve(typeof value === "function" ? value(params) : value),
  };
}

function pathOfUri(uri: unknown): string | undefined {
  try {
    return typeof uri === "string" ? fileURLToPath(uri) : undefined;
  } catch {
    return undefined;
  }
}

/** A running language server for one workspace root. */
export class LspClient {
  readonly #options: LspClientOptions;
  readonly #group: ProcessGroup;
  readonly #connection: RpcConnection;
  readonly #documents = new Map<string, OpenDocument>();
  readonly #published = new Map<string, Published>();
  readonly #listeners = new Set<() => void>();
  #pull = false;
  #ended = false;
  #stopping: Promise<void> | undefined;

  private constructor(options: LspClientOptions) {
    this.#options = options;
    this.#group = spawnProcessGroup(options.program, {
      args: options.args,
      cwd: options.root,
      env: options.env,
      clearEnv: true,
      stdin: "piped",
      stdout: "piped",
      stderr: "null",
    });
    this.#connection = connectContentLength(
      { readable: this.#group.child.stdout, writable: this.#group.child.stdin },
      { methods: this.#methods() },
    );
    this.#connection.ended.then(() => {
      this.#ended = true;
      this.#notify();
    });
    this.#connection.peer.onNotification(({ method, params }) => {
      if (method === "textDocument/publishDiagnostics") this.#onPublish(params);
    });
  }

  /**
   * Starts the server and completes `initialize` / `initialized`.
   *
   * @throws Deno.errors.NotFound when the program does not exist;
   * LspTimeoutError when `initialize` is not answered in time (the server
   * is stopped); the peer's error when the server ends or breaks the framing.
   */
  static async start(options: LspClientOptions): Promise<LspClient> {
    const client = new LspClient(options);
    try {
      await client.#initialize();
      return client;
    } catch (error) {
      await client.stop();
      throw error;
    }
  }

  /** Pid of the server's process group. */
  get pid(): number {
    return this.#group.pid;
  }

  /** False once the server ended its output, broke the framing or was stopped. */
  get alive(): boolean {
    return !this.#ended && !this.#stopping;
  }

  /** Whether diagnostics are pulled (true) or awaited as pushes (false). */
  get pulls(): boolean {
    return this.#pull;
  }

  /**
   * The diagnostics of `path` before and after an edit: `before` (null for
   * a new file) is shown to the server first unless it already holds that
   * text with its diagnostics, then `after` replaces it. Call one at a time.
   *
   * @throws LspTimeoutError when the server does not deliver in time.
   */
  async diagnose(path: string, before: string | null, after: string): Promise<DiagnosticPair> {
    const known = this.#documents.get(path);
    let baseline: LspDiagnostic[] = [];
    if (before !== null) {
      baseline = known?.text === before && known.diagnostics
        ? known.diagnostics
        : await this.#round(path, before);
    }
    const diagnostics = await this.#round(path, after);
    return { before: baseline, after: diagnostics };
  }

  /** Sends `shutdown` and `exit`, then ends the process group. Safe to call twice. */
  stop(): Promise<void> {
    this.#stopping ??= (async () => {
      if (!this.#ended) {
        const peer = this.#connection.peer;
        await peer.request("shutdown", undefined, { timeoutMs: STOP_GRACE_MS }).catch(() => {});
        await peer.notify("exit").catch(() => {});
      }
      await this.#connection.close();
      await this.#group.terminate({ graceMs: STOP_GRACE_MS });
      this.#notify();
    })();
    return this.#stopping;
  }

  /** Kills the server at once (it stopped answering). */
  async kill(): Promise<void> {
    this.#stopping ??= (async () => {
      await this.#connection.close();
      await this.#group.terminate({ graceMs: 0 });
      this.#notify();
    })();
    await this.#stopping;
  }

  async #initialize(): Promise<void> {
    const { root, timeoutMs, id } = this.#options;
    const rootUri = pathToFileURL(root).href;
    const result = await this.#connection.peer.request<{ capabilities?: Record<string, unknown> }>(
      "initialize",
      {
        processId: Deno.pid,
        clientInfo: { name: "herald" },
        rootUri,
        rootPath: root,
        workspaceFolders: [{ uri: rootUri, name: root.slice(root.lastIndexOf("/") + 1) || root }],
        capabilities: {
          general: { positionEncodings: ["utf-16"] },
          textDocument: {
            synchronization: { dynamicRegistration: false, didSave: true },
            publishDiagnostics: {
              relatedInformation: false,
              versionSupport: true,
              tagSupport: { valueSet: [1, 2] },
            },
            diagnostic: { dynamicRegistration: false, relatedDocumentSupport: false },
          },
          workspace: {
            configuration: true,
            workspaceFolders: true,
            diagnostics: { refreshSupport: false },
          },
          window: { workDoneProgress: true },
        },
      },
      { timeoutMs },
    ).catch((error) => {
      throw this.#timeout(error, `The ${id} language server's initialize`);
    });
    this.#pull ||= Boolean(result?.capabilities?.diagnosticProvider);
    await this.#connection.peer.notify("initialized", {});
  }

  #methods(): RpcMethods {
    return {
      "workspace/configuration": answer((params: unknown) => {
        const items = (params as { items?: unknown[] })?.items;
        return Array.isArray(items) ? items.map(() => ({})) : [];
      }),
      "window/workDoneProgress/create": answer(null),
      "client/registerCapability": answer((params: unknown) => {
        const registrations = (params as { registrations?: { method?: string }[] })?.registrations;
        if (registrations?.some((r) => r.method === "textDocument/diagnostic")) this.#pull = true;
        return null;
      }),
      "client/unregisterCapability": answer(null),
      "workspace/workspaceFolders": answer(() => {
        const uri = pathToFileURL(this.#options.root).href;
        return [{ uri, name: this.#options.root }];
      }),
      "workspace/diagnostic/refresh": answer(null),
      "window/showMessageRequest": answer(null),
      "window/showDocument": answer({ success: false }),
      "workspace/applyEdit": answer({ applied: false, failureReason: "read-only client" }),
    };
  }

  /** Shows `text` as the document's content and returns its diagnostics. */
  async #round(path: string, text: string): Promise<LspDiagnostic[]> {
    const since = this.#published.get(path)?.count ?? 0;
    const version = await this.#sync(path, text);
    const diagnostics = this.#pull
      ? await this.#pullDiagnostics(path)
      : await this.#awaitPush(path, since, version);
    const document = this.#documents.get(path);
    if (document?.version === version) document.diagnostics = diagnostics;
    return diagnostics;
  }

  /** Opens the document or replaces its whole text; returns the version sent. */
  async #sync(path: string, text: string): Promise<number> {
    const uri = pathToFileURL(path).href;
    const peer = this.#connection.peer;
    const open = this.#documents.get(path);
    if (!open) {
      this.#documents.set(path, { version: 1, text });
      await peer.notify("textDocument/didOpen", {
        textDocument: { uri, languageId: languageIdFor(path), version: 1, text },
      });
      return 1;
    }
    const version = open.version + 1;
    this.#documents.set(path, { version, text });
    await peer.notify("textDocument/didChange", {
      textDocument: { uri, version },
      contentChanges: [{ text }],
    });
    return version;
  }

  async #pullDiagnostics(path: string): Promise<LspDiagnostic[]> {
    const { timeoutMs, id } = this.#options;
    const deadline = Date.now() + timeoutMs;
    for (let attempt = 0;; attempt++) {
      try {
        const report = await this.#connection.peer.request<
          { kind?: string; items?: LspDiagnostic[] }
        >(
          "textDocument/diagnostic",
          { textDocument: { uri: pathToFileURL(path).href } },
          { timeoutMs: Math.max(1, deadline - Date.now()) },
        );
        if (report?.kind === "unchanged") return this.#documents.get(path)?.diagnostics ?? [];
        return report?.items ?? [];
      } catch (error) {
        const modified = error instanceof RpcError && error.code === CONTENT_MODIFIED;
        if (!modified || attempt >= 3 || Date.now() >= deadline) {
          throw this.#timeout(error, `The ${id} language server's diagnostics`);
        }
        await sleep(100 * 2 ** attempt);
      }
    }
  }

  /**
   * Waits for a publish for `path` after the `since`th (and, when the
   * server versions them, for `version`), then for quiet.
   */
  #awaitPush(path: string, since: number, version: number): Promise<LspDiagnostic[]> {
    const { timeoutMs, id } = this.#options;
    return new Promise((resolve, reject) => {
      let settle: ReturnType<typeof setTimeout> | undefined;
      let seen = since;
      const done = (finish: () => void) => {
        clearTimeout(deadline);
        clearTimeout(settle);
        this.#listeners.delete(check);
        finish();
      };
      const check = () => {
        if (!this.alive) {
          return done(() => reject(new Error(`The ${id} language server stopped`)));
        }
        const published = this.#published.get(path);
        if (!published || published.count <= seen) return;
        if (published.version !== undefined && published.version < version) return;
        seen = published.count;
        clearTimeout(settle);
        // A versioned publish for this very version is final; an unversioned one may be followed.
        const wait = published.version === version ? 0 : PUSH_SETTLE_MS;
        settle = setTimeout(() => done(() => resolve(published.diagnostics)), wait);
      };
      const deadline = setTimeout(
        () =>
          done(() =>
            reject(new LspTimeoutError(`The ${id} language server's diagnostics`, timeoutMs))
          ),
        timeoutMs,
      );
      this.#listeners.add(check);
      check();
    });
  }

  #onPublish(params: unknown): void {
    const { uri, version, diagnostics } = (params ?? {}) as {
      uri?: unknown;
      version?: unknown;
      diagnostics?: unknown;
    };
    const path = pathOfUri(uri);
    if (!path || !Array.isArray(diagnostics)) return;
    const previous = this.#published.get(path);
    this.#published.set(path, {
      count: (previous?.count ?? 0) + 1,
      version: typeof version === "number" ? version : undefined,
      diagnostics: diagnostics as LspDiagnostic[],
    });
    this.#notify();
  }

  #notify(): void {
    for (const listener of [...this.#listeners]) listener();
  }

  #timeout(error: unknown, what: string): unknown {
    if (error instanceof RpcTimeoutError) {
      return new LspTimeoutError(what, this.#options.timeoutMs);
    }
    return error;
  }
}

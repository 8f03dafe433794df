/**
 * The dashboard's open WebSockets (`/api/ws` and `/api/pty`), so a server
 * that stops can end them all at once instead of waiting for clients to
 * leave: each socket is closed with 1001 (going away) and its work ended,
 * running turns aborted and terminal sessions killed (whole process
 * groups, with a short grace: {@link SHUTDOWN_PTY_GRACE_MS}).
 *
 * The CLI creates one {@link LiveSockets}, passes it in the app's deps and
 * calls {@link LiveSockets.closeAll} on SIGINT or SIGTERM, before the HTTP
 * server's own shutdown.
 *
 * @module
 */

/** What a stopping server does with one open socket. */
export interface LiveSocket {
  /**
   * Closes the socket with 1001 (going away) and ends its work; resolves
   * once that work has ended.
   */
  goAway(): Promise<void>;
}

/** The close reason sent with 1001 when the dashboard stops. */
export const GOING_AWAY_REASON = "The dashboard is shutting down";

/**
 * Grace between asking a terminal session's processes to stop (SIGHUP,
 * SIGTERM) and SIGKILL when the dashboard stops (a socket closed by its
 * client gets the longer default of adapters/pty).
 */
export const SHUTDOWN_PTY_GRACE_MS = 500;

/**
 * Resolves true when `promise` settles (either way) within `ms`, false
 * otherwise; the timer is cleared as soon as the answer is known.
 *
 * @example
 * ```ts
 * const done = await settlesWithin(server.shutdown(), 200);
 * ```
 */
export async function settlesWithin(promise: Promise<unknown>, ms: number): Promise<boolean> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<false>((resolve) => timer = setTimeout(() => resolve(false), ms));
  try {
    return await Promise.race([promise.then(() => true, () => true), late]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * The open sockets of one server.
 *
 * @example
 * ```ts
 * const sockets = new LiveSockets();
 * const app = createApp({ ...deps, sockets });
 * // on SIGTERM:
 * await sockets.closeAll(800);
 * ```
 */
export class LiveSockets {
  readonly #open = new Set<LiveSocket>();
  #stopping = false;

  /**
   * Registers an opened socket; call the returned function when it closes.
   * Once the server is stopping, a socket that opens is sent away at once.
   */
  add(socket: LiveSocket): () => void {
    if (this.#stopping) {
      socket.goAway().catch(() => {});
      return () => {};
    }
    this.#open.add(socket);
    return () => this.#open.delete(socket);
  }

  /**
   * Sends every open socket away (and any that opens from now on). Resolves
   * true once all their work has ended, or false after `timeoutMs` with some
   * still ending.
   */
  async closeAll(timeoutMs: number): Promise<boolean> {
    this.#stopping = true;
    const ending = [...this.#open].map((socket) => socket.goAway().catch(() => {}));
    this.#open.clear();
    return await settlesWithin(Promise.all(ending), timeoutMs);
  }
}

/**
 * What a closed WebSocket says about the page's token. A server that
 * refuses the token at the upgrade answers HTTP 401, which a browser
 * reports only as close code 1006 on a socket that never opened; so such a
 * close (and a 4401 close, the server's word for it) is checked with one
 * cheap REST call, whose 401 flips the token state and shows the token
 * screen. Used by the JSON-RPC client (lib/rpc.ts) and the web terminal.
 *
 * @module
 */

import { api } from "./api.ts";
import { isTokenRefused, tokenRefused } from "./auth_state.ts";

/** The close code a browser reports when a socket ends without a close frame (or a refused upgrade). */
export const ABNORMAL_CLOSE = 1006;
/** The close code the server sends when it does not accept the token. */
export const TOKEN_REFUSED_CLOSE = 4401;

let checking: Promise<boolean> | undefined;

/**
 * Checks the token after a socket closed: a 4401 refuses it at once; a
 * socket that never opened, or closed with 1006, asks the REST API once
 * (one call at a time, however many sockets closed). Resolves to whether
 * the token is refused now.
 *
 * @example
 * ```ts
 * socket.onclose = (event) => void checkTokenAfterClose(event.code, opened);
 * ```
 */
export function checkTokenAfterClose(code: number, opened: boolean): Promise<boolean> {
  if (code === TOKEN_REFUSED_CLOSE) tokenRefused();
  if (isTokenRefused() || (opened && code !== ABNORMAL_CLOSE)) {
    return Promise.resolve(isTokenRefused());
  }
  checking ??= api("GET", "/api/actions", { profile: null })
    .then(() => {}, () => {})
    .then(() => {
      checking = undefined;
      return isTokenRefused();
    });
  return checking;
}

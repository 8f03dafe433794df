/**
 * The dashboard server: the app factory and its dependencies.
 *
 * @module
 */

export { createApp, PUBLIC_API_PATHS } from "./app.ts";
export type { BindAddress, ServerDeps } from "./deps.ts";
export { LiveSockets } from "./ws/live.ts";
export { newSessionToken, TOKEN_HEADER } from "./auth.ts";
export { isLoopbackHost } from "./origin.ts";

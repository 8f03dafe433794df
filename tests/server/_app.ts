/**
 * Building the dashboard app for tests: a temporary root home, a known token.
 *
 * @module
 */

import type { Hono } from "hono";
import { createApp } from "../../server/app.ts";
import type { BindAddress, ServerDeps } from "../../server/deps.ts";
import { heraldCommand } from "../../adapters/process/mod.ts";

/** The token every test app uses. */
export const TEST_TOKEN = "test-token-0123456789abcdef";

/** Dependencies for a test app rooted at `root`. */
export function testDeps(root: string, overrides: Partial<ServerDeps> = {}): ServerDeps {
  const bind: BindAddress = { host: "127.0.0.1", port: 9219 };
  return {
    root,
    token: TEST_TOKEN,
    bind,
    version: "0.0.0-test",
    startedAt: Date.now(),
    env: {
      HOME: root,
      PATH: Deno.env.get("PATH"),
      DENO_DIR: Deno.env.get("DENO_DIR") ?? `${Deno.env.get("HOME")}/.cache/deno`,
      // Action routes spawn these instead of a real update or gateway restart.
      HERALD_UPDATE_COMMAND: '["true"]',
      HERALD_GATEWAY_RESTART_COMMAND: '["true"]',
    },
    heraldCommand: heraldCommand(),
    ...overrides,
  };
}

/** A test app, its dependencies, and a request helper. */
export interface TestApp {
  app: Hono;
  deps: ServerDeps;
  /** Sends a request with a loopback Host and, unless `auth: false`, the token. */
  request(path: string, init?: RequestInit & { auth?: boolean }): Promise<Response>;
}

/** A test app and a request helper that sends the token unless told not to. */
export function testApp(root: string, overrides: Partial<ServerDeps> = {}): TestApp {
  const deps = testDeps(root, overrides);
  const app: Hono = createApp(deps);
  const request = async (path: string, init: RequestInit & { auth?: boolean } = {}) => {
    const headers = new Headers(init.headers);
    if (init.auth !== false) headers.set("X-Herald-Session-Token", TEST_TOKEN);
    if (!headers.has("host")) headers.set("host", `127.0.0.1:${deps.bind.port}`);
    const url = path.startsWith("http") ? path : `http://127.0.0.1:${deps.bind.port}${path}`;
    return await app.request(url, { ...init, headers });
  };
  return { app, deps, request };
}

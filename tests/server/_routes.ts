/**
 * Helpers shared by the management-route tests: a test app with a named
 * profile, JSON requests, and the fake MCP server's command line.
 *
 * @module
 */

import { join } from "node:path";
import { createProfile, type ProfilePaths, profilePaths } from "../../adapters/home/mod.ts";
import type { ServerDeps } from "../../server/deps.ts";
import { REPO_ROOT } from "../_helpers.ts";
import { testApp } from "./_app.ts";

/** A request helper that sends and parses JSON. */
export type JsonRequest = (
  method: string,
  path: string,
  body?: unknown,
) => Promise<
  { status: number; body: Record<string, unknown> & { error?: { code: string; message: string } } }
>;

/** A test app rooted at `root`, with a `work` profile and JSON helpers. */
export async function routesApp(root: string, overrides: Partial<ServerDeps> = {}): Promise<{
  app: ReturnType<typeof testApp>["app"];
  deps: ServerDeps;
  request: ReturnType<typeof testApp>["request"];
  json: JsonRequest;
  main: ProfilePaths;
  work: ProfilePaths;
}> {
  const work = await createProfile(root, "work", { bundledSkills: false });
  const { app, deps, request } = testApp(root, {
    ...overrides,
  });
  const json: JsonRequest = async (method, path, body) => {
    const init: RequestInit = { method };
    if (body !== undefined) {
      init.body = typeof body === "string" ? body : JSON.stringify(body);
      init.headers = { "content-type": "application/json" };
    }
    const response = await request(path, init);
    const text = await response.text();
    return { status: response.status, body: text === "" ? {} : JSON.parse(text) };
  };
  return { app, deps, request, json, main: profilePaths(root, "default"), work };
}

/** Reads a file, or "" when it does not exist. */
export async function readOr(path: string): Promise<string> {
  try {
    return await Deno.readTextFile(path);
  } catch {
    return "";
  }
}

/** The command line that starts the fake stdio MCP server in `mode`. */
export function fakeMcpCommand(mode?: string): { command: string; args: string[] } {
  return {
    command: Deno.execPath(),
    args: [
      "run",
      "--quiet",
      "--allow-env",
      "--allow-write",
      join(REPO_ROOT, "tests", "fakes", "mcp_stdio_server.ts"),
      ...(mode ? [mode] : []),
    ],
  };
}

/**
 * The terminal chat's view of the profile runtime: the shared assembly in
 * adapters/runtime, fed from the CLI context.
 *
 * @module
 */

import type { EnvLookup } from "../../core/config/mod.ts";
import { type ProfilePaths, readProfileCredentials } from "../../adapters/home/mod.ts";
import {
  type ChatRuntime,
  openProfileRuntime,
  type RuntimeOptions,
} from "../../adapters/runtime/profile_runtime.ts";
import type { CliContext } from "../context.ts";

export type { ChatRuntime, RuntimeOptions } from "../../adapters/runtime/profile_runtime.ts";

/** Credentials: the profile's `.env` first, then the process environment. */
export async function credentialLookup(ctx: CliContext, paths: ProfilePaths): Promise<EnvLookup> {
  return (await readProfileCredentials(paths, ctx.env)).lookup;
}

/** Opens the runtime for the context's profile (creating what is missing of its home). */
export async function openChatRuntime(
  ctx: CliContext,
  options: RuntimeOptions,
): Promise<ChatRuntime> {
  const paths = await ctx.home();
  return await openProfileRuntime(paths, {
    ...options,
    env: ctx.env,
    onWarning: (file, message) => ctx.io.err(`herald: warning: ${file}: ${message}\n`),
  });
}

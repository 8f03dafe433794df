/**
 * The gateway's `commands.catalog` method: the slash commands a session (or,
 * without one, a profile) completes, from the shared slash registry.
 *
 * @module
 */

import { z } from "zod";
import {
  createSlashRegistry,
  readSnapshot,
  type SlashRegistry,
} from "../../../core/commands/mod.ts";
import { createSkillCatalog } from "../../../adapters/skills/mod.ts";
import { findSession, type GatewayState } from "../_gateway_state.ts";
import { method, type RpcMethods } from "../jsonrpc.ts";
import { ProfileName, SessionKey } from "./_params.ts";

const CatalogParams = z.object({
  session_key: SessionKey.optional(),
  profile: ProfileName,
  prefix: z.string().optional(),
});

/** The command methods of the connection whose state is `state`. */
export function commandMethods(state: GatewayState): RpcMethods {
  return {
    "commands.catalog": method(CatalogParams, (p) => catalog(state, p)),
  };
}

async function catalog(state: GatewayState, params: z.infer<typeof CatalogParams>) {
  let registry: SlashRegistry;
  if (params.session_key !== undefined) {
    registry = findSession(state, params.session_key).conversation.registry;
  } else {
    const paths = await state.options.resolveProfile(params.profile);
    registry = createSlashRegistry({ catalog: createSkillCatalog(paths.home) });
  }
  const read = registry.catalog ? await readSnapshot(registry.catalog) : undefined;
  const snapshot = read?.ok ? read.snapshot : undefined;
  return { commands: registry.complete(params.prefix ?? "", snapshot) };
}

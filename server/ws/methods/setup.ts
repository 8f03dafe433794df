/**
 * The gateway's `setup.runtime_check` method: whether a profile's model is
 * ready to use, without sending anything to the provider.
 *
 * @module
 */

import { z } from "zod";
import { loadSessionConfig } from "../../../core/agent/session_config.ts";
import { HeraldError } from "../../../core/errors.ts";
import { mainProvider, resolveModelSettings } from "../../../core/models/settings.ts";
import { openProfileContext } from "../../../adapters/runtime/profile_context.ts";
import type { GatewayState } from "../_gateway_state.ts";
import { method, type RpcMethods } from "../jsonrpc.ts";
import { ProfileName } from "./_params.ts";

const CheckParams = z.object({ profile: ProfileName });

/** The setup methods of the connection whose state is `state`. */
export function setupMethods(state: GatewayState): RpcMethods {
  return {
    "setup.runtime_check": method(CheckParams, (p) => runtimeCheck(state, p.profile)),
  };
}

/**
 * Ready only when the profile's model resolves with a usable credential,
 * through the same code as a session (keyless local providers need a set
 * or known endpoint). Nothing is sent to the provider.
 */
async function runtimeCheck(state: GatewayState, profile: string | undefined) {
  const paths = await state.options.resolveProfile(profile);
  let loaded;
  try {
    loaded = await loadSessionConfig(openProfileContext(paths, state.options.env), {
      safeMode: false,
    });
  } catch (error) {
    if (!(error instanceof HeraldError)) throw error;
    return { ready: false, provider: null, model: null, reason: error.message };
  }
  const { config, credentials } = loaded;
  try {
    const settings = resolveModelSettings(config, credentials);
    return { ready: true, provider: settings.provider, model: settings.model };
  } catch (error) {
    if (!(error instanceof HeraldError)) throw error;
    return {
      ready: false,
      provider: mainProvider(config, credentials) ?? null,
      model: config.model.default?.trim() || null,
      reason: error.message,
    };
  }
}

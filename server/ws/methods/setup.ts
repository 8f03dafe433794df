/**
 * The gateway's `setup.runtime_check` method: whether a profile's model is
 * ready to use, without sending anything to the provider.
 *
 * @module
 */

import { z } from "zod";
import { checkModelRuntime } from "../../../core/usecases/model.ts";
import { openProfileContext } from "../../../adapters/runtime/profile_context.ts";
import type { GatewayState } from "../_gateway_state.ts";
import { method, type RpcMethods } from "../jsonrpc.ts";
import { ProfileName } from "./_params.ts";

const CheckParams = z.object({ profile: ProfileName });

/** The setup methods of the connection whose state is `state`. */
export function setupMethods(state: GatewayState): RpcMethods {
  return {
    "setup.runtime_check": method(CheckParams, async (p) => {
      const paths = await state.options.resolveProfile(p.profile);
      return await checkModelRuntime(openProfileContext(paths, state.options.env));
    }),
  };
}

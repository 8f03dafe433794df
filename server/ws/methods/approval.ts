/**
 * The gateway's `approval.respond` method: the client's answer to an
 * `approval.request` (server/ws/approvals.ts).
 *
 * @module
 */

import { z } from "zod";
import type { GatewayState } from "../_gateway_state.ts";
import { domainError, method, type RpcMethods } from "../jsonrpc.ts";

const RespondParams = z.object({
  id: z.string().min(1),
  choice: z.enum(["once", "session", "always", "deny"]),
});

/** The approval methods of the connection whose state is `state`. */
export function approvalMethods(state: GatewayState): RpcMethods {
  return {
    "approval.respond": method(RespondParams, (p) => {
      if (!state.approvals.respond(p.id, p.choice)) {
        throw domainError(
          "approval_not_found",
          `No approval request "${p.id}" is waiting (it was answered, timed out or its turn ended)`,
        );
      }
      return { ok: true };
    }),
  };
}

/**
 * The gateway's event methods: watching the server's event bus
 * (core/events), so a client sees conversations it did not start: another
 * connection's chat today, a kanban worker or a cron run later.
 *
 * Methods (params → result):
 * - `events.subscribe {profile?, types?, session_id?}` → `{subscription_id}`. Without
 *   `profile`, every profile this dashboard serves (only the pinned one on a
 *   pinned dashboard); an unknown profile, or one a pinned dashboard does not
 *   serve, is `profile_not_found`. `types` lists event types to receive
 *   (all when absent): `session.started`, `session.ended`, `message.user`,
 *   `message.delta`, `message.complete`, `message.error`, `tool.start`,
 *   `tool.complete`, `approval.requested`, `approval.resolved`, `cron.job.changed`,
 *   `cron.job.ran`, `kanban.event` (relayed only while someone subscribes to it:
 *   server/kanban_live.ts).
 * - `events.unsubscribe {subscription_id}` → `{unsubscribed}` (false when it was not open).
 *
 * Notifications (server → client): `event {subscription_id, dropped, event}`,
 * where `event` is `{type, profile, session_id, source, seq, at, ...}` as
 * defined in core/events/schema.ts and `dropped` counts the events this
 * subscription lost because it fell too far behind (0 normally).
 *
 * A connection holds at most {@link MAX_SUBSCRIPTIONS} subscriptions; they
 * end when it closes (server/ws/gateway.ts `close()`).
 *
 * @module
 */

import { z } from "zod";
import { EVENT_TYPES, type EventFilter, type EventType } from "../../../core/events/mod.ts";
import type { GatewayState } from "../_gateway_state.ts";
import { domainError, method, type RpcMethods } from "../jsonrpc.ts";
import { ProfileName } from "./_params.ts";

/** How many subscriptions one connection may hold. */
export const MAX_SUBSCRIPTIONS = 16;

/** How many events may wait for one subscription before the oldest are dropped. */
export const SUBSCRIPTION_QUEUE_LIMIT = 1000;

const SubscribeParams = z.object({
  profile: ProfileName,
  types: z.array(z.enum(EVENT_TYPES as [EventType, ...EventType[]])).min(1).optional(),
  session_id: z.string().min(1).optional(),
});
const UnsubscribeParams = z.object({
  subscription_id: z.string().min(1, "subscription_id is required"),
});

/** The event methods of the connection whose state is `state`. */
export function eventMethods(state: GatewayState): RpcMethods {
  return {
    "events.subscribe": method(SubscribeParams, (p) => subscribe(state, p)),
    "events.unsubscribe": method(UnsubscribeParams, (p) => {
      const open = state.subscriptions;
      const unsubscribe = open.get(p.subscription_id);
      open.delete(p.subscription_id);
      unsubscribe?.();
      return { unsubscribed: unsubscribe !== undefined };
    }),
  };
}

async function subscribe(state: GatewayState, params: z.infer<typeof SubscribeParams>) {
  const bus = state.options.events;
  if (!bus) throw domainError("events_unavailable", "This server publishes no events");
  const open = state.subscriptions;
  if (open.size >= MAX_SUBSCRIPTIONS) {
    throw domainError(
      "too_many_subscriptions",
      `This connection already has ${MAX_SUBSCRIPTIONS} subscriptions (the limit); ` +
        "end one with events.unsubscribe first",
    );
  }
  const profile = params.profile !== undefined || state.options.pinnedProfile !== undefined
    ? (await state.options.resolveProfile(params.profile)).name
    : undefined;
  if (state.closed) throw domainError("connection_closed", "The connection closed");
  const filter: EventFilter = { profile, types: params.types, sessionId: params.session_id };
  const id = `sub_${crypto.randomUUID().replaceAll("-", "").slice(0, 16)}`;
  const unsubscribe = bus.subscribe(filter, (event, { dropped }) => {
    state.notify("event", { subscription_id: id, dropped, event });
  }, { queueLimit: SUBSCRIPTION_QUEUE_LIMIT });
  open.set(id, unsubscribe);
  return { subscription_id: id };
}

/**
 * A page's live feed of bus events over the dashboard's `/api/ws` socket:
 * `events.subscribe` on mount, again after the connection drops (tried
 * every `retryMs`), and `events.unsubscribe` on unmount.
 */

import { useEffect, useRef, useState } from "preact/hooks";
import { rpc } from "./rpc.ts";

/** What differs between the pages that watch events. */
export interface EventStreamOptions {
  /** How often a lost subscription is tried again (and `onTick` called). */
  retryMs: number;
  /** Only this profile's events; absent or "": every profile's. A change subscribes again. */
  profile?: string;
  /** Called every `retryMs` whatever the socket does (a poll for what publishes elsewhere). */
  onTick?: () => void;
  /**
   * Calls `onEvent(null)` once a lost connection is watched again, so the
   * page reloads what it missed while it was away.
   */
  reloadOnReconnect?: boolean;
}

/**
 * Calls `onEvent` with every event of `types` (an event's payload as the
 * bus sent it). Returns whether the events are being watched.
 */
export function useEventStream<E>(
  types: readonly string[],
  onEvent: (event: E | null) => void,
  options: EventStreamOptions,
): boolean {
  const latest = useRef({ onEvent, onTick: options.onTick });
  latest.current = { onEvent, onTick: options.onTick };
  const [live, setLive] = useState(false);
  const { retryMs, profile, reloadOnReconnect } = options;
  useEffect(() => {
    let closed = false;
    let subscription: string | undefined;
    let subscribing = false;
    let lost = false;
    const client = rpc();
    const stopListening = client.onNotification((notification) => {
      if (notification.method === "connection.closed") {
        subscription = undefined;
        lost = true;
        setLive(false);
      }
      if (
        notification.method === "event" &&
        notification.params.subscription_id === subscription
      ) {
        latest.current.onEvent(notification.params.event as E);
      }
    });
    const subscribe = async () => {
      if (subscription !== undefined || subscribing || closed) return;
      subscribing = true;
      try {
        const result = await client.call<{ subscription_id: string }>("events.subscribe", {
          types: [...types],
          ...(profile ? { profile } : {}),
        });
        if (closed) {
          client.call("events.unsubscribe", { subscription_id: result.subscription_id })
            .catch(() => {});
        } else {
          subscription = result.subscription_id;
          setLive(true);
          if (lost && reloadOnReconnect) latest.current.onEvent(null);
          lost = false;
        }
      } catch {
        // No live connection: tried again at the next tick.
        lost = true;
      } finally {
        subscribing = false;
      }
    };
    void subscribe();
    const timer = setInterval(() => {
      latest.current.onTick?.();
      void subscribe();
    }, retryMs);
    return () => {
      closed = true;
      clearInterval(timer);
      stopListening();
      setLive(false);
      if (subscription !== undefined) {
        client.call("events.unsubscribe", { subscription_id: subscription }).catch(() => {});
      }
    };
  }, [types.join("\n"), profile ?? "", retryMs, reloadOnReconnect === true]);
  return live;
}

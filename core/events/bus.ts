/**
 * The event bus: publishers hand it events, subscribers get the ones their
 * filter matches. Publishing never waits for a subscriber: each subscriber
 * has its own bounded queue, drained in order one event at a time (an async
 * handler is awaited before the next event). When a slow subscriber's queue
 * is full the oldest waiting event is dropped, and the next delivery says
 * how many were lost, so memory stays bounded whatever a subscriber does.
 *
 * @module
 */

import { type EventInput, type EventType, type HeraldEvent, HeraldEventSchema } from "./schema.ts";

/** What a publisher needs: the conversation object and the surfaces take this, not the bus. */
export interface EventPublisher {
  /** Publishes one event; returns at once. */
  publish(event: EventInput): void;
}

/** Which events a subscriber gets; an absent field matches everything. */
export interface EventFilter {
  /** Only this profile's events. */
  profile?: string;
  /** Only these event types. */
  types?: readonly EventType[];
  /** Only this session's events. */
  sessionId?: string;
}

/** What a subscriber learns besides the event. */
export interface Delivery {
  /** Events dropped from this subscriber's full queue since its previous delivery. */
  dropped: number;
}

/** Receives events; a returned promise is awaited before the next event is delivered. */
export type EventHandler = (event: HeraldEvent, delivery: Delivery) => void | Promise<void>;

/** Options of {@link EventBus.subscribe}. */
export interface SubscribeOptions {
  /** How many events may wait for this subscriber; 1000 by default. */
  queueLimit?: number;
}

/** Options of an {@link EventBus}. */
export interface EventBusOptions {
  /** The clock that stamps `at`. */
  now?: () => number;
  /** Told when a handler throws or rejects; the subscriber keeps receiving. */
  onHandlerError?(error: unknown, event: HeraldEvent): void;
}

/** How many events wait for one subscriber before the oldest is dropped. */
const DEFAULT_QUEUE_LIMIT = 1000;

/** True when `event` passes `filter`. */
function matchesFilter(filter: EventFilter, event: HeraldEvent): boolean {
  return (filter.profile === undefined || filter.profile === event.profile) &&
    (filter.types === undefined || filter.types.includes(event.type)) &&
    (filter.sessionId === undefined || filter.sessionId === event.session_id);
}

class Subscriber {
  readonly #queue: HeraldEvent[] = [];
  #dropped = 0;
  #draining = false;
  active = true;

  constructor(
    readonly filter: EventFilter,
    readonly handler: EventHandler,
    readonly limit: number,
    readonly onError: (error: unknown, event: HeraldEvent) => void,
  ) {}

  offer(event: HeraldEvent): void {
    if (this.#queue.length >= this.limit) {
      this.#queue.shift();
      this.#dropped++;
    }
    this.#queue.push(event);
    if (!this.#draining) {
      this.#draining = true;
      queueMicrotask(() => this.#drain());
    }
  }

  get waiting(): number {
    return this.#queue.length;
  }

  stop(): void {
    this.active = false;
    this.#queue.length = 0;
  }

  async #drain(): Promise<void> {
    try {
      while (this.active && this.#queue.length > 0) {
        const event = this.#queue.shift()!;
        const delivery = { dropped: this.#dropped };
        this.#dropped = 0;
        try {
          await this.handler(event, delivery);
        } catch (error) {
          this.onError(error, event);
        }
      }
    } finally {
      this.#draining = false;
    }
  }
}

/**
 * One process's events.
 *
 * @example
 * ```ts
 * const bus = new EventBus();
 * const stop = bus.subscribe({ types: ["message.complete"] }, (event) => console.log(event));
 * bus.publish({ type: "message.delta", profile: "default", session_id: null, source: "cli", text: "Hi" });
 * stop();
 * ```
 */
export class EventBus implements EventPublisher {
  readonly #subscribers = new Set<Subscriber>();
  readonly #watchers = new Set<() => void>();
  readonly #now: () => number;
  readonly #onHandlerError: (error: unknown, event: HeraldEvent) => void;
  #seq = 0;

  /** Creates a bus with no subscribers. */
  constructor(options: EventBusOptions = {}) {
    this.#now = options.now ?? Date.now;
    this.#onHandlerError = options.onHandlerError ?? (() => {});
  }

  /**
   * Stamps `event` with the next sequence number and the time, and queues
   * it for every subscriber whose filter matches. Returns the stamped event
   * without waiting for any subscriber.
   *
   * @throws TypeError when `event` does not match its schema (a bug in the publisher).
   */
  publish(event: EventInput): HeraldEvent {
    const checked = HeraldEventSchema.safeParse({ ...event, seq: this.#seq + 1, at: this.#now() });
    if (!checked.success) {
      throw new TypeError(`Invalid "${event.type}" event: ${checked.error.message}`);
    }
    this.#seq++;
    const stamped = checked.data;
    for (const subscriber of this.#subscribers) {
      if (matchesFilter(subscriber.filter, stamped)) subscriber.offer(stamped);
    }
    return stamped;
  }

  /**
   * Delivers the events matching `filter` to `handler`, in publishing order,
   * from now on. Returns the function that ends the subscription (events
   * still queued for it are discarded).
   *
   * @throws RangeError when `options.queueLimit` is not a positive integer.
   */
  subscribe(
    filter: EventFilter,
    handler: EventHandler,
    options: SubscribeOptions = {},
  ): () => void {
    const limit = options.queueLimit ?? DEFAULT_QUEUE_LIMIT;
    if (!Number.isInteger(limit) || limit < 1) {
      throw new RangeError(`Queue limit must be a positive integer, got ${limit}`);
    }
    const subscriber = new Subscriber(
      { ...filter, types: filter.types && [...filter.types] },
      handler,
      limit,
      this.#onHandlerError,
    );
    this.#subscribers.add(subscriber);
    this.#changed();
    return () => {
      subscriber.stop();
      if (this.#subscribers.delete(subscriber)) this.#changed();
    };
  }

  /**
   * True when an open subscription would receive an event of `type` (of
   * some profile and session): a publisher that must work to make such
   * events (the dashboard's kanban relay) works only then.
   */
  wants(type: EventType): boolean {
    for (const subscriber of this.#subscribers) {
      const types = subscriber.filter.types;
      if (types === undefined || types.includes(type)) return true;
    }
    return false;
  }

  /**
   * Calls `listener` after every subscribe and unsubscribe (to follow
   * {@link EventBus.wants}). Returns the function that stops it.
   */
  onSubscriptionsChange(listener: () => void): () => void {
    this.#watchers.add(listener);
    return () => void this.#watchers.delete(listener);
  }

  #changed(): void {
    for (const watcher of [...this.#watchers]) {
      try {
        watcher();
      } catch {
        // A watcher's failure is its own; the subscription stands.
      }
    }
  }

  /** How many subscriptions are open. */
  get subscriberCount(): number {
    return this.#subscribers.size;
  }

  /** How many events wait to be delivered, over all subscribers. */
  get waiting(): number {
    let total = 0;
    for (const subscriber of this.#subscribers) total += subscriber.waiting;
    return total;
  }
}

/**
 * The messaging gateway's core: the runner that answers every chat of
 * every channel in order and keeps the delivery promise.
 *
 * @module
 */

export {
  ATTACHMENT_GONE_TEXT,
  DEFAULT_MAX_CONVERSATIONS,
  DEFAULT_MAX_QUEUED_PER_CHAT,
  GatewayRunner,
  type GatewayRunnerOptions,
  type GatewayStatusSnapshot,
  type KeptAttachment,
  PAIRING_FULL_TEXT,
  type PlatformStatus,
  REPLAY_NOTE,
  RESTART_BASE_MS,
  STOP_WAIT_MS,
} from "./runner.ts";
export {
  type ChatSessionStore,
  NOTHING_RUNNING_TEXT,
  QUEUE_FULL_TEXT,
  QUEUED_TEXT,
  STOPPED_TEXT,
  TYPING_INTERVAL_MS,
} from "./chat_session.ts";
export {
  Courier,
  DEFAULT_DELIVERY_OPTIONS,
  type DeliveryOptions,
  type DeliveryOutcome,
  MAX_RETRY_AFTER_MS,
  retryDelay,
} from "./delivery.ts";

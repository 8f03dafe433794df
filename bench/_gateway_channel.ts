/**
 * A channel that lives in memory, for measuring the gateway's own work
 * (bench/gateway.ts): its plugin is given to `composeGateway` in place of the
 * bundled ones, a message handed to {@link MemoryChannel.say} goes straight
 * to the runner's `host.receive`, and `outbound.send` resolves at once after
 * telling the listener what was sent and when. No HTTP, no platform.
 *
 * @module
 */

import type {
  ChannelHost,
  ChannelPlugin,
  ChatAddress,
  OutboundReply,
  SendReceipt,
} from "../core/channels/contract.ts";

/** The platform id of the memory channel (`platforms.bench` in config.yaml). */
export const MEMORY_PLATFORM = "bench";

/** One reply the gateway sent through the memory channel. */
export interface MemorySend {
  to: ChatAddress;
  /** The texts of the reply's text parts, in order. */
  texts: string[];
  /** `performance.now()` when `outbound.send` was called. */
  at: number;
}

/** The memory channel: its plugin, and the two ends a bench drives. */
export interface MemoryChannel {
  /** Give it to `composeGateway({ plugins: [plugin] })`. */
  plugin: ChannelPlugin;
  /**
   * Hands a text message from `userId` in direct chat `chatId` to the
   * runner; resolves with `performance.now()` taken just before.
   */
  say(chatId: string, userId: string, text: string): Promise<number>;
  /** Called for every reply the gateway sends (before `send` resolves). */
  onSend(listener: (send: MemorySend) => void): void;
}

/**
 * Creates a memory channel. Its `start` keeps the runner's host; `say` fails
 * until the runner started it.
 *
 * @example
 * ```ts
 * const memory = createMemoryChannel();
 * const gateway = await composeGateway({ ...options, plugins: [memory.plugin] });
 * await gateway.runner.start();
 * memory.onSend((send) => console.log(send.texts));
 * await memory.say("7", "7", "hello");
 * ```
 */
export function createMemoryChannel(): MemoryChannel {
  let host: ChannelHost | undefined;
  let listener: (send: MemorySend) => void = () => {};
  let messageId = 0;
  let sentId = 0;
  const plugin: ChannelPlugin = {
    id: MEMORY_PLATFORM,
    label: "Memory (bench)",
    create: () => ({
      id: MEMORY_PLATFORM,
      label: "Memory (bench)",
      start(started: ChannelHost) {
        host = started;
        started.setState("connected");
        return Promise.resolve();
      },
      outbound: {
        chunkLimit: 4096,
        format: (markdown: string) => markdown,
        send(to: ChatAddress, reply: OutboundReply): Promise<SendReceipt> {
          const at = performance.now();
          const texts = reply.parts.flatMap((part) => part.kind === "text" ? [part.text] : []);
          listener({ to, texts, at });
          return Promise.resolve({ messageIds: reply.parts.map(() => String(++sentId)) });
        },
        typing: () => Promise.resolve(),
      },
    }),
  };
  return {
    plugin,
    async say(chatId, userId, text) {
      if (!host) throw new Error("The memory channel was not started by a gateway runner");
      const at = performance.now();
      await host.receive({
        chat: { platform: MEMORY_PLATFORM, chatId },
        chatKind: "direct",
        userId,
        text,
        attachments: [],
        messageId: String(++messageId),
        receivedAt: Date.now(),
      });
      return at;
    },
    onSend(next) {
      listener = next;
    },
  };
}

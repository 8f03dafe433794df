/**
 * A started gateway runner over the test channel, the in-memory ports and
 * the scripted runtime (see _fixtures.ts), for the runner's tests.
 *
 * @module
 */

import type { DeliveryLedger, PairingStore } from "../../../core/channels/ports.ts";
import { DEFAULT_ATTACHMENT_POLICY } from "../../../core/channels/attachments.ts";
import { GatewayRunner, type GatewayRunnerOptions } from "../../../core/gateway/mod.ts";
import {
  HandClock,
  MemoryChatSessions,
  MemoryLedger,
  MemoryPairingStore,
  TestChannel,
} from "./_fixtures.ts";
import { ScriptedBackend } from "./_scripted_runtime.ts";
import { allowEveryone } from "./_access.ts";

/** A started runner over one test channel (more with `channels`). */
export interface Rig<L extends DeliveryLedger = MemoryLedger> extends AsyncDisposable {
  runner: GatewayRunner;
  channel: TestChannel;
  clock: HandClock;
  ledger: L;
  pairing: PairingStore;
  sessions: MemoryChatSessions;
  backend: ScriptedBackend;
  logs: string[];
}

/**
 * Builds and starts a runner; `options` override the defaults (everyone
 * allowed, an in-memory ledger).
 */
export async function rig<L extends DeliveryLedger = MemoryLedger>(
  options: Partial<Omit<GatewayRunnerOptions, "ledger">> & {
    channel?: TestChannel;
    start?: boolean;
    clock?: HandClock;
    ledger?: L;
    pairing?: PairingStore;
  } = {},
): Promise<Rig<L>> {
  const clock = options.clock ?? new HandClock();
  const channel = options.channel ?? new TestChannel();
  // Without a ledger given, L is its default, MemoryLedger.
  const ledger = options.ledger ?? new MemoryLedger(clock) as unknown as L;
  const pairing = options.pairing ?? new MemoryPairingStore();
  const sessions = new MemoryChatSessions();
  const backend = new ScriptedBackend();
  const logs: string[] = [];
  const runner = new GatewayRunner({
    profile: "work",
    channels: [channel],
    openConversation: (_chat, resume) => backend.open(resume),
    chatSessions: sessions,
    ledger,
    pairing,
    access: () => allowEveryone(),
    attachments: () => DEFAULT_ATTACHMENT_POLICY,
    clock,
    log: (line) => void logs.push(line),
    ...options,
  });
  if (options.start !== false) await runner.start();
  return {
    runner,
    channel,
    clock,
    ledger,
    pairing,
    sessions,
    backend,
    logs,
    async [Symbol.asyncDispose]() {
      await runner.stop();
    },
  };
}

/**
 * The gateway as a real process under load, for bench/gateway.ts: `herald
 * gateway run` against the fake Telegram Bot API and the scripted model
 * server (the rig: bench/_gateway_rig.ts).
 *
 * - {@link benchGatewayChats}: many chats write at the same moment; each
 *   must get exactly one answer, the one the model gave to the request that
 *   carried that chat's message (the scripted server answers in arrival
 *   order, so the bench reads which request got which answer).
 * - {@link benchGatewayRss}: many messages, each chat writing again once
 *   answered; the process's VmRSS after every 1,000.
 *
 * Waits here are guards against a hang, never timings under test: a bench
 * fails on a lost, doubled or misrouted answer, not on a slow one.
 *
 * @module
 */

import { readRssMb } from "./_dashboard_process.ts";
import { delay, probeNow, startRig } from "./_gateway_rig.ts";
import type { ProbeReading } from "./_gateway_probe.ts";

/** The first user (and private chat) id; chat n is `FIRST_CHAT + n`. */
const FIRST_CHAT = 1001;
/** The chat that warms the gateway up before anything is measured. */
const WARMUP_CHAT = 999;

/** The text of the last user message of a recorded Chat Completions request. */
function lastUserText(body: unknown): string {
  const messages = (body as { messages?: { role?: string; content?: unknown }[] })?.messages ?? [];
  const user = messages.findLast((message) => message.role === "user");
  const content = user?.content;
  if (typeof content === "string") return content;
  if (Array.isArray(content)) {
    return content.map((part) => (part as { text?: string }).text ?? "").join("");
  }
  return "";
}

/** Figures of the chats-at-once run. */
export interface ChatsResult {
  chats: number;
  /** Wall time from the first message queued until every chat had its answer, per round. */
  roundsMs: number[];
  /** Chats answered exactly once, with their own answer, over the rounds. */
  answered: number;
  lost: number;
  misrouted: number;
}

/**
 * `chats` users write in their own chats at the same moment, twice (the
 * first round opens each chat's conversation, the second finds it open).
 * Throws when any chat got no answer, more than one, or another's.
 */
export async function benchGatewayChats(chats = 100, rounds = 2): Promise<ChatsResult> {
  const ids = Array.from({ length: chats }, (_, i) => FIRST_CHAT + i);
  await using rig = await startRig([WARMUP_CHAT, ...ids]);
  const { model, bot, watcher } = rig;
  /** Every answer queued, in order: the n-th model request gets the n-th. */
  const answers: string[] = [];
  const enqueue = () => {
    const text = `Answer number ${answers.length + 1}.`;
    answers.push(text);
    model.enqueue({ text });
  };
  const log = () => `the gateway printed:\n${rig.gateway.output()}`;

  // Warm-up: the agent runtime's modules load on the first conversation.
  enqueue();
  bot.userSays(WARMUP_CHAT, WARMUP_CHAT, "Warm-up message");
  await watcher.until(WARMUP_CHAT, 1, () => `the warm-up answer; ${log()}`);

  const roundsMs: number[] = [];
  for (let round = 1; round <= rounds; round++) {
    for (let i = 0; i < chats; i++) enqueue();
    const start = performance.now();
    for (const chat of ids) bot.userSays(chat, chat, `Round ${round} message from chat ${chat}`);
    await watcher.all(ids, round, () => `${chats} answers in round ${round}; ${log()}`);
    roundsMs.push(performance.now() - start);
  }
  // Anything sent twice or late shows up here.
  await delay(1000);

  const completions = model.requests.filter((request) => request.path === "/v1/chat/completions");
  const expected = new Map<number, string[]>();
  completions.forEach((request, n) => {
    const match = /Round (\d+) message from chat (\d+)/.exec(lastUserText(request.body));
    if (!match) return;
    const chat = Number(match[2]);
    const texts = expected.get(chat) ?? [];
    texts[Number(match[1]) - 1] = answers[n] ?? "(no scripted answer)";
    expected.set(chat, texts);
  });
  let answered = 0, lost = 0, misrouted = 0;
  const problems: string[] = [];
  for (const chat of ids) {
    const got = watcher.texts(chat);
    const want = expected.get(chat) ?? [];
    for (let round = 0; round < rounds; round++) {
      if (got[round] === undefined) {
        lost++;
        problems.push(`chat ${chat} round ${round + 1}: no answer`);
      } else if (want[round] === undefined || got[round] !== want[round]) {
        misrouted++;
        problems.push(
          `chat ${chat} round ${round + 1}: got "${got[round]}", its request was answered "${
            want[round]
          }"`,
        );
      } else {
        answered++;
      }
    }
    if (got.length > rounds) {
      misrouted += got.length - rounds;
      problems.push(`chat ${chat}: ${got.length - rounds} extra message(s): ${got.slice(rounds)}`);
    }
  }
  if (completions.length !== answers.length) {
    problems.push(`${completions.length} model requests for ${answers.length} messages`);
  }
  if (problems.length > 0) {
    throw new Error(`the gateway lost or misrouted answers:\n${problems.join("\n")}\n${log()}`);
  }
  return { chats, roundsMs, answered, lost, misrouted };
}

/** One RSS reading. */
export interface RssSample {
  /** Messages answered when it was read. */
  messages: number;
  /** VmRSS of /proc/<pid>/status. */
  rssMb: number;
  /** What the memory probe read right after, when it ran. */
  probe?: ProbeReading;
}

/** Figures of the memory run. */
export interface RssResult {
  messages: number;
  chats: number;
  /** The messages answered at the first reading (1,000, or a tenth of fewer). */
  firstMessages: number;
  firstMb: number;
  lastMb: number;
  /** A reading before the first message and after every step. */
  samples: RssSample[];
  /** How long the process was left alone before each reading. */
  settleMs: number;
  /** Wall time of all the messages (without the settling pauses). */
  wallMs: number;
  /** True when the memory probe ran (bench/_gateway_probe.ts). */
  probed: boolean;
  /** Every n-th message of a chat was `/new` (0: none). */
  newSessionEvery: number;
}

/**
 * Sends `messages` messages over `chats` chats (each chat writes its next
 * message once the last was answered) and reads the gateway's VmRSS,
 * `settleMs` after each step of 1,000 was answered (a tenth of the total
 * when that is less). With `probe`, the memory probe reads the heap and
 * malloc figures after each VmRSS reading (it collects garbage and trims
 * malloc, so the VmRSS readings after the first are lower than without).
 * With `newSessionEvery` (n > 0), every n-th message of a chat is `/new`,
 * so no chat's history grows past n turns. Throws when an answer is lost or
 * is not the scripted one.
 */
export async function benchGatewayRss(
  messages = 10_000,
  chats = 50,
  options: { settleMs?: number; probe?: boolean; newSessionEvery?: number } = {},
): Promise<RssResult> {
  const every = options.newSessionEvery ?? 0;
  // Longer than one heartbeat, on which the gateway gives freed memory back (lean_memory.ts).
  const settleMs = options.settleMs ?? 6000;
  const probed = options.probe ?? false;
  const ids = Array.from({ length: chats }, (_, i) => FIRST_CHAT + i);
  await using rig = await startRig([WARMUP_CHAT, ...ids], probed);
  const { model, bot, watcher, gateway } = rig;
  const pid = gateway.child.pid;
  const log = () => `the gateway printed:\n${gateway.output()}`;
  const answer = "Noted.";

  model.enqueue({ text: answer });
  bot.userSays(WARMUP_CHAT, WARMUP_CHAT, "Warm-up message");
  await watcher.until(WARMUP_CHAT, 1, () => `the warm-up answer; ${log()}`);
  const sample = async (messages: number): Promise<RssSample> => {
    await delay(settleMs);
    const rssMb = await readRssMb(pid);
    return { messages, rssMb, ...(probed ? { probe: await probeNow(rig) } : {}) };
  };
  const samples: RssSample[] = [await sample(0)];

  const step = Math.max(1, Math.min(1000, Math.floor(messages / 10)));
  const sentTo = new Map<number, number>(ids.map((chat) => [chat, 0]));
  let sent = 0;
  let wallMs = 0;
  while (sent < messages) {
    const target = Math.min(messages, sent + step);
    const start = performance.now();
    await Promise.all(ids.map(async (chat) => {
      while (sent < target) {
        sent++;
        const n = sentTo.get(chat)! + 1;
        sentTo.set(chat, n);
        const fresh = every > 0 && n % every === 0;
        if (!fresh) model.enqueue({ text: answer });
        bot.userSays(chat, chat, fresh ? "/new" : `Message ${n} from chat ${chat}`);
        await watcher.until(chat, n, () => `answer ${n} in chat ${chat}; ${log()}`);
      }
    }));
    wallMs += performance.now() - start;
    // The server keeps every request with its body (the whole history): not needed here.
    model.requests.length = 0;
    samples.push(await sample(target));
  }

  const problems: string[] = [];
  for (const chat of ids) {
    const texts = watcher.texts(chat);
    const wrong = texts.filter((text, i) =>
      every > 0 && (i + 1) % every === 0 ? !/new session/i.test(text) : text !== answer
    );
    if (texts.length !== sentTo.get(chat)) {
      problems.push(`chat ${chat}: ${texts.length} answers to ${sentTo.get(chat)} messages`);
    }
    if (wrong.length > 0) problems.push(`chat ${chat}: unexpected answers ${wrong.slice(0, 3)}`);
  }
  if (problems.length > 0) {
    throw new Error(`the gateway lost or misrouted answers:\n${problems.join("\n")}\n${log()}`);
  }
  const first = samples.find((sample) => sample.messages >= step)!;
  return {
    messages,
    chats,
    firstMessages: first.messages,
    firstMb: first.rssMb,
    lastMb: samples[samples.length - 1].rssMb,
    samples,
    settleMs,
    wallMs,
    probed,
    newSessionEvery: every,
  };
}

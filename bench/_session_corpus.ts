/**
 * A long, realistic session for the web app bench: user and assistant
 * turns in Markdown of the sizes a working session has (short questions,
 * pasted errors, answers with headings, lists, tables and code blocks),
 * generated deterministically and written into a profile's state.db
 * through the project's own store (its bulk path).
 *
 * @module
 */

import { openStateStore } from "../adapters/sqlite/mod.ts";
import type { ImportMessage } from "../core/sessions/store.ts";

/** Text only the session's first message holds. */
export const FIRST_MESSAGE_MARK = "Kick-off for the long benchmark session";
/** Text only the session's last message holds. */
export const LAST_MESSAGE_MARK = "That closes the long benchmark session";

/** What {@link seedLongSession} wrote. */
export interface SeededSession {
  id: string;
  messages: number;
  /** Characters of Markdown over all messages. */
  characters: number;
  /** Messages holding at least one fenced code block. */
  withCode: number;
}

const WORDS = (
  "the service config request handler cache queue worker retry deploy build test release " +
  "schema migration index query table column profile session token header route client " +
  "server timeout backoff window buffer stream parser error warning log metric trace span " +
  "bundle module import export function value result option default path file folder lock " +
  "write read commit branch merge review change diff patch version update install runtime"
).split(" ");
const LANGUAGES = ["ts", "python", "bash", "json", "sql", "yaml"];

/** A deterministic generator of random choices (a linear congruential one). */
function randomSource(seed: number) {
  let state = seed;
  const next = () => (state = (state * 1103515245 + 12345) % 2147483648) / 2147483648;
  const int = (low: number, high: number) => low + Math.floor(next() * (high - low + 1));
  const pick = <T>(list: readonly T[]): T => list[Math.floor(next() * list.length)];
  return { next, int, pick };
}

type Random = ReturnType<typeof randomSource>;

function sentence(random: Random): string {
  const words = Array.from({ length: random.int(7, 18) }, () => random.pick(WORDS));
  if (random.next() < 0.3) words[random.int(1, words.length - 1)] = `\`${random.pick(WORDS)}()\``;
  const text = words.join(" ");
  return text[0].toUpperCase() + text.slice(1) + ".";
}

function paragraph(random: Random, low = 2, high = 5): string {
  return Array.from({ length: random.int(low, high) }, () => sentence(random)).join(" ");
}

function codeBlock(random: Random): string {
  const language = random.pick(LANGUAGES);
  const lines = Array.from({ length: random.int(6, 40) }, (_, i) => {
    const [a, b, c] = [random.pick(WORDS), random.pick(WORDS), random.pick(WORDS)];
    switch (language) {
      case "ts":
        return `${"  ".repeat(i % 3)}const ${a}${i} = await ${b}.${c}({ ${a}: ${i} });`;
      case "python":
        return `${"    ".repeat(i % 3)}${a}_${i} = ${b}.${c}(${a}=${i})`;
      case "bash":
        return `herald ${a} --${b} ${c}-${i} | grep -v ${a}`;
      case "json":
        return `  "${a}_${i}": { "${b}": ${i}, "${c}": "${a}" },`;
      case "sql":
        return `SELECT ${a}, ${b} FROM ${c} WHERE ${a}_id = ${i};`;
      default:
        return `${"  ".repeat(i % 3)}${a}_${i}: ${b}-${c}`;
    }
  });
  return `\`\`\`${language}\n${lines.join("\n")}\n\`\`\``;
}

function table(random: Random): string {
  const rows = Array.from(
    { length: random.int(3, 6) },
    () => `| \`${random.pick(WORDS)}\` | ${random.int(1, 900)} ms | ${sentence(random)} |`,
  );
  return ["| step | time | note |", "| --- | --- | --- |", ...rows].join("\n");
}

function userMessage(random: Random, index: number): string {
  const parts = [paragraph(random, 1, 3)];
  if (random.next() < 0.2) parts.push("Here is what I see:", codeBlock(random));
  if (random.next() < 0.2) parts.push(paragraph(random, 1, 2));
  if (index === 0) parts.unshift(`${FIRST_MESSAGE_MARK}: the deploy pipeline first.`);
  return parts.join("\n\n");
}

function assistantMessage(random: Random, last: boolean): string {
  const parts = [paragraph(random)];
  if (random.next() < 0.5) parts.push(`## ${sentence(random).slice(0, 40)}`);
  if (random.next() < 0.6) {
    parts.push(
      Array.from({ length: random.int(3, 6) }, () => `- ${sentence(random)}`).join("\n"),
    );
  }
  if (random.next() < 0.4) parts.push(codeBlock(random));
  if (random.next() < 0.1) parts.push(table(random));
  parts.push(paragraph(random, 1, 3));
  if (last) parts.push(`${LAST_MESSAGE_MARK}.`);
  return parts.join("\n\n");
}

/** The session's messages: `pairs` user and assistant turns, one second apart. */
export function* longSessionMessages(
  sessionId: string,
  pairs: number,
  startedAt: number,
): Generator<ImportMessage> {
  const random = randomSource(7);
  for (let i = 0; i < pairs; i++) {
    yield {
      sessionId,
      role: "user",
      content: userMessage(random, i),
      timestamp: startedAt + 2000 * i,
    };
    yield {
      sessionId,
      role: "assistant",
      content: assistantMessage(random, i === pairs - 1),
      timestamp: startedAt + 2000 * i + 1000,
    };
  }
}

/**
 * Writes one session of `pairs` user/assistant turns into the state database
 * at `stateDb` (created when missing) through the store's bulk import.
 */
export function seedLongSession(stateDb: string, pairs: number): SeededSession {
  const id = `ses_bench_long_${pairs * 2}`;
  const startedAt = 1_760_000_000_000;
  let characters = 0;
  let withCode = 0;
  const counted = function* () {
    for (const message of longSessionMessages(id, pairs, startedAt)) {
      characters += message.content?.length ?? 0;
      if (message.content?.includes("```")) withCode++;
      yield message;
    }
  };
  const store = openStateStore(stateDb);
  try {
    const written = store.bulkImport(
      [{
        id,
        source: "cli",
        model: "bench-model",
        title: `Benchmark session of ${pairs * 2} messages`,
        startedAt,
      }],
      counted(),
    );
    return { id, messages: written.messages, characters, withCode };
  } finally {
    store.close();
  }
}

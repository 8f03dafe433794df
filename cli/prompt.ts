/**
 * Terminal questions without a prompt library: a line of text, a hidden
 * line (for keys: nothing typed is shown, each character is echoed as `*`),
 * and a choice from a numbered list. On a terminal the keys are read in raw
 * mode (Backspace and Ctrl-U edit, Ctrl-C cancels); when standard input is
 * not a terminal each question reads one line (`echo $KEY | herald login
 * openrouter`). Questions are written to standard error, so standard output
 * keeps only results.
 *
 * @module
 */

import { HeraldError } from "../core/errors.ts";
import { LineReader } from "./chat/lines.ts";
import type { CliContext } from "./context.ts";

/** What a {@link Prompter} reads from and writes to. */
export interface PromptIO {
  /** Standard input as bytes; read through one reader for every question. */
  input: ReadableStream<Uint8Array>;
  /** Writes a question or an echo (standard error). */
  write(text: string): void;
  /** True when a person types at a terminal: keys are read one by one. */
  interactive: boolean;
  /** Switches the terminal's raw mode, when there is a real terminal to switch. */
  setRaw?(on: boolean): void;
}

/** The person pressed Ctrl-C (or Ctrl-D on an empty answer): nothing more is asked or done. */
export class PromptCancelledError extends HeraldError {
  /** Creates the error. */
  constructor() {
    super("cancelled", "usage", "Cancelled; nothing more was changed");
  }
}

/** Standard input ended before a question that has no default was answered. */
export class PromptInputEndedError extends HeraldError {
  /** Creates the error for `question` (quoted without its trailing punctuation). */
  constructor(question: string) {
    const shown = question.trim().replace(/[:?]\s*$/, "");
    super(
      "input_ended",
      "usage",
      `Standard input ended before "${shown}" was answered; run the command on a terminal ` +
        "or give every answer on its own line",
      { details: { question: shown } },
    );
  }
}

/** One entry of a choice list. */
export interface Choice<T> {
  /** What the list shows. */
  label: string;
  /** What the answer returns. */
  value: T;
  /** A word that also selects the entry when typed (for example a provider id). */
  name?: string;
}

/** Options of {@link Prompter.askText}. */
export interface TextOptions {
  /** Returned for an empty answer, and shown in brackets. */
  default?: string;
  /** Accept an empty answer (returned as ""). */
  optional?: boolean;
}

/** Options of {@link Prompter.askChoice}. */
export interface ChoiceOptions {
  /** Index of the entry an empty answer picks. */
  default?: number;
}

const CTRL_C = "\x03";
const CTRL_D = "\x04";
const CTRL_U = "\x15";
const ESC = "\x1b";
/** An escape sequence at the start of the buffer: CSI (arrows, paste markers), SS3, or ESC + a key. */
const ESCAPE_SEQUENCE = new RegExp(`^${ESC}(\\[[0-?]*[ -/]*[@-~]|O.|.)?`, "s");

/** How typed characters are shown while a line is read key by key. */
type Echo = "text" | "mask";

/**
 * Asks questions on one input. Create one per command and {@link close} it
 * when done, so the input is released.
 *
 * @example
 * ```ts
 * const prompt = openPrompter(c);
 * try {
 *   const url = await prompt.askText("Base URL", { default: "http://127.0.0.1:11434/v1" });
 *   const key = await prompt.askHidden("API key");
 * } finally {
 *   await prompt.close();
 * }
 * ```
 */
export class Prompter {
  readonly #io: PromptIO;
  /** Piped input, read a line per answer. */
  #lines: LineReader | undefined;
  /** Terminal input, read key by key (raw mode). */
  #reader: ReadableStreamDefaultReader<Uint8Array> | undefined;
  readonly #decoder = new TextDecoder();
  #buffer = "";
  #ended = false;
  /** The last key ended a line with "\r": a "\n" right after it belongs to the same Enter. */
  #afterCarriageReturn = false;

  /** Wraps `io`; nothing is read until the first question. */
  constructor(io: PromptIO) {
    this.#io = io;
  }

  /** True when answers are typed at a terminal. */
  get interactive(): boolean {
    return this.#io.interactive;
  }

  /**
   * Asks for a line of text, trimmed. An empty answer gives the default
   * (or "" when `optional`); otherwise the question is asked again (on a
   * terminal) or refused (piped input).
   *
   * @throws PromptCancelledError on Ctrl-C.
   * @throws PromptInputEndedError when input ends with no default to use.
   */
  async askText(question: string, options: TextOptions = {}): Promise<string> {
    const shown = options.default ? `${question} [${options.default}]: ` : `${question}: `;
    while (true) {
      const answer = (await this.#ask(shown, "text"))?.trim();
      if (answer === undefined) {
        if (options.default !== undefined) return options.default;
        if (options.optional) return "";
        throw new PromptInputEndedError(question);
      }
      if (answer !== "") return answer;
      if (options.default !== undefined) return options.default;
      if (options.optional) return "";
      if (!this.interactive) throw new PromptInputEndedError(question);
      this.#io.write("An answer is needed (Ctrl-C cancels).\n");
    }
  }

  /**
   * Asks for a secret. On a terminal nothing typed is shown (each character
   * is echoed as `*`); piped input gives one line. The answer is trimmed;
   * "" means nothing was typed.
   *
   * @throws PromptCancelledError on Ctrl-C.
   */
  async askHidden(question: string): Promise<string> {
    return (await this.#ask(`${question}: `, "mask"))?.trim() ?? "";
  }

  /**
   * Asks for one entry of a numbered list: its number, or its `name`.
   * An empty answer picks the default entry, when there is one.
   *
   * @throws PromptCancelledError on Ctrl-C.
   * @throws PromptInputEndedError when input ends with no default to use.
   * @throws HeraldError `choice_invalid` (usage) for a wrong answer on piped input.
   */
  async askChoice<T>(
    question: string,
    choices: readonly Choice<T>[],
    options: ChoiceOptions = {},
  ): Promise<T> {
    if (choices.length === 0) throw new RangeError("askChoice needs at least one choice");
    const width = String(choices.length).length;
    const lines = choices.map((choice, i) => `  ${String(i + 1).padStart(width)}) ${choice.label}`);
    this.#io.write(`${question}\n${lines.join("\n")}\n`);
    const fallback = options.default === undefined ? undefined : choices[options.default];
    const range = choices.length === 1 ? "1" : `1-${choices.length}`;
    const shown = fallback ? `Choose ${range} [${options.default! + 1}]: ` : `Choose ${range}: `;
    while (true) {
      const answer = (await this.#ask(shown, "text"))?.trim();
      if (answer === undefined) {
        if (fallback) return fallback.value;
        throw new PromptInputEndedError(question);
      }
      if (answer === "" && fallback) return fallback.value;
      const picked = pick(choices, answer);
      if (picked) return picked.value;
      const problem = choices.length === 1
        ? `"${answer}" is not the choice; type 1`
        : `"${answer}" is not one of the choices; type a number from 1 to ${choices.length}`;
      if (!this.interactive) {
        throw new HeraldError("choice_invalid", "usage", `${question}: ${problem}`, {
          details: { answer },
        });
      }
      this.#io.write(`${problem}.\n`);
    }
  }

  /**
   * Releases the input (a question still waiting gives up); piped input is
   * closed, being read to its end. Safe to call more than once.
   */
  async close(): Promise<void> {
    const lines = this.#lines;
    this.#lines = undefined;
    await lines?.close();
    const reader = this.#reader;
    this.#reader = undefined;
    if (!reader) return;
    try {
      reader.releaseLock();
    } catch {
      await reader.cancel().catch(() => {});
    }
  }

  /** Writes `shown` and reads one answer; undefined when input ended before any of it. */
  async #ask(shown: string, echo: Echo): Promise<string | undefined> {
    this.#io.write(shown);
    if (!this.interactive) {
      const line = await this.#readLine();
      this.#io.write("\n");
      return line;
    }
    this.#io.setRaw?.(true);
    try {
      return await this.#readKeys(echo);
    } finally {
      this.#io.setRaw?.(false);
    }
  }

  /** One line of piped input, or undefined at its end. */
  async #readLine(): Promise<string | undefined> {
    this.#lines ??= new LineReader(this.#io.input);
    return (await this.#lines.next()) ?? undefined;
  }

  /** A line typed key by key on a terminal in raw mode. */
  async #readKeys(echo: Echo): Promise<string | undefined> {
    let value: string[] = [];
    const erase = (count: number) => {
      if (count > 0) this.#io.write("\b \b".repeat(count));
    };
    while (true) {
      if (this.#buffer === "") {
        if (this.#ended) {
          this.#io.write("\r\n");
          return value.length === 0 ? undefined : value.join("");
        }
        await this.#fill();
        continue;
      }
      const key = this.#takeKey();
      if (key === "\n" && this.#afterCarriageReturn) {
        this.#afterCarriageReturn = false;
        continue;
      }
      this.#afterCarriageReturn = key === "\r";
      if (key === CTRL_C || (key === CTRL_D && value.length === 0)) {
        this.#io.write(key === CTRL_C ? "^C\r\n" : "\r\n");
        throw new PromptCancelledError();
      }
      if (key === "\r" || key === "\n") {
        this.#io.write("\r\n");
        return value.join("");
      }
      if (key === "\x7f" || key === "\b") {
        if (value.length > 0) {
          value = value.slice(0, -1);
          erase(1);
        }
        continue;
      }
      if (key === CTRL_U) {
        erase(value.length);
        value = [];
        continue;
      }
      // Other control keys and escape sequences (arrows, paste markers) are ignored.
      if (key.startsWith(ESC) || key < " ") continue;
      value.push(key);
      this.#io.write(echo === "mask" ? "*" : key);
    }
  }

  /** Takes one key from the buffer: a character, or a whole escape sequence. */
  #takeKey(): string {
    const buffer = this.#buffer;
    if (buffer[0] === ESC) {
      const sequence = ESCAPE_SEQUENCE.exec(buffer)![0];
      this.#buffer = buffer.slice(sequence.length);
      return sequence;
    }
    const key = String.fromCodePoint(buffer.codePointAt(0)!);
    this.#buffer = buffer.slice(key.length);
    return key;
  }

  /** Reads the next chunk of input into the buffer. */
  async #fill(): Promise<void> {
    this.#reader ??= this.#io.input.getReader();
    const { value, done } = await this.#reader.read();
    if (done) {
      this.#ended = true;
      this.#buffer += this.#decoder.decode();
    } else {
      this.#buffer += this.#decoder.decode(value, { stream: true });
    }
  }
}

function pick<T>(choices: readonly Choice<T>[], answer: string): Choice<T> | undefined {
  if (/^\d+$/.test(answer)) return choices[Number(answer) - 1];
  const wanted = answer.toLowerCase();
  return choices.find((choice) => choice.name?.toLowerCase() === wanted);
}

/**
 * A {@link Prompter} over the command's standard input and error. Raw mode
 * is switched only in the real process on a terminal (`c.signals`), so
 * tests that pass a stream of their own drive the same key handling.
 */
export function openPrompter(c: CliContext): Prompter {
  const realTerminal = c.interactive && c.signals;
  return new Prompter({
    input: c.input(),
    write: (text) => c.io.err(text),
    interactive: c.interactive,
    ...(realTerminal ? { setRaw: (on: boolean) => Deno.stdin.setRaw(on) } : {}),
  });
}

/**
 * A scripted turn runtime for the runner's tests: real {@link Conversation}
 * objects over sessions that answer `echo: <text>` unless told otherwise,
 * and can hold a turn until released or interrupted.
 *
 * @module
 */

import { Conversation } from "../../../core/agent/conversation.ts";
import type {
  SendOptions,
  StartOptions,
  TurnResult,
  TurnRuntime,
  TurnSession,
} from "../../../core/agent/turn_runtime.ts";
import { NotFoundError } from "../../../core/errors.ts";

interface Deferred {
  promise: Promise<void>;
  resolve(): void;
}

function deferred(): Deferred {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => resolve = r);
  return { promise, resolve };
}

/**
 * What the scripted runtime's sessions store and how they answer: by
 * default `echo: <text>`; `answers` maps a text to another answer, `fail`
 * to an error thrown, `hold` keeps a turn running until `release(text)`
 * or the turn's signal aborts it.
 */
export class ScriptedBackend {
  /** Stored sessions: id -> the user texts of their turns. */
  readonly sessions = new Map<string, string[]>();
  readonly answers = new Map<string, string>();
  readonly fail = new Map<string, Error>();
  readonly holds = new Map<string, Deferred>();
  /** Texts whose turn was aborted. */
  readonly aborted: string[] = [];
  /** Runtimes opened and closed. */
  opened = 0;
  closed = 0;
  #ids = 0;

  hold(text: string): void {
    this.holds.set(text, deferred());
  }

  release(text: string): void {
    this.holds.get(text)?.resolve();
  }

  /** A fresh runtime (each conversation closes its own). */
  runtime(): TurnRuntime {
    this.opened++;
    return {
      profile: "work",
      source: "gateway",
      start: (_options?: StartOptions) => Promise.resolve(new ScriptedSession(this)),
      resume: (id: string) => {
        if (!this.sessions.has(id)) return Promise.reject(new NotFoundError("Session", id));
        return Promise.resolve(new ScriptedSession(this, id));
      },
      close: () => void this.closed++,
    };
  }

  /** Opens a real conversation over a fresh runtime, as the composition does. */
  open(resume?: string): Promise<Conversation> {
    return Conversation.open({ runtime: this.runtime(), ...(resume ? { resume } : {}) });
  }

  newId(): string {
    return `ses_${++this.#ids}`;
  }
}

class ScriptedSession implements TurnSession {
  model = "scripted";
  provider = "test";
  title: string | null = null;
  constructor(readonly backend: ScriptedBackend, public id: string | undefined = undefined) {}

  async send(text: string, options: SendOptions = {}): Promise<TurnResult> {
    const backend = this.backend;
    if (this.id === undefined) {
      this.id = backend.newId();
      backend.sessions.set(this.id, []);
    }
    const sessionId = this.id;
    backend.sessions.get(sessionId)!.push(text);
    const result = (response: string, aborted: boolean): TurnResult => ({
      sessionId,
      response,
      toolCalls: [],
      aborted,
      hitMaxTurns: false,
      modelCalls: 1,
    });
    const hold = backend.holds.get(text);
    if (hold) {
      const signal = options.signal;
      const stopped = new Promise<void>((resolve) => {
        if (signal?.aborted) resolve();
        signal?.addEventListener("abort", () => resolve(), { once: true });
      });
      await Promise.race([hold.promise, stopped]);
      if (signal?.aborted) {
        backend.aborted.push(text);
        return result("partial answ", true);
      }
    }
    const failure = backend.fail.get(text);
    if (failure) throw failure;
    return result(backend.answers.get(text) ?? `echo: ${text}`, false);
  }

  setModel(model: string): void {
    this.model = model;
  }
  deleteStored(): Promise<boolean> {
    return Promise.resolve(this.id !== undefined && this.backend.sessions.delete(this.id));
  }
  setTitle(title: string): Promise<void> {
    this.title = title;
    return Promise.resolve();
  }
  end(): Promise<void> {
    return Promise.resolve();
  }
}

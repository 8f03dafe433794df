/**
 * One chat over `/api/ws`: opens a session (`session.start`, fresh or
 * resumed), sends lines (`session.send`, text and slash commands alike) and
 * handles what they answer, relays the session's notifications to the
 * chat state, interrupts, and answers approvals. ChatPage reads its
 * {@link ChatView} through `subscribe` (its `useChatView` hook).
 */

import { errorMessage } from "../../lib/api.ts";
import { rpc, type RpcNotification } from "../../lib/rpc.ts";
import {
  type ChatAction,
  chatReducer,
  type ChatState,
  emptyChat,
  type NoticeItem,
  type SendOutcome,
} from "./chat_state.ts";
import { historyItems } from "./history.ts";
import { loadHistory } from "./sessions.ts";
import type { Completion } from "./slash.ts";

/** `session.start`'s result. */
interface Started {
  session_key: string;
  session_id: string | null;
  profile: string;
  provider: string;
  model: string;
}

/** An approval answer. */
export type ApprovalChoice = "once" | "session" | "always" | "deny";

/** Everything the page shows of the chat. */
export interface ChatView {
  chat: ChatState;
  /** The open session's stored id (null until it stores something). */
  sessionId: string | null;
  /** The profile the session runs on, as the server named it. */
  profile: string | null;
  provider: string | null;
  model: string | null;
  /** A session is being opened. */
  starting: boolean;
  /** Why the session could not be opened. */
  startError: string | null;
  /** Lines sent and not yet answered. */
  sending: number;
  /** Increases when the list of stored sessions may have changed. */
  listVersion: number;
}

/** How a session is opened. */
export interface OpenOptions {
  /** The profile ("" for the server's default). */
  profile: string;
  /** A stored session to continue. */
  resume?: string;
  /** A line shown at the top of the new transcript. */
  notice?: Omit<NoticeItem, "id" | "kind">;
}

/** A chat: one session at a time on the page's one connection. */
export class ChatController {
  #view: ChatView = {
    chat: emptyChat(),
    sessionId: null,
    profile: null,
    provider: null,
    model: null,
    starting: false,
    startError: null,
    sending: 0,
    listVersion: 0,
  };
  #listeners = new Set<(view: ChatView) => void>();
  #key: string | undefined;
  #ready: Promise<string | undefined> = Promise.resolve(undefined);
  #generation = 0;
  #options: OpenOptions = { profile: "" };
  #errorShown = false;
  #stopNotifications: () => void;

  /** `onSessionId` is told whenever the open session's stored id changes (for the URL). */
  constructor(private readonly onSessionId: (id: string | null) => void = () => {}) {
    this.#stopNotifications = rpc().onNotification((note) => this.#notified(note));
  }

  /** The current view. */
  get view(): ChatView {
    return this.#view;
  }

  /** Listens to view changes; returns the unsubscribe function. */
  subscribe(listener: (view: ChatView) => void): () => void {
    this.#listeners.add(listener);
    return () => void this.#listeners.delete(listener);
  }

  #set(patch: Partial<ChatView>): void {
    const before = this.#view.sessionId;
    this.#view = { ...this.#view, ...patch };
    for (const listener of this.#listeners) listener(this.#view);
    if (this.#view.sessionId !== before) this.onSessionId(this.#view.sessionId);
  }

  #dispatch(action: ChatAction): void {
    this.#set({ chat: chatReducer(this.#view.chat, action) });
  }

  /**
   * Opens a session (closing the one open before): fresh, or `resume`d with
   * its stored messages shown.
   */
  open(options: OpenOptions): Promise<void> {
    const generation = ++this.#generation;
    this.#options = options;
    this.#closeKey();
    this.#set({
      chat: chatReducer(emptyChat(), {
        type: "reset",
        items: options.notice ? [{ kind: "notice", ...options.notice }] : [],
      }),
      sessionId: options.resume ?? null,
      profile: null,
      provider: null,
      model: null,
      starting: true,
      startError: null,
      sending: 0,
    });
    const opening = this.#start(options, generation);
    this.#ready = opening.then((key) => key, () => undefined);
    return opening.then(() => {}, () => {});
  }

  async #start(options: OpenOptions, generation: number): Promise<string | undefined> {
    const params: Record<string, unknown> = {};
    if (options.profile) params.profile = options.profile;
    if (options.resume) params.resume = options.resume;
    const history = options.resume
      ? loadHistory(options.resume, options.profile).catch(() => undefined)
      : undefined;
    let started: Started;
    try {
      started = await rpc().call<Started>("session.start", params);
    } catch (error) {
      if (generation !== this.#generation) return undefined;
      if (options.resume) {
        // A session that cannot be reopened (deleted, another profile's): start afresh.
        const notice = {
          level: "error" as const,
          text: `Session ${options.resume} could not be reopened: ${
            errorMessage(error).replace(/\.?$/, ".")
          } A new chat started instead.`,
        };
        this.#options = { profile: options.profile };
        this.#set({
          chat: chatReducer(emptyChat(), { type: "reset", items: [{ kind: "notice", ...notice }] }),
          sessionId: null,
        });
        return await this.#start({ profile: options.profile }, generation);
      }
      this.#set({ starting: false, startError: errorMessage(error) });
      throw error;
    }
    if (generation !== this.#generation) {
      rpc().call("session.close", { session_key: started.session_key }).catch(() => {});
      return undefined;
    }
    this.#key = started.session_key;
    const loaded = await history;
    if (generation !== this.#generation) return this.#key;
    if (loaded) {
      const items = historyItems(loaded.messages, loaded.total - loaded.messages.length);
      if (options.notice) items.unshift({ kind: "notice", ...options.notice });
      this.#dispatch({ type: "reset", items });
    }
    this.#set({
      starting: false,
      sessionId: started.session_id,
      profile: started.profile,
      provider: started.provider,
      model: started.model,
    });
    return started.session_key;
  }

  /** Closes the open session on the server (it stays stored). */
  #closeKey(): void {
    const key = this.#key;
    this.#key = undefined;
    if (key) rpc().call("session.close", { session_key: key }).catch(() => {});
  }

  /** The open session's key, opening it again when the connection dropped it. */
  async #session(): Promise<string> {
    const key = await this.#ready;
    if (key && key === this.#key) return key;
    if (!this.#key) {
      await this.open({ ...this.#options, resume: this.#view.sessionId ?? undefined });
    }
    if (!this.#key) throw new Error(this.#view.startError ?? "No session is open");
    return this.#key;
  }

  /**
   * Sends one line as typed (text, or a slash command) and shows what it
   * answered.
   */
  async send(text: string): Promise<void> {
    this.#set({ sending: this.#view.sending + 1 });
    this.#errorShown = false;
    let generation = this.#generation;
    let shown = false;
    try {
      // Opening first: a resumed session's history replaces the transcript.
      const key = await this.#session();
      generation = this.#generation;
      this.#dispatch({ type: "user", text });
      shown = true;
      const outcome = await rpc().call<SendOutcome>("session.send", { session_key: key, text });
      await this.#outcome(key, outcome);
    } catch (error) {
      if (generation !== this.#generation) return;
      if (!shown) this.#dispatch({ type: "user", text });
      // A failed turn was already shown in its bubble (message.error).
      if (!this.#errorShown) {
        this.#dispatch({ type: "notice", level: "error", text: errorMessage(error) });
      }
    } finally {
      if (generation === this.#generation) {
        this.#set({ sending: Math.max(0, this.#view.sending - 1) });
      }
    }
  }

  async #outcome(key: string, outcome: SendOutcome): Promise<void> {
    if (key !== this.#key) return;
    switch (outcome.kind) {
      case "turn":
        this.#set({ sessionId: outcome.session_id, listVersion: this.#view.listVersion + 1 });
        return;
      case "set_model":
        this.#dispatch({ type: "outcome", outcome });
        this.#set({ model: outcome.model, provider: outcome.provider ?? this.#view.provider });
        return;
      case "new_session":
        this.#dispatch({ type: "outcome", outcome });
        this.#set({ sessionId: null, listVersion: this.#view.listVersion + 1 });
        return;
      case "resumed": {
        const loaded = await loadHistory(outcome.session_id, this.#options.profile).catch(() =>
          undefined
        );
        if (key !== this.#key) return;
        if (loaded) {
          this.#dispatch({
            type: "reset",
            items: historyItems(loaded.messages, loaded.total - loaded.messages.length),
          });
        }
        this.#dispatch({ type: "outcome", outcome });
        this.#set({ sessionId: outcome.session_id, listVersion: this.#view.listVersion + 1 });
        return;
      }
      case "exit": {
        // The server closed the session; a fresh one takes its place.
        this.#key = undefined;
        const shown = chatReducer(emptyChat(), { type: "outcome", outcome }).items[0];
        await this.open({
          profile: this.#options.profile,
          notice: shown.kind === "notice" ? { level: "info", text: shown.text } : undefined,
        });
        this.#set({ listVersion: this.#view.listVersion + 1 });
        return;
      }
      default:
        this.#dispatch({ type: "outcome", outcome });
    }
  }

  /** Stops the running turn (what came so far stays stored). */
  async interrupt(): Promise<void> {
    const key = this.#key;
    if (!key) return;
    try {
      await rpc().call("session.interrupt", { session_key: key });
    } catch (error) {
      this.#dispatch({ type: "notice", level: "error", text: errorMessage(error) });
    }
  }

  /** Answers the approval question on screen. */
  async respond(choice: ApprovalChoice): Promise<void> {
    const approval = this.#view.chat.approval;
    if (!approval) return;
    this.#dispatch({ type: "approval_answered" });
    try {
      await rpc().call("approval.respond", { id: approval.id, choice });
    } catch (error) {
      this.#dispatch({ type: "notice", level: "error", text: errorMessage(error) });
    }
  }

  /** The slash commands, bundles and skills the open session completes. */
  async catalog(): Promise<Completion[]> {
    const params: Record<string, unknown> = {};
    if (this.#key) params.session_key = this.#key;
    else if (this.#options.profile) params.profile = this.#options.profile;
    const answer = await rpc().call<{ commands: Completion[] }>("commands.catalog", params);
    return answer.commands;
  }

  #notified(note: RpcNotification): void {
    if (note.method === "connection.closed") {
      if (!this.#key) return;
      this.#key = undefined;
      this.#ready = Promise.resolve(undefined);
      this.#dispatch({ type: "disconnected" });
      this.#dispatch({
        type: "notice",
        level: "warning",
        text: "The connection to the dashboard closed. Sending again reopens this session.",
      });
      return;
    }
    const key = note.params.session_key;
    if (key === undefined ? note.method !== "notice" : key !== this.#key) return;
    if (note.method === "message.error") this.#errorShown = true;
    this.#dispatch({ type: "notification", method: note.method, params: note.params });
    const sessionId = note.params.session_id;
    if (
      (note.method === "message.start" || note.method === "message.complete") &&
      typeof sessionId === "string" && sessionId !== this.#view.sessionId
    ) {
      // A new session is stored from its first turn on: the side list shows it.
      this.#set({ sessionId, listVersion: this.#view.listVersion + 1 });
    }
    if (note.method === "message.complete" || note.method === "message.error") {
      this.#set({ listVersion: this.#view.listVersion + 1 });
    }
  }

  /** Closes the session and stops listening (the page is left). */
  dispose(): void {
    this.#generation++;
    this.#closeKey();
    this.#stopNotifications();
    this.#listeners.clear();
  }
}

/**
 * One bot of the fake Telegram Bot API (tests/fakes/telegram_api.ts): its
 * chats, queued updates, files, recorded calls, sent messages and scripted
 * failures, and the answers of each method in the real wire format.
 *
 * @module
 */

import { checkTelegramHtml } from "./_telegram_html.ts";

/** A token that matches the catalog's pattern; the default bot's. */
export const FAKE_TELEGRAM_TOKEN = "123456789:AAHfakeTokenForHeraldTests_abcdefghijk";

/** A chat as a test names it: a number (positive: private, negative: supergroup) or a spec. */
export type FakeChatSpec = number | {
  id: number;
  type?: "private" | "group" | "supergroup" | "channel";
  title?: string;
  /** A forum supergroup (topics). */
  forum?: boolean;
};

/** A user as a test names it: an id or a spec. */
export type FakeUserSpec = number | {
  id: number;
  firstName?: string;
  lastName?: string;
  username?: string;
  isBot?: boolean;
};

/** A file a user sends. */
export interface FakeUpload {
  name?: string;
  mimeType?: string;
  bytes: Uint8Array | string;
  /** The size Telegram reports, when it should differ from the bytes (a "too big" file). */
  size?: number;
}

/** What a user's message carries besides its text (which becomes the caption of a file). */
export interface UserSaysOptions {
  /** The forum topic (`message_thread_id`); makes the chat a forum. */
  threadId?: number;
  photo?: FakeUpload;
  document?: FakeUpload;
  audio?: FakeUpload;
  voice?: FakeUpload;
  video?: FakeUpload;
}

/**
 * A scripted failure: an error status (with `retry_after` for 429), a hang,
 * a dropped connection, or `swallow`: the call takes effect (a message is
 * sent) but its answer never comes, as when the sender dies before
 * Telegram's confirmation reaches it.
 */
export type FakeFailure =
  | { status: number; description?: string; retryAfter?: number; migrateToChatId?: number }
  | "hang"
  | "drop"
  | "swallow";

/** An uploaded file as the fake received it. */
export interface ReceivedFile {
  field: string;
  name: string;
  type: string;
  size: number;
  bytes: Uint8Array;
}

/** One call to the API, as received and answered. */
export interface RecordedCall {
  /** The method as called (`sendMessage`). */
  method: string;
  /** `json`, `multipart`, `form` or `query`: how the parameters came. */
  encoding: "json" | "multipart" | "form" | "query";
  /** The parameters (form fields are strings, JSON keeps its types). */
  params: Record<string, unknown>;
  /** The files of a multipart call, by field. */
  files: Record<string, ReceivedFile>;
  /** The HTTP status answered (0 while a call is held, for a hang or a dropped connection). */
  status: number;
}

/** A message the bot sent and the fake accepted. */
export interface SentMessage {
  method: string;
  messageId: number;
  chatId: number;
  threadId?: number;
  /** The text as sent, markup included (the `parse_mode` says how Telegram read it). */
  text?: string;
  parseMode?: string;
  caption?: string;
  /** The uploaded file of `sendPhoto`, `sendDocument`, `sendAudio`, `sendVideo`, `sendVoice`. */
  file?: ReceivedFile;
}

interface StoredFile {
  path: string;
  bytes: Uint8Array;
  size: number;
  uniqueId: string;
}

/** A JSON object. */
export type Json = Record<string, unknown>;

/** An answer to a call: a status and an envelope, or a dropped connection. */
export interface Answer {
  status: number;
  body?: Json;
  drop?: boolean;
}

const DOWNLOAD_LIMIT = 20 * 1024 * 1024;
const UPLOAD_LIMIT = 50 * 1024 * 1024;
const PHOTO_LIMIT = 10 * 1024 * 1024;
const CHAT_ACTIONS = new Set([
  "typing",
  "upload_photo",
  "record_video",
  "upload_video",
  "record_voice",
  "upload_voice",
  "upload_document",
  "choose_sticker",
  "find_location",
  "record_video_note",
  "upload_video_note",
]);
const UPLOAD_FIELDS: Record<string, string> = {
  sendphoto: "photo",
  senddocument: "document",
  sendaudio: "audio",
  sendvideo: "video",
  sendvoice: "voice",
};

/** An error envelope. */
export function error(status: number, description: string, parameters?: Json): Answer {
  return {
    status,
    body: { ok: false, error_code: status, description, ...(parameters ? { parameters } : {}) },
  };
}

/** A success envelope. */
export function ok(result: unknown): Answer {
  return { status: 200, body: { ok: true, result } };
}

function bytesOf(data: Uint8Array | string): Uint8Array {
  return typeof data === "string" ? new TextEncoder().encode(data) : data;
}

function integer(value: unknown): number | undefined {
  if (typeof value === "number" && Number.isInteger(value)) return value;
  if (typeof value === "string" && /^-?\d+$/.test(value)) return Number(value);
  return undefined;
}

/** One bot of the fake API: its chats, updates, files, calls and scripted failures. */
export class FakeBot {
  readonly token: string;
  readonly id: number;
  readonly username: string;
  /** Every call, in order. */
  readonly calls: RecordedCall[] = [];
  /** Every message the bot sent, in order. */
  readonly sent: SentMessage[] = [];
  /** Every update ever queued for the bot, in order (confirmed ones too). */
  readonly history: Json[] = [];
  #updates: Json[] = [];
  #nextUpdateId = 500_000;
  #nextMessageId = 1;
  #nextFileId = 1;
  #chats = new Map<number, Json>();
  #blocked = new Set<number>();
  #files = new Map<string, StoredFile>();
  #failures = new Map<string, { failure: FakeFailure; skip: number }[]>();
  #allowedUpdates: string[] | undefined;
  #webhook = false;
  #poller: ((answer: Answer) => void) | undefined;
  #listeners = new Set<() => void>();

  /** Creates a bot; {@link FakeTelegram.addBot} is the way to get one. */
  constructor(token: string, username: string, id: number) {
    this.token = token;
    this.username = username;
    this.id = id;
  }

  /** The bot's `User`, as `getMe` answers it (messages carry the first four fields). */
  get user(): Json {
    return {
      id: this.id,
      is_bot: true,
      first_name: this.username.replace(/_?bot$/i, "") || this.username,
      username: this.username,
      can_join_groups: true,
      can_read_all_group_messages: false,
      supports_inline_queries: false,
    };
  }

  /**
   * A user writes to the bot: queues a `message` update and returns it.
   * With a file, `text` becomes its caption.
   */
  userSays(
    chat: FakeChatSpec,
    user: FakeUserSpec,
    text: string,
    options: UserSaysOptions = {},
  ): Json {
    const from = userOf(user);
    const chatJson = this.knowChat(chat, from, options.threadId !== undefined);
    const message: Json = {
      message_id: this.#nextMessageId++,
      from,
      chat: chatJson,
      date: Math.floor(Date.now() / 1000),
    };
    if (options.threadId !== undefined) {
      message.message_thread_id = options.threadId;
      message.is_topic_message = true;
    }
    const media = this.#mediaOf(options);
    Object.assign(message, media);
    if (text !== "") message[Object.keys(media).length > 0 ? "caption" : "text"] = text;
    this.#queue({ message });
    return message;
  }

  /** A post in a channel the bot administers (a `channel_post` update). */
  channelPost(chatId: number, text: string): Json {
    const message = {
      message_id: this.#nextMessageId++,
      chat: { id: chatId, type: "channel", title: `Channel ${chatId}` },
      date: Math.floor(Date.now() / 1000),
      text,
    };
    this.#queue({ channel_post: message });
    return message;
  }

  /** Makes a chat known to the bot (as if someone had written from it) and returns its `Chat`. */
  knowChat(chat: FakeChatSpec, from?: Json, forum = false): Json {
    const spec = typeof chat === "number" ? { id: chat } : chat;
    const existing = this.#chats.get(spec.id);
    if (existing !== undefined) {
      if (forum) existing.is_forum = true;
      return existing;
    }
    const type = spec.type ?? (spec.id > 0 ? "private" : "supergroup");
    const json: Json = { id: spec.id, type };
    if (type === "private") {
      json.first_name = from?.first_name ?? `User ${spec.id}`;
      if (from?.username !== undefined) json.username = from.username;
    } else {
      json.title = spec.title ?? `Group ${spec.id}`;
    }
    if (forum || (typeof chat === "object" && chat.forum)) json.is_forum = true;
    this.#chats.set(spec.id, json);
    return json;
  }

  /** The user of a private chat blocked the bot: sends there answer 403. */
  block(chatId: number): void {
    this.#blocked.add(chatId);
  }

  /** A webhook is set (or removed): `getUpdates` answers 409 while it is. */
  setWebhook(active: boolean): void {
    this.#webhook = active;
  }

  /** The next `count` calls of `method`, after `after` calls that succeed, fail as scripted. */
  failNext(method: string, failure: FakeFailure, count = 1, after = 0): void {
    const queue = this.#failures.get(method.toLowerCase()) ?? [];
    for (let i = 0; i < count; i++) queue.push({ failure, skip: i === 0 ? after : 0 });
    this.#failures.set(method.toLowerCase(), queue);
  }

  /** The calls of one method, in order. */
  callsOf(method: string): RecordedCall[] {
    return this.calls.filter((call) => call.method.toLowerCase() === method.toLowerCase());
  }

  /** Updates not yet confirmed by a `getUpdates` offset. */
  get pendingUpdates(): number {
    return this.#updates.length;
  }

  /**
   * Resolves with the messages sent to `chat` (or matching the predicate)
   * once there are at least `count`; rejects after `timeoutMs` saying what
   * was sent instead.
   */
  async waitForSent(
    match: number | ((message: SentMessage) => boolean),
    options: { count?: number; timeoutMs?: number } = {},
  ): Promise<SentMessage[]> {
    const test = typeof match === "number" ? (m: SentMessage) => m.chatId === match : match;
    const count = options.count ?? 1;
    const found = () => this.sent.filter(test);
    await this.#waitUntil(
      () => found().length >= count,
      options.timeoutMs ?? 10_000,
      () =>
        `${count} message(s) ${typeof match === "number" ? `to chat ${match}` : "matching"}; ` +
        `sent so far: ${JSON.stringify(this.sent.map((m) => [m.method, m.chatId, m.text]))}`,
    );
    return found();
  }

  /** Resolves once `method` has been called `count` times in all. */
  async waitForCall(method: string, count = 1, timeoutMs = 10_000): Promise<RecordedCall[]> {
    await this.#waitUntil(
      () => this.callsOf(method).length >= count,
      timeoutMs,
      () => `${count} call(s) of ${method}; calls so far: ${this.calls.map((c) => c.method)}`,
    );
    return this.callsOf(method);
  }

  /** Ends a held poll (the server closing). */
  release(): void {
    this.#poller?.(ok([]));
    for (const listener of [...this.#listeners]) listener();
  }

  #waitUntil(done: () => boolean, timeoutMs: number, what: () => string): Promise<void> {
    if (done()) return Promise.resolve();
    return new Promise((resolve, reject) => {
      const check = () => {
        if (!done()) return;
        clearTimeout(timer);
        this.#listeners.delete(check);
        resolve();
      };
      const timer = setTimeout(() => {
        this.#listeners.delete(check);
        reject(new Error(`fake Telegram: waited ${timeoutMs} ms for ${what()}`));
      }, timeoutMs);
      this.#listeners.add(check);
    });
  }

  #notify(): void {
    for (const listener of [...this.#listeners]) listener();
  }

  #queue(update: Json): void {
    const queued = { update_id: this.#nextUpdateId++, ...update };
    this.history.push(queued);
    this.#updates.push(queued);
    this.#notify();
  }

  #storeFile(upload: FakeUpload, folder: string, extension: string): Json {
    const n = this.#nextFileId++;
    const bytes = bytesOf(upload.bytes);
    const fileId = `BQACAgIAAxkBAAI${n}fake${this.id}`;
    const stored: StoredFile = {
      path: `${folder}/file_${n}${extension}`,
      bytes,
      size: upload.size ?? bytes.length,
      uniqueId: `AgAD${n}`,
    };
    this.#files.set(fileId, stored);
    return { file_id: fileId, file_unique_id: stored.uniqueId, file_size: stored.size };
  }

  #mediaOf(options: UserSaysOptions): Json {
    const media: Json = {};
    if (options.photo) {
      const full = this.#storeFile(options.photo, "photos", ".jpg");
      const bytes = bytesOf(options.photo.bytes);
      const thumb = this.#storeFile(
        { bytes: bytes.slice(0, Math.ceil(bytes.length / 4)) },
        "photos",
        ".jpg",
      );
      media.photo = [{ ...thumb, width: 90, height: 60 }, { ...full, width: 1280, height: 853 }];
    }
    const described = (upload: FakeUpload, folder: string, fallbackType: string): Json => {
      const extension = upload.name?.match(/\.[^.]+$/)?.[0] ?? "";
      const ref = this.#storeFile(upload, folder, extension);
      return {
        ...ref,
        ...(upload.name === undefined ? {} : { file_name: upload.name }),
        mime_type: upload.mimeType ?? fallbackType,
      };
    };
    if (options.document) {
      media.document = described(options.document, "documents", "application/octet-stream");
    }
    if (options.audio) {
      media.audio = { ...described(options.audio, "music", "audio/mpeg"), duration: 3 };
    }
    if (options.voice) {
      const voice = described({ ...options.voice, name: undefined }, "voice", "audio/ogg");
      media.voice = { ...voice, duration: 2 };
    }
    if (options.video) {
      media.video = {
        ...described(options.video, "videos", "video/mp4"),
        width: 640,
        height: 360,
        duration: 4,
      };
    }
    return media;
  }

  /** Answers one method call (the scripted failures already taken). */
  async answer(
    method: string,
    params: Json,
    files: Record<string, ReceivedFile>,
    signal: AbortSignal,
  ): Promise<Answer> {
    switch (method.toLowerCase()) {
      case "getme":
        return ok(this.user);
      case "getupdates":
        return await this.#getUpdates(params, signal);
      case "deletewebhook":
        this.#webhook = false;
        return ok(true);
      case "getwebhookinfo":
        return ok({
          url: this.#webhook ? "https://example.invalid/hook" : "",
          pending_update_count: this.#updates.length,
        });
      case "sendmessage":
        return this.#sendMessage(params);
      case "sendchataction": {
        const target = this.#target(params);
        if ("status" in target) return target;
        if (!CHAT_ACTIONS.has(String(params.action))) {
          return error(400, "Bad Request: wrong parameter action in request");
        }
        return ok(true);
      }
      case "getfile": {
        const stored = this.#files.get(String(params.file_id ?? ""));
        if (stored === undefined) return error(400, "Bad Request: invalid file_id");
        if (stored.size > DOWNLOAD_LIMIT) return error(400, "Bad Request: file is too big");
        return ok({
          file_id: params.file_id,
          file_unique_id: stored.uniqueId,
          file_size: stored.size,
          file_path: stored.path,
        });
      }
      default:
        if (UPLOAD_FIELDS[method.toLowerCase()] !== undefined) {
          return this.#sendFile(method, UPLOAD_FIELDS[method.toLowerCase()], params, files);
        }
        return error(404, "Not Found");
    }
  }

  /** The bytes at a `file_path` `getFile` gave, if any. */
  download(path: string): Uint8Array | undefined {
    for (const file of this.#files.values()) if (file.path === path) return file.bytes;
    return undefined;
  }

  async #getUpdates(params: Json, signal: AbortSignal): Promise<Answer> {
    if (this.#webhook) {
      return error(
        409,
        "Conflict: can't use getUpdates method while webhook is active; use deleteWebhook to delete the webhook first",
      );
    }
    const offset = integer(params.offset);
    if (offset !== undefined && offset > 0) {
      this.#updates = this.#updates.filter((update) => Number(update.update_id) >= offset);
    }
    const allowed = typeof params.allowed_updates === "string"
      ? JSON.parse(params.allowed_updates) as string[]
      : params.allowed_updates as string[] | undefined;
    if (Array.isArray(allowed)) this.#allowedUpdates = allowed.length === 0 ? undefined : allowed;
    const limit = Math.min(100, Math.max(1, integer(params.limit) ?? 100));
    const timeout = Math.min(50, Math.max(0, integer(params.timeout) ?? 0));
    const available = () => {
      const wanted = this.#updates.filter((update) =>
        this.#allowedUpdates === undefined ||
        this.#allowedUpdates.some((type) => type in update)
      );
      return wanted.slice(0, limit);
    };
    this.#poller?.(
      error(
        409,
        "Conflict: terminated by other getUpdates request; make sure that only one bot instance is running",
      ),
    );
    if (available().length > 0 || timeout === 0) return ok(available());
    return await new Promise<Answer>((resolve) => {
      const finish = (answer: Answer) => {
        clearTimeout(timer);
        this.#listeners.delete(check);
        signal.removeEventListener("abort", aborted);
        if (this.#poller === finish) this.#poller = undefined;
        resolve(answer);
      };
      const check = () => {
        if (available().length > 0) finish(ok(available()));
      };
      const aborted = () => finish({ status: 0 });
      const timer = setTimeout(() => finish(ok(available())), timeout * 1000);
      this.#poller = finish;
      this.#listeners.add(check);
      signal.addEventListener("abort", aborted, { once: true });
    });
  }

  #target(params: Json): { chat: Json; chatId: number; threadId?: number } | Answer {
    const chatId = integer(params.chat_id);
    if (params.chat_id === undefined || params.chat_id === "") {
      return error(400, "Bad Request: chat_id is empty");
    }
    const chat = chatId === undefined ? undefined : this.#chats.get(chatId);
    if (chatId === undefined || chat === undefined) {
      return error(400, "Bad Request: chat not found");
    }
    if (this.#blocked.has(chatId)) return error(403, "Forbidden: bot was blocked by the user");
    const threadId = integer(params.message_thread_id);
    if (threadId !== undefined && chat.is_forum !== true) {
      return error(400, "Bad Request: message thread not found");
    }
    return { chat, chatId, ...(threadId === undefined ? {} : { threadId }) };
  }

  #sendMessage(params: Json): Answer {
    const target = this.#target(params);
    if ("status" in target) return target;
    const text = typeof params.text === "string" ? params.text : "";
    const parseMode = typeof params.parse_mode === "string" ? params.parse_mode : undefined;
    let visible = text;
    if (parseMode?.toLowerCase() === "html") {
      const checked = checkTelegramHtml(text);
      if (!checked.ok) return error(400, checked.description);
      visible = checked.visible;
    } else if (parseMode !== undefined) {
      return error(400, `Bad Request: unsupported parse_mode "${parseMode}" in the fake`);
    }
    if (visible.trim() === "") return error(400, "Bad Request: message text is empty");
    if (visible.length > 4096) return error(400, "Bad Request: message is too long");
    const message = this.#record("sendMessage", target, { text: visible }, {
      text,
      ...(parseMode === undefined ? {} : { parseMode }),
    });
    return ok(message);
  }

  #sendFile(
    method: string,
    field: string,
    params: Json,
    files: Record<string, ReceivedFile>,
  ): Answer {
    const target = this.#target(params);
    if ("status" in target) return target;
    const file = files[field];
    if (file === undefined) {
      return error(
        400,
        typeof params[field] === "string"
          ? "Bad Request: wrong file identifier/HTTP URL specified"
          : `Bad Request: there is no ${field} in the request`,
      );
    }
    if (file.size > (field === "photo" ? PHOTO_LIMIT : UPLOAD_LIMIT)) {
      return error(413, "Request Entity Too Large");
    }
    const ref = this.#storeFile({ bytes: file.bytes, name: file.name }, "sent", "");
    const content: Json = field === "photo" ? { photo: [{ ...ref, width: 1280, height: 853 }] } : {
      [field]: {
        ...ref,
        file_name: file.name,
        mime_type: file.type || "application/octet-stream",
      },
    };
    const caption = typeof params.caption === "string" ? params.caption : undefined;
    const message = this.#record(method, target, { ...content, ...(caption ? { caption } : {}) }, {
      file,
      ...(caption === undefined ? {} : { caption }),
    });
    return ok(message);
  }

  #record(
    method: string,
    target: { chat: Json; chatId: number; threadId?: number },
    content: Json,
    extra: Partial<SentMessage>,
  ): Json {
    const messageId = this.#nextMessageId++;
    this.sent.push({
      method,
      messageId,
      chatId: target.chatId,
      ...(target.threadId === undefined ? {} : { threadId: target.threadId }),
      ...extra,
    });
    this.#notify();
    return {
      message_id: messageId,
      from: {
        id: this.id,
        is_bot: true,
        first_name: this.user.first_name,
        username: this.username,
      },
      chat: target.chat,
      date: Math.floor(Date.now() / 1000),
      ...(target.threadId === undefined
        ? {}
        : { message_thread_id: target.threadId, is_topic_message: true }),
      ...content,
    };
  }

  /** Takes the next scripted failure of `method`, if any. */
  takeFailure(method: string): FakeFailure | undefined {
    const queue = this.#failures.get(method.toLowerCase());
    const next = queue?.[0];
    if (next === undefined) return undefined;
    if (next.skip > 0) {
      next.skip -= 1;
      return undefined;
    }
    return queue?.shift()?.failure;
  }

  /** Records a call and wakes the waiters. */
  recordCall(call: RecordedCall): void {
    this.calls.push(call);
    this.#notify();
  }
}

function userOf(spec: FakeUserSpec): Json {
  const user = typeof spec === "number" ? { id: spec } : spec;
  return {
    id: user.id,
    is_bot: user.isBot ?? false,
    first_name: user.firstName ?? `User${user.id}`,
    ...(user.lastName === undefined ? {} : { last_name: user.lastName }),
    ...(user.username === undefined ? {} : { username: user.username }),
    language_code: "en",
  };
}

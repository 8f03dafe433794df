/**
 * A fake LINE platform for tests, on 127.0.0.1 with OS-assigned ports:
 *
 * - `api.line.me` ({@link FakeLine.apiBase}): `POST /v2/bot/message/reply`,
 *   `POST /v2/bot/message/push` (with `X-Line-Retry-Key`: a key accepted
 *   before answers 409 with the first call's `sentMessages`),
 *   `POST /v2/bot/chat/loading/start` (202, one-to-one chats only) and
 *   `GET /v2/bot/info`;
 * - `api-data.line.me` ({@link FakeLine.dataBase}):
 *   `GET /v2/bot/message/{id}/content`.
 *
 * Both speak the real wire format: `Authorization: Bearer <token>` (else
 * 401), LINE's JSON bodies and error bodies (`{"message", "details"}`),
 * `x-line-request-id` on every answer, reply tokens that work once (then
 * 400 `Invalid reply token`), message lists checked against LINE's limits
 * (tests/fakes/_line_messages.ts). Product code reaches it through
 * `LINE_API_BASE` / `LINE_DATA_API_BASE` and cannot tell it from LINE.
 *
 * It also plays LINE's side of the webhook: {@link FakeLine.userSays},
 * {@link FakeLine.tap} and {@link FakeLine.deliver} build events
 * (`webhookEventId`, `replyToken`, `deliveryContext`, ...), sign the body
 * with the channel secret (`x-line-signature`) and POST it to
 * {@link FakeLine.webhookUrl}. Every API request is recorded
 * ({@link FakeLine.requests}), every accepted message call too
 * ({@link FakeLine.sent}); failures are scripted with {@link FakeLine.failNext}.
 *
 * Run alone (`deno run -A tests/fakes/line_api.ts`), it prints
 * `{"apiBase","dataBase"}` as its first line and serves a control API under
 * `/_fake/` on the API host (see {@link FakeLine.control}) until killed.
 *
 * @example
 * ```ts
 * await using line = await startFakeLine();
 * line.webhookUrl = `http://127.0.0.1:${channel.port}/line/webhook`;
 * await line.userSays({ user: "U4af4...", text: "hello" });
 * const [batch] = await line.waitForSent(1);
 * ```
 *
 * @module
 */

import { HeldRequests } from "./_hangs.ts";
import {
  chatOf,
  checkMessages,
  defaultMessage,
  endpointOf,
  type FakeLineEndpoint,
  type FakeSource,
  hex,
  lineSignature,
  sourceOf,
  ulid,
} from "./_line_wire.ts";

export { type FakeLineEndpoint, type FakeSource, lineSignature } from "./_line_wire.ts";

/** The channel access token the fake accepts by default. */
export const FAKE_LINE_TOKEN = "fakeLineChannelAccessToken0123456789+/abcdefghij=";
/** The channel secret the fake signs webhooks with by default (the reference vectors' one). */
export const FAKE_LINE_SECRET = "0123456789abcdef0123456789abcdef";
/** The bot's user id (`destination`). */
export const FAKE_BOT_USER_ID = "U0123456789abcdef0123456789abcdef";

/** One request to the fake API, as received and answered. */
export interface RecordedRequest {
  host: "api" | "data";
  method: string;
  path: string;
  headers: Record<string, string>;
  /** The parsed JSON body, when there was one. */
  body?: unknown;
  /** The status answered (0 for a hang or a dropped connection). */
  status: number;
}

/** A reply or push LINE accepted. */
export interface SentBatch {
  via: "reply" | "push";
  /** The chat: the push's `to`, or the chat the reply token came from. */
  to: string;
  messages: Record<string, unknown>[];
  replyToken?: string;
  retryKey?: string;
  ids: string[];
}

/**
 * A scripted failure: a status (with LINE's body), a hang until the client
 * gives up, or a drop. With `accept`, a reply or push is taken (sent, its
 * retry key remembered) before the error is answered: LINE's "5xx, but it
 * went through" case that `X-Line-Retry-Key` exists for.
 */
export type FakeLineFailure =
  | { status: number; message?: string; accept?: boolean }
  | "hang"
  | "drop";

/** An event as delivered, with the answer the webhook gave. */
export interface Delivery {
  events: Record<string, unknown>[];
  status: number;
  body: string;
}

/** Options of {@link FakeLine.deliver}. */
export interface DeliverOptions {
  /** The signature header to send instead of the right one; null sends none. */
  signature?: string | null;
  /** Signs with this secret instead of the fake's. */
  secret?: string;
  /** Sends these bytes instead of the JSON of the events (signed as `signedBody` or themselves). */
  rawBody?: Uint8Array | ReadableStream<Uint8Array>;
  /** The bytes the signature is computed over, when not the body sent. */
  signedBody?: Uint8Array;
}

/** The running fake. */
export class FakeLine implements AsyncDisposable {
  /** Put in `LINE_API_BASE`. */
  readonly apiBase: string;
  /** Put in `LINE_DATA_API_BASE`. */
  readonly dataBase: string;
  /** Where webhooks are POSTed (`http://127.0.0.1:<port>/line/webhook`). */
  webhookUrl: string | undefined;
  readonly token: string;
  readonly secret: string;
  readonly botUserId = FAKE_BOT_USER_ID;
  readonly requests: RecordedRequest[] = [];
  readonly sent: SentBatch[] = [];
  readonly #replyTokens = new Map<string, { chat: string; used: boolean }>();
  readonly #retryKeys = new Map<string, { ids: string[] }>();
  readonly #content = new Map<string, { bytes: Uint8Array; type: string }>();
  readonly #failures = new Map<FakeLineEndpoint, FakeLineFailure[]>();
  readonly #hangs = new HeldRequests();
  readonly #api: Deno.HttpServer<Deno.NetAddr>;
  readonly #data: Deno.HttpServer<Deno.NetAddr>;
  #nextId = 500_000_000_000_000_000n;
  #closed = false;

  /** Starts both hosts; {@link startFakeLine} is the way to get one. */
  constructor(options: { token?: string; secret?: string } = {}) {
    this.token = options.token ?? FAKE_LINE_TOKEN;
    this.secret = options.secret ?? FAKE_LINE_SECRET;
    const listen = { hostname: "127.0.0.1", port: 0, onListen: () => {} };
    this.#api = Deno.serve(listen, (request) => this.#handle("api", request));
    this.#data = Deno.serve(listen, (request) => this.#handle("data", request));
    this.apiBase = `http://127.0.0.1:${this.#api.addr.port}`;
    this.dataBase = `http://127.0.0.1:${this.#data.addr.port}`;
  }

  // ------------------------------------------------------------ test controls

  /** Makes the next `count` calls of `endpoint` fail with `failure`. */
  failNext(endpoint: FakeLineEndpoint, failure: FakeLineFailure, count = 1): void {
    const queue = this.#failures.get(endpoint) ?? [];
    for (let i = 0; i < count; i++) queue.push(failure);
    this.#failures.set(endpoint, queue);
  }

  /** Makes message `id`'s content downloadable from the data host. */
  addContent(id: string, bytes: Uint8Array | string, type: string): void {
    const data = typeof bytes === "string" ? new TextEncoder().encode(bytes) : bytes;
    this.#content.set(id, { bytes: data, type });
  }

  /** Makes a reply token unusable, as LINE does once it is too old. */
  expireReplyToken(token: string): void {
    const entry = this.#replyTokens.get(token);
    if (entry !== undefined) entry.used = true;
  }

  /** Whether a reply token was used (or expired). */
  replyTokenUsed(token: string): boolean {
    return this.#replyTokens.get(token)?.used ?? false;
  }

  /** The recorded requests to `path` (e.g. `/v2/bot/message/push`). */
  requestsTo(path: string): RecordedRequest[] {
    return this.requests.filter((request) => request.path === path);
  }

  /** Resolves once `count` batches were accepted; fails (real time) listing what was sent. */
  async waitForSent(count: number, timeoutMs = 10_000): Promise<SentBatch[]> {
    await this.#waitUntil(
      () => this.sent.length >= count,
      timeoutMs,
      () => `${count} sent batch(es); sent so far: ${JSON.stringify(this.sent)}`,
    );
    return this.sent;
  }

  /** Resolves once `count` requests went to `path`. */
  async waitForRequests(path: string, count = 1, timeoutMs = 10_000): Promise<RecordedRequest[]> {
    await this.#waitUntil(
      () => this.requestsTo(path).filter((r) => r.status !== 0).length >= count,
      timeoutMs,
      () => `${count} request(s) to ${path}; have ${this.requests.map((r) => r.path)}`,
    );
    return this.requestsTo(path);
  }

  // ------------------------------------------------------------ webhook side

  /** A new message id (LINE's are long decimal strings). */
  newMessageId(): string {
    this.#nextId += 1n;
    return String(this.#nextId);
  }

  /** A message event from `source` with a fresh reply token and event id. */
  messageEvent(source: FakeSource, message: Record<string, unknown>): Record<string, unknown> {
    const wire = sourceOf(source);
    return {
      type: "message",
      message: { id: this.newMessageId(), ...message },
      webhookEventId: ulid(),
      deliveryContext: { isRedelivery: false },
      timestamp: Date.now(),
      source: wire,
      replyToken: this.#issueToken(chatOf(wire)),
      mode: "active",
    };
  }

  /** A postback event (a button tap) from `source` with a fresh reply token. */
  postbackEvent(source: FakeSource, data: string): Record<string, unknown> {
    const wire = sourceOf(source);
    return {
      type: "postback",
      postback: { data },
      webhookEventId: ulid(),
      deliveryContext: { isRedelivery: false },
      timestamp: Date.now(),
      source: wire,
      replyToken: this.#issueToken(chatOf(wire)),
      mode: "active",
    };
  }

  /** A user sends `text` (from `source`); the signed webhook is delivered. */
  async userSays(source: FakeSource, text: string): Promise<Delivery> {
    return await this.deliver([this.messageEvent(source, { type: "text", text })]);
  }

  /** A user taps a postback button carrying `data`. */
  async tap(source: FakeSource, data: string): Promise<Delivery> {
    return await this.deliver([this.postbackEvent(source, data)]);
  }

  /** Delivers `event` again, as LINE's webhook redelivery does (same `webhookEventId`). */
  async redeliver(event: Record<string, unknown>): Promise<Delivery> {
    return await this.deliver([{ ...event, deliveryContext: { isRedelivery: true } }]);
  }

  /** Signs and POSTs a webhook body with `events` to {@link webhookUrl}. */
  async deliver(
    events: Record<string, unknown>[],
    options: DeliverOptions = {},
  ): Promise<Delivery> {
    if (this.webhookUrl === undefined) throw new Error("fake LINE: set webhookUrl first");
    const json = new TextEncoder().encode(JSON.stringify({ destination: this.botUserId, events }));
    const body = options.rawBody ?? json;
    const signed = options.signedBody ?? (body instanceof Uint8Array ? body : json);
    const signature = options.signature === undefined
      ? await lineSignature(options.secret ?? this.secret, signed)
      : options.signature;
    const headers: Record<string, string> = {
      "content-type": "application/json; charset=utf-8",
      "user-agent": "LineBotWebhook/2.0",
    };
    if (signature !== null) headers["x-line-signature"] = signature;
    const response = await fetch(this.webhookUrl, {
      method: "POST",
      headers,
      body: body as BodyInit,
    });
    return { events, status: response.status, body: await response.text() };
  }

  // ------------------------------------------------------------ API side

  async #handle(host: "api" | "data", request: Request): Promise<Response> {
    const url = new URL(request.url);
    if (host === "api" && url.pathname.startsWith("/_fake/")) {
      return await this.control(request, url);
    }
    let body: unknown;
    if (request.method === "POST") body = await request.json().catch(() => undefined);
    const recorded: RecordedRequest = {
      host,
      method: request.method,
      path: url.pathname,
      headers: Object.fromEntries(request.headers),
      ...(body === undefined ? {} : { body }),
      status: 0,
    };
    this.requests.push(recorded);
    const answer = await this.#answer(host, request, url.pathname, body, recorded);
    return answer;
  }

  async #answer(
    host: "api" | "data",
    request: Request,
    path: string,
    body: unknown,
    recorded: RecordedRequest,
  ): Promise<Response> {
    const respond = (status: number, json: unknown, headers: Record<string, string> = {}) => {
      recorded.status = status;
      return Response.json(json, {
        status,
        headers: { "x-line-request-id": crypto.randomUUID(), ...headers },
      });
    };
    const endpoint = endpointOf(host, request.method, path);
    if (endpoint === undefined) return respond(404, { message: "Not found" });
    if (request.headers.get("authorization") !== `Bearer ${this.token}`) {
      return respond(401, {
        message:
          "Authentication failed. Confirm that the access token in the authorization header is valid.",
      });
    }
    const failure = this.#failures.get(endpoint)?.shift();
    if (failure === "hang") {
      await this.#hangs.hold(request.signal);
      return respond(504, { message: "Gateway timeout" });
    }
    if (failure === "drop") {
      const broken = new ReadableStream({
        start: (controller) => controller.error(new Error("fake LINE dropped the connection")),
      });
      return new Response(broken, { status: 200, headers: { "content-type": "application/json" } });
    }
    if (failure !== undefined) {
      if (failure.accept && (endpoint === "reply" || endpoint === "push")) {
        this.#message(endpoint, request, body, respond);
      }
      return respond(failure.status, {
        message: failure.message ?? defaultMessage(failure.status),
      });
    }
    switch (endpoint) {
      case "info":
        return respond(200, {
          userId: this.botUserId,
          basicId: "@123herald",
          displayName: "Herald Test Bot",
          pictureUrl: "https://profile.line-scdn.net/herald-test",
          chatMode: "bot",
          markAsReadMode: "auto",
        });
      case "loading": {
        const { chatId, loadingSeconds } = (body ?? {}) as Record<string, unknown>;
        const seconds = loadingSeconds ?? 5;
        if (typeof chatId !== "string" || !/^U[0-9a-f]{32}$/.test(chatId)) {
          return respond(400, {
            message: "The property, 'chatId', in the request body is invalid (line: -, column: -)",
          });
        }
        if (typeof seconds !== "number" || seconds < 5 || seconds > 60 || seconds % 5 !== 0) {
          return respond(400, {
            message:
              "The property, 'loadingSeconds', in the request body is invalid (line: -, column: -)",
          });
        }
        return respond(202, {});
      }
      case "content": {
        const id = decodeURIComponent(path.split("/")[4] ?? "");
        const content = this.#content.get(id);
        if (content === undefined) return respond(404, { message: "Not found" });
        recorded.status = 200;
        return new Response(content.bytes as Uint8Array<ArrayBuffer>, {
          headers: { "content-type": content.type, "x-line-request-id": crypto.randomUUID() },
        });
      }
      case "reply":
      case "push":
        return this.#message(endpoint, request, body, respond);
    }
  }

  #message(
    endpoint: "reply" | "push",
    request: Request,
    body: unknown,
    respond: (status: number, json: unknown, headers?: Record<string, string>) => Response,
  ): Response {
    if (typeof body !== "object" || body === null) {
      return respond(400, { message: "The request body is not valid JSON" });
    }
    const record = body as Record<string, unknown>;
    const details = checkMessages(record.messages);
    if (details.length > 0) {
      return respond(400, {
        message: `The request body has ${details.length} error(s)`,
        details,
      });
    }
    const messages = record.messages as Record<string, unknown>[];
    let to: string;
    const retryKey = request.headers.get("x-line-retry-key") ?? undefined;
    if (endpoint === "reply") {
      const token = record.replyToken;
      const entry = typeof token === "string" ? this.#replyTokens.get(token) : undefined;
      if (entry === undefined || entry.used) {
        return respond(400, { message: "Invalid reply token" });
      }
      entry.used = true;
      to = entry.chat;
    } else {
      if (typeof record.to !== "string" || !/^[UCR][0-9a-f]{32}$/.test(record.to)) {
        return respond(400, {
          message: "The property, 'to', in the request body is invalid (line: -, column: -)",
        });
      }
      to = record.to;
      if (retryKey !== undefined) {
        if (!/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(retryKey)) {
          return respond(400, { message: "The value of the X-Line-Retry-Key header is invalid" });
        }
        const before = this.#retryKeys.get(retryKey);
        if (before !== undefined) {
          return respond(409, {
            message: "The retry key is already accepted",
            sentMessages: before.ids.map((id) => ({ id, quoteToken: `q${id}` })),
          }, { "x-line-accepted-request-id": crypto.randomUUID() });
        }
      }
    }
    const ids = messages.map(() => this.newMessageId());
    if (retryKey !== undefined) this.#retryKeys.set(retryKey, { ids });
    this.sent.push({
      via: endpoint,
      to,
      messages,
      ids,
      ...(endpoint === "reply" ? { replyToken: String(record.replyToken) } : {}),
      ...(retryKey === undefined ? {} : { retryKey }),
    });
    return respond(200, { sentMessages: ids.map((id) => ({ id, quoteToken: `q${id}` })) });
  }

  #issueToken(chat: string): string {
    const token = hex(16);
    this.#replyTokens.set(token, { chat, used: false });
    return token;
  }

  async #waitUntil(done: () => boolean, timeoutMs: number, what: () => string): Promise<void> {
    const start = Date.now();
    while (!done()) {
      if (Date.now() - start > timeoutMs) {
        throw new Error(`fake LINE: timed out waiting for ${what()}`);
      }
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
  }

  /**
   * The control API a test in another process uses:
   * `POST /_fake/webhook-url {url}`, `POST /_fake/user-says {source, text}`,
   * `POST /_fake/tap {source, data}`, `POST /_fake/fail-next {endpoint, failure, count?}`,
   * `GET /_fake/sent`, `GET /_fake/requests`.
   */
  async control(request: Request, url: URL): Promise<Response> {
    const body = request.method === "POST"
      ? await request.json().catch(() => ({})) as Record<string, unknown>
      : {};
    try {
      switch (url.pathname) {
        case "/_fake/webhook-url":
          this.webhookUrl = String(body.url);
          return Response.json({ ok: true });
        case "/_fake/user-says":
          return Response.json(
            await this.userSays(body.source as FakeSource, String(body.text ?? "")),
          );
        case "/_fake/tap":
          return Response.json(await this.tap(body.source as FakeSource, String(body.data ?? "")));
        case "/_fake/fail-next":
          this.failNext(
            body.endpoint as FakeLineEndpoint,
            body.failure as FakeLineFailure,
            Number(body.count ?? 1),
          );
          return Response.json({ ok: true });
        case "/_fake/sent":
          return Response.json(this.sent);
        case "/_fake/requests":
          return Response.json(this.requests);
      }
    } catch (cause) {
      return Response.json({ message: String(cause) }, { status: 400 });
    }
    return Response.json({ message: "unknown control path" }, { status: 404 });
  }

  /** Releases hangs and stops both hosts. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    this.#hangs.releaseAll();
    await Promise.all([this.#api.shutdown(), this.#data.shutdown()]);
  }

  /** Stops the fake. */
  async [Symbol.asyncDispose](): Promise<void> {
    await this.close();
  }
}

/** Starts the fake on 127.0.0.1. */
export function startFakeLine(
  options: { token?: string; secret?: string } = {},
): Promise<FakeLine> {
  return Promise.resolve(new FakeLine(options));
}

if (import.meta.main) {
  const fake = await startFakeLine();
  console.log(JSON.stringify({ apiBase: fake.apiBase, dataBase: fake.dataBase }));
  const stop = () => fake.close().then(() => Deno.exit(0));
  Deno.addSignalListener("SIGTERM", stop);
  Deno.addSignalListener("SIGINT", stop);
}

/**
 * A fake Telegram Bot API for tests. It listens on 127.0.0.1 with an
 * OS-assigned port and speaks the real wire format: `POST|GET
 * /bot<token>/<method>` with JSON, form or multipart bodies, the
 * `{ ok, result }` / `{ ok: false, error_code, description, parameters }`
 * envelope, long-polling `getUpdates` (held until an update arrives or the
 * timeout passes; a second poller ends the first with 409), `getFile` and
 * file downloads from `/file/bot<token>/<file_path>`. Product code reaches
 * it through `TELEGRAM_API_BASE` and cannot tell it from the real service.
 *
 * Each token is its own bot ({@link FakeBot}); an unknown token answers
 * 401 Unauthorized. A test makes users talk ({@link FakeBot.userSays}),
 * reads every call ({@link FakeBot.calls}) and every message the bot sent
 * ({@link FakeBot.sent}), awaits a message to a chat
 * ({@link FakeBot.waitForSent}) and scripts failures
 * ({@link FakeBot.failNext}: a status such as 500 or 429 with
 * `retry_after`, a hang until the client gives up, a dropped connection, or
 * a call that takes effect but is never answered).
 *
 * Run it alone (`deno run -A tests/fakes/telegram_api.ts [--token T]`) and
 * it prints its base URL as the first line, then serves a small control
 * API under `/_fake/` (see {@link handleControl}) until killed.
 *
 * @example
 * ```ts
 * await using telegram = await startFakeTelegram();
 * const bot = telegram.bot();
 * bot.userSays(42, 42, "hello");
 * const [answer] = await bot.waitForSent(42);
 * ```
 *
 * @module
 */

import { HeldRequests } from "./_hangs.ts";
import {
  type Answer,
  error,
  FAKE_TELEGRAM_TOKEN,
  FakeBot,
  type FakeChatSpec,
  type FakeFailure,
  type FakeUserSpec,
  type Json,
  ok,
  type ReceivedFile,
  type RecordedCall,
  type UserSaysOptions,
} from "./_telegram_bot.ts";

export {
  FAKE_TELEGRAM_TOKEN,
  FakeBot,
  type FakeChatSpec,
  type FakeFailure,
  type FakeUpload,
  type FakeUserSpec,
  type ReceivedFile,
  type RecordedCall,
  type SentMessage,
  type UserSaysOptions,
} from "./_telegram_bot.ts";

/** Options of {@link startFakeTelegram}. */
export interface FakeTelegramOptions {
  /** The bots to create; one bot with {@link FAKE_TELEGRAM_TOKEN} by default. */
  bots?: { token: string; username?: string }[];
}

/** The running fake API. */
export class FakeTelegram implements AsyncDisposable {
  /** The base URL to put in `TELEGRAM_API_BASE`, e.g. `http://127.0.0.1:41234`. */
  readonly baseUrl: string;
  readonly #bots = new Map<string, FakeBot>();
  readonly #server: Deno.HttpServer<Deno.NetAddr>;
  readonly #hangs = new HeldRequests();
  #closed = false;

  /** Starts the server; {@link startFakeTelegram} is the way to get one. */
  constructor() {
    this.#server = Deno.serve(
      { hostname: "127.0.0.1", port: 0, onListen: () => {} },
      (request) => this.handle(request),
    );
    this.baseUrl = `http://127.0.0.1:${this.#server.addr.port}`;
  }

  /** Adds a bot answering to `token`. */
  addBot(token: string, username = `herald_test${this.#bots.size || ""}_bot`): FakeBot {
    const id = Number(token.split(":")[0]) || 1_000_000 + this.#bots.size;
    const bot = new FakeBot(token, username, id);
    this.#bots.set(token, bot);
    return bot;
  }

  /** The bot of `token`, or the first bot. */
  bot(token?: string): FakeBot {
    const bot = token === undefined ? this.#bots.values().next().value : this.#bots.get(token);
    if (bot === undefined) throw new Error(`fake Telegram: no bot with that token`);
    return bot;
  }

  /** Handles one HTTP request (also reachable through the server). */
  async handle(request: Request): Promise<Response> {
    const url = new URL(request.url);
    if (url.pathname.startsWith("/_fake/")) return await handleControl(this, request, url);
    const file = /^\/file\/bot([^/]+)\/(.+)$/.exec(url.pathname);
    if (file !== null) {
      const bytes = this.#bots.get(decodeURIComponent(file[1]))?.download(
        decodeURIComponent(file[2]),
      );
      if (bytes === undefined) {
        return Response.json({ ok: false, error_code: 404, description: "Not Found" }, {
          status: 404,
        });
      }
      return new Response(bytes as Uint8Array<ArrayBuffer>, {
        headers: { "content-type": "application/octet-stream" },
      });
    }
    const call = /^\/bot([^/]+)\/([A-Za-z]+)$/.exec(url.pathname);
    if (call === null) return reply(error(404, "Not Found"));
    const bot = this.#bots.get(decodeURIComponent(call[1]));
    if (bot === undefined) return reply(error(401, "Unauthorized"));
    const method = call[2];
    const { encoding, params, files } = await parseParams(request, url);
    const recorded: RecordedCall = { method, encoding, params, files, status: 0 };
    const failure = bot.takeFailure(method);
    if (failure === "hang") {
      bot.recordCall(recorded);
      await this.#hangs.hold(request.signal);
      return reply(error(504, "Gateway Timeout"));
    }
    if (failure === "swallow") {
      bot.recordCall(recorded);
      const answer = await bot.answer(method, params, files, request.signal);
      recorded.status = answer.status;
      await this.#hangs.hold(request.signal);
      return reply(error(504, "Gateway Timeout"));
    }
    if (failure === "drop") {
      bot.recordCall(recorded);
      return reply({ status: 200, drop: true });
    }
    if (failure !== undefined) {
      recorded.status = failure.status;
      bot.recordCall(recorded);
      const parameters = failure.retryAfter !== undefined
        ? { retry_after: failure.retryAfter }
        : failure.migrateToChatId !== undefined
        ? { migrate_to_chat_id: failure.migrateToChatId }
        : undefined;
      const description = failure.description ??
        (failure.status === 429
          ? `Too Many Requests: retry after ${failure.retryAfter ?? 1}`
          : failure.status >= 500
          ? "Internal Server Error"
          : "Bad Request");
      return reply(error(failure.status, description, parameters));
    }
    bot.recordCall(recorded);
    const answer = this.#closed ? ok([]) : await bot.answer(method, params, files, request.signal);
    recorded.status = answer.status;
    return reply(answer);
  }

  /** Releases held polls and hangs and stops the server. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    for (const bot of this.#bots.values()) bot.release();
    this.#hangs.releaseAll();
    await this.#server.shutdown();
  }

  /** Stops the server. */
  async [Symbol.asyncDispose](): Promise<void> {
    await this.close();
  }
}

function reply(answer: Answer): Response {
  if (answer.drop) {
    const body = new ReadableStream({
      start(controller) {
        controller.error(new Error("fake Telegram dropped the connection (scripted)"));
      },
    });
    return new Response(body, { status: 200, headers: { "content-type": "application/json" } });
  }
  return Response.json(answer.body ?? {}, { status: answer.status || 500 });
}

async function parseParams(
  request: Request,
  url: URL,
): Promise<
  { encoding: RecordedCall["encoding"]; params: Json; files: Record<string, ReceivedFile> }
> {
  const params: Json = Object.fromEntries(url.searchParams);
  const files: Record<string, ReceivedFile> = {};
  const type = request.headers.get("content-type") ?? "";
  if (request.method !== "POST" || request.body === null) {
    return { encoding: "query", params, files };
  }
  if (type.includes("application/json")) {
    const body = await request.json().catch(() => ({}));
    return { encoding: "json", params: { ...params, ...(body as Json) }, files };
  }
  if (type.includes("multipart/form-data") || type.includes("application/x-www-form-urlencoded")) {
    const form = await request.formData();
    for (const [key, value] of form) {
      if (typeof value === "string") params[key] = value;
      else {
        const bytes = new Uint8Array(await value.arrayBuffer());
        files[key] = { field: key, name: value.name, type: value.type, size: bytes.length, bytes };
      }
    }
    return { encoding: type.includes("multipart") ? "multipart" : "form", params, files };
  }
  await request.body.cancel();
  return { encoding: "query", params, files };
}

/**
 * The control API a test in another process uses (the CLI mode):
 *
 * - `POST /_fake/bots` `{ token, username? }` adds a bot;
 * - `POST /_fake/user-says` `{ token?, chat, user, text, options? }` (file bytes as text);
 * - `POST /_fake/fail-next` `{ token?, method, failure, count? }`;
 * - `POST /_fake/block` `{ token?, chat }`;
 * - `GET /_fake/sent?token=` and `GET /_fake/calls?token=` (file bytes left out).
 */
export async function handleControl(
  fake: FakeTelegram,
  request: Request,
  url: URL,
): Promise<Response> {
  const body = request.method === "POST" ? await request.json().catch(() => ({})) as Json : {};
  const token = (body.token ?? url.searchParams.get("token") ?? undefined) as string | undefined;
  try {
    switch (url.pathname) {
      case "/_fake/bots":
        fake.addBot(String(body.token), body.username as string | undefined);
        return Response.json({ ok: true });
      case "/_fake/user-says":
        return Response.json({
          ok: true,
          result: fake.bot(token).userSays(
            body.chat as FakeChatSpec,
            body.user as FakeUserSpec,
            String(body.text ?? ""),
            (body.options ?? {}) as UserSaysOptions,
          ),
        });
      case "/_fake/fail-next":
        fake.bot(token).failNext(
          String(body.method),
          body.failure as FakeFailure,
          Number(body.count ?? 1),
        );
        return Response.json({ ok: true });
      case "/_fake/block":
        fake.bot(token).block(Number(body.chat));
        return Response.json({ ok: true });
      case "/_fake/sent":
        return Response.json({
          ok: true,
          result: fake.bot(token).sent.map(({ file, ...rest }) => ({
            ...rest,
            ...(file ? { file: file.name } : {}),
          })),
        });
      case "/_fake/calls":
        return Response.json({
          ok: true,
          result: fake.bot(token).calls.map(({ files, ...rest }) => ({
            ...rest,
            files: Object.keys(files),
          })),
        });
    }
  } catch (cause) {
    return Response.json({ ok: false, description: String(cause) }, { status: 400 });
  }
  return Response.json({ ok: false, description: "unknown control path" }, { status: 404 });
}

/** Starts the fake on 127.0.0.1 with an OS-assigned port. */
export function startFakeTelegram(options: FakeTelegramOptions = {}): Promise<FakeTelegram> {
  const fake = new FakeTelegram();
  for (const bot of options.bots ?? [{ token: FAKE_TELEGRAM_TOKEN }]) {
    fake.addBot(bot.token, bot.username);
  }
  return Promise.resolve(fake);
}

if (import.meta.main) {
  const tokens: string[] = [];
  for (let i = 0; i < Deno.args.length; i++) {
    if (Deno.args[i] === "--token" && Deno.args[i + 1]) tokens.push(Deno.args[++i]);
  }
  const fake = await startFakeTelegram({
    bots: (tokens.length > 0 ? tokens : [FAKE_TELEGRAM_TOKEN]).map((token) => ({ token })),
  });
  console.log(fake.baseUrl);
  const stop = () => fake.close().then(() => Deno.exit(0));
  Deno.addSignalListener("SIGTERM", stop);
  Deno.addSignalListener("SIGINT", stop);
}

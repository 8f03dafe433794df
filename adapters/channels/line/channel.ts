/**
 * The LINE channel: a webhook server (Deno.serve on `LINE_HOST`:`LINE_PORT`)
 * receiving signed events, outbound through the Messaging API, bot info as
 * the status probe. Redelivered events are dropped by `webhookEventId`
 * (a bounded LRU), webhook bodies are handled one after another in arrival
 * order, and the slow-response machine offers a late answer behind a
 * "Get answer" button.
 *
 * @module
 */

import type {
  Channel,
  ChannelContext,
  ChannelHost,
  HttpListener,
  ProbeResult,
} from "../../../core/channels/contract.ts";
import { RecentIds } from "../../../core/channels/line/dedupe.ts";
import { SlowResponses } from "../../../core/channels/line/postback.ts";
import { LineSignatureVerifier } from "../../../core/channels/line/signature.ts";
import { HeraldError } from "../../../core/errors.ts";
import { LineApi, LineApiError } from "./api.ts";
import { readEvent } from "./inbound.ts";
import { MediaShelf } from "./media.ts";
import { HeldAnswers } from "./held.ts";
import { LineOutbound } from "./outbound.ts";
import { LINE_ID, type LineSettings, readLineSettings } from "./settings.ts";
import { sha256Hex } from "../../../core/_util/hash.ts";
import { handleWebhookRequest, WEBHOOK_PATH, type WebhookBody } from "./webhook.ts";

/** How long `stop` waits for events and sends still in flight. */
const STOP_WAIT_MS = 10_000;

/**
 * Creates the LINE channel of a profile.
 *
 * @throws HeraldError `platform_not_configured` naming the missing or malformed variable.
 */
export async function createLineChannel(context: ChannelContext): Promise<LineChannel> {
  const settings = readLineSettings(context);
  const verifier = await LineSignatureVerifier.create(settings.secret);
  return new LineChannel(context, settings, verifier, await sha256Hex(settings.token));
}

/** The LINE channel of one profile. */
/**
 * The longest a webhook's 200 waits for its events to be taken in (ms):
 * past it LINE is answered anyway (the events are still handled).
 */
export const INTAKE_WAIT_MS = 2_000;

export class LineChannel implements Channel {
  readonly id = LINE_ID;
  readonly label = "LINE";
  readonly credentialKey: string;
  readonly outbound: LineOutbound;
  readonly #context: ChannelContext;
  readonly #settings: LineSettings;
  readonly #verifier: LineSignatureVerifier;
  readonly #api: LineApi;
  readonly #slow: SlowResponses;
  readonly #media: MediaShelf;
  readonly #seen = new RecentIds();
  #server: HttpListener | undefined;
  #host: ChannelHost | undefined;
  #events: Promise<void> = Promise.resolve();
  #port: number | undefined;

  /** Use {@link createLineChannel}. */
  constructor(
    context: ChannelContext,
    settings: LineSettings,
    verifier: LineSignatureVerifier,
    credentialKey: string,
  ) {
    this.#context = context;
    this.#settings = settings;
    this.#verifier = verifier;
    this.credentialKey = credentialKey;
    const { clock } = context;
    this.#api = new LineApi({
      token: settings.token,
      apiBase: settings.apiBase,
      dataApiBase: settings.dataApiBase,
      fetch: context.fetch,
      clock,
    });
    this.#media = new MediaShelf({ clock });
    this.#slow = new SlowResponses({
      clock,
      thresholdMs: settings.thresholdMs,
      texts: settings.texts,
      onSlow: (request) => this.outbound.sendButton(request),
      onExpired: (request, replies) => this.outbound.pushExpired(request, replies),
    });
    this.outbound = new LineOutbound({
      api: this.#api,
      slow: this.#slow,
      media: this.#media,
      held: new HeldAnswers(context.dataDir, (line) => this.#log(line)),
      ...(settings.publicUrl === undefined ? {} : { publicUrl: settings.publicUrl }),
      clock,
      log: (line) => this.#log(line),
    });
  }

  /** The port the webhook server listens on, once started. */
  get port(): number | undefined {
    return this.#port;
  }

  /**
   * Starts the webhook server and resolves once it listens.
   *
   * @throws HeraldError `line_port_unavailable` when the address cannot be bound.
   */
  start(host: ChannelHost): Promise<void> {
    if (this.#server !== undefined) return Promise.resolve();
    this.#host = host;
    host.setState("starting");
    const { hostname, port } = { hostname: this.#settings.host, port: this.#settings.port };
    try {
      this.#server = this.#context.listen(
        { hostname, port },
        (request) =>
          handleWebhookRequest(request, {
            verifier: this.#verifier,
            media: this.#media,
            accept: (body) => this.#accept(body),
            log: (line) => this.#log(line),
          }),
      );
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      const message = `The LINE webhook server cannot listen on ${hostname}:${port} (${reason}); ` +
        "set LINE_PORT (and LINE_HOST) in the profile's .env to a free address";
      host.setState("refused", message);
      return Promise.reject(
        new HeraldError("line_port_unavailable", "unavailable", message, {
          details: { platform: LINE_ID, port },
        }),
      );
    }
    this.#port = this.#server.port;
    host.signal.addEventListener("abort", () => void this.stop(), { once: true });
    const shown = hostname.includes(":") ? `[${hostname}]` : hostname;
    host.log(`line: webhook listening on http://${shown}:${this.#port}${WEBHOOK_PATH}`);
    if (this.#settings.publicUrl === undefined) {
      host.log(
        "line: LINE_PUBLIC_URL is not set; answers with files will be refused (LINE fetches " +
          "files by HTTPS URL)",
      );
    }
    host.setState("connected");
    // Answers an earlier run held behind buttons and never delivered: pushed now, in the background.
    void this.outbound.pushLeftovers();
    return Promise.resolve();
  }

  /** Closes the webhook server and waits (bounded) for events and sends in flight. */
  async stop(): Promise<void> {
    const server = this.#server;
    if (server === undefined) return;
    this.#server = undefined;
    await server.shutdown();
    const clock = this.#context.clock;
    let handle: unknown;
    const bound = new Promise<void>((resolve) => {
      handle = clock.setTimeout(resolve, STOP_WAIT_MS);
    });
    await Promise.race([Promise.all([this.#events, this.outbound.idle()]), bound]);
    clock.clearTimeout(handle);
    this.#slow.dispose();
    this.#host?.setState("stopped");
  }

  /** Asks LINE who the bot is (`GET /v2/bot/info`). */
  async probe(): Promise<ProbeResult> {
    try {
      const info = await this.#api.botInfo();
      const identity = info.displayName
        ? `${info.displayName} (${info.basicId})`
        : info.basicId || info.userId;
      return { ok: true, identity };
    } catch (error) {
      if (error instanceof LineApiError && error.status === 401) {
        return {
          ok: false,
          error: "LINE refused the channel access token (401): check LINE_CHANNEL_ACCESS_TOKEN " +
            "in the profile's .env (LINE Developers console > Messaging API)",
        };
      }
      return { ok: false, error: error instanceof Error ? error.message : String(error) };
    }
  }

  /** Takes a changed configuration only when nothing LINE-related changed; else a restart. */
  reload(context: ChannelContext): Promise<boolean> {
    try {
      const next = readLineSettings(context);
      return Promise.resolve(JSON.stringify(next) === JSON.stringify(this.#settings));
    } catch {
      return Promise.resolve(false);
    }
  }

  #log(line: string): void {
    if (this.#host !== undefined) this.#host.log(line);
    else this.#context.log(line);
  }

  /**
   * Queues a verified body (bodies are handled one after another) and
   * resolves once its events are taken in, or after {@link INTAKE_WAIT_MS}
   * on the clock, whichever is first: the webhook's 200 waits for it.
   */
  async #accept(body: WebhookBody): Promise<void> {
    const handled = this.#events.then(() => this.#handle(body)).catch((error) => {
      this.#log(`line: handling a webhook body failed: ${String(error)}`);
    });
    this.#events = handled;
    const clock = this.#context.clock;
    let handle: unknown;
    const bound = new Promise<void>((resolve) =>
      handle = clock.setTimeout(resolve, INTAKE_WAIT_MS)
    );
    await Promise.race([handled, bound]);
    clock.clearTimeout(handle);
  }

  async #handle(body: WebhookBody): Promise<void> {
    const host = this.#host;
    if (host === undefined) return;
    for (const event of body.events) {
      const id = typeof event === "object" && event !== null
        ? (event as { webhookEventId?: unknown }).webhookEventId
        : undefined;
      if (typeof id === "string" && this.#seen.check(id)) continue;
      const now = this.#context.clock.now();
      const action = readEvent(event, {
        api: this.#api,
        now,
        fetch: this.#context.fetch,
        ...(body.destination === undefined ? {} : { botUserId: body.destination }),
      });
      if (action.kind === "skip") continue;
      if (action.kind === "tap") {
        // Not awaited: a long held answer must not hold up the events behind it.
        void this.outbound.answerTap(action.chat, action.requestId, action.replyToken);
        continue;
      }
      if (action.replyToken !== undefined) {
        this.#slow.watch(action.replyToken, action.message.chat, now);
      }
      try {
        await host.receive(action.message);
      } catch (error) {
        this.#log(
          `line: the gateway did not take a message from ${action.message.chat.chatId}: ${
            error instanceof Error ? error.message : String(error)
          }`,
        );
      }
    }
  }
}

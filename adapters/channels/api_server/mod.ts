/**
 * The API server platform (`api_server`): an OpenAI-compatible HTTP API
 * inside the gateway, so any OpenAI client can talk to the profile's agent
 * (its tools run server-side; dangerous commands follow the unattended
 * policy of the conversations the gateway opens). It has no outbound side:
 * it answers each request itself.
 *
 * Enabled by `API_SERVER_ENABLED=true` or `platforms.api_server.enabled`
 * ({@link apiServerEnabled}); needs `API_SERVER_KEY` even on loopback;
 * listens on `API_SERVER_HOST` (127.0.0.1) : `API_SERVER_PORT` (8642; 0
 * picks a free port, read back from {@link ApiServerChannel.port}).
 * Settings: settings.ts; routes: app.ts; stored responses and named
 * conversations: response_store.ts, in the channel's data folder.
 *
 * @example
 * ```ts
 * const channel = await plugin.create(context) as ApiServerChannel;
 * await channel.start!(host); // logs "API server listening on http://127.0.0.1:8642"
 * await channel.stop!();
 * ```
 *
 * @module
 */

import type {
  Channel,
  ChannelContext,
  ChannelHost,
  ChannelPlugin,
  HttpListener,
  ProbeResult,
} from "../../../core/channels/contract.ts";
import { HeraldError } from "../../../core/errors.ts";
import { createApiServerApp } from "./app.ts";
import { ResponseStore } from "./response_store.ts";
import { KeyedSerial } from "./serial.ts";
import { API_SERVER_ID, type ApiServerSettings, readApiServerSettings } from "./settings.ts";

export { createApiServerApp } from "./app.ts";
export type { ApiServerDeps } from "./deps.ts";
export { ResponseStore } from "./response_store.ts";
export {
  API_SERVER_ID,
  apiServerEnabled,
  type ApiServerSettings,
  DEFAULT_API_SERVER_HOST,
  DEFAULT_API_SERVER_PORT,
  defaultModelName,
  MAX_API_BODY_BYTES,
  readApiServerSettings,
} from "./settings.ts";

/** How long {@link ApiServerChannel.stop} waits for requests in flight after interrupting their turns. */
export const STOP_GRACE_MS = 5_000;

/** How long {@link ApiServerChannel.probe} waits for a server it does not run itself. */
export const PROBE_TIMEOUT_MS = 5_000;

/** The API server as a channel: where it listens, once it does. */
export interface ApiServerChannel extends Channel {
  readonly host: string;
  /** The port it listens on (the system's pick when configured as 0); undefined until started. */
  readonly port: number | undefined;
  /** `http://host:port` once started. */
  readonly url: string | undefined;
}

function hostForUrl(host: string): string {
  return host.includes(":") && !host.startsWith("[") ? `[${host}]` : host;
}

function listenError(settings: ApiServerSettings, error: unknown): HeraldError {
  const where = `${settings.host}:${settings.port}`;
  const message = error instanceof Deno.errors.AddrInUse
    ? `The API server cannot listen on ${where}: the port is in use; set API_SERVER_PORT to a ` +
      "free port (0 picks one)"
    : `The API server cannot listen on ${where}: ${
      error instanceof Error ? error.message : String(error)
    }; check API_SERVER_HOST and API_SERVER_PORT`;
  return new HeraldError("platform_listen_failed", "unavailable", message, {
    cause: error,
    details: { platform: API_SERVER_ID, host: settings.host, port: settings.port },
  });
}

class ApiServer implements ApiServerChannel {
  readonly id = API_SERVER_ID;
  readonly label = "API server";
  readonly #context: ChannelContext;
  readonly #settings: ApiServerSettings;
  readonly #store: ResponseStore;
  readonly #serial = new KeyedSerial();
  #server: HttpListener | undefined;
  #stopping = new AbortController();
  #port: number | undefined;

  constructor(context: ChannelContext) {
    this.#context = context;
    this.#settings = readApiServerSettings(context.profile, context.env, context.settings);
    this.#store = new ResponseStore(context.dataDir, (line) => context.log(line));
  }

  get host(): string {
    return this.#settings.host;
  }

  get port(): number | undefined {
    return this.#port;
  }

  get url(): string | undefined {
    return this.#port === undefined ? undefined : `http://${hostForUrl(this.host)}:${this.#port}`;
  }

  /** Two profiles may not serve the same address; port 0 never clashes. */
  get credentialKey(): string | undefined {
    const { host, port } = this.#settings;
    return port === 0 ? undefined : `${API_SERVER_ID}:${host}:${port}`;
  }

  start(host: ChannelHost): Promise<void> {
    if (this.#server) return Promise.resolve();
    const context = this.#context;
    this.#stopping = new AbortController();
    const app = createApiServerApp({
      settings: this.#settings,
      conversations: context.conversations,
      store: this.#store,
      serial: this.#serial,
      clock: context.clock,
      log: (line) => context.log(line),
      stop: this.#stopping.signal,
      startedAt: context.clock.now(),
    });
    try {
      this.#server = context.listen(
        { hostname: this.#settings.host, port: this.#settings.port },
        (request) => app.fetch(request),
      );
    } catch (error) {
      return Promise.reject(listenError(this.#settings, error));
    }
    this.#port = this.#server.port;
    host.signal.addEventListener("abort", () => {
      this.stop().catch((error) => context.log(`API server: stopping failed: ${error}`));
    }, { once: true });
    host.setState("connected");
    context.log(`API server listening on ${this.url}`);
    return Promise.resolve();
  }

  async stop(): Promise<void> {
    const server = this.#server;
    if (!server) return;
    this.#server = undefined;
    this.#port = undefined;
    this.#stopping.abort(new Error("The API server is stopping"));
    const clock = this.#context.clock;
    let timer: unknown;
    const grace = new Promise<"timeout">((resolve) => {
      timer = clock.setTimeout(() => resolve("timeout"), STOP_GRACE_MS);
    });
    const ended = await Promise.race([server.shutdown().then(() => "closed" as const), grace]);
    clock.clearTimeout(timer);
    if (ended === "timeout") {
      this.#context.log(
        `API server: requests still open ${STOP_GRACE_MS} ms after stopping; left to close`,
      );
    }
  }

  /**
   * Listening here: ok. Otherwise (a `gateway status` or dashboard process
   * asking about the gateway's server) it asks `GET /v1/models` at the
   * configured address with the key, for at most {@link PROBE_TIMEOUT_MS}.
   */
  async probe(): Promise<ProbeResult> {
    if (this.url !== undefined) {
      return { ok: true, identity: `listening on ${this.url.slice("http://".length)}` };
    }
    const { host, port, key } = this.#settings;
    const where = `${hostForUrl(host)}:${port}`;
    if (port === 0) {
      return { ok: false, error: "The API server is not listening (port 0: not started)" };
    }
    try {
      const response = await this.#context.fetch(`http://${where}/v1/models`, {
        headers: { authorization: `Bearer ${key}` },
        signal: AbortSignal.timeout(PROBE_TIMEOUT_MS),
      });
      await response.body?.cancel();
      if (response.ok) return { ok: true, identity: `listening on ${where}` };
      return {
        ok: false,
        error: response.status === 401
          ? `The server on ${where} refused API_SERVER_KEY (401): another program or profile holds the port`
          : `The server on ${where} answered ${response.status}`,
      };
    } catch (error) {
      const reason = error instanceof DOMException && error.name === "TimeoutError"
        ? `no answer within ${PROBE_TIMEOUT_MS} ms`
        : "nothing is listening there";
      return { ok: false, error: `The API server is not reachable on ${where}: ${reason}` };
    }
  }
}

/** The bundled API server platform. */
export const plugin: ChannelPlugin = {
  id: API_SERVER_ID,
  label: "API server",
  create(context: ChannelContext): ApiServerChannel {
    return new ApiServer(context);
  },
};

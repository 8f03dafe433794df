/**
 * The LINE webhook's HTTP side:
 *
 * - `POST /line/webhook`: the body is read up to 1 MiB (counted while
 *   reading; a larger one, or one that announces a larger length, is
 *   refused with 413 without reading the rest), its `x-line-signature` is
 *   checked over the raw bytes (missing or wrong: 400 `invalid signature`,
 *   logged without any secret), then it is parsed; a valid body's events
 *   are handed on and it is answered 200 once the gateway has taken them in
 *   (written them down: a crash after the 200 loses none), never after a
 *   turn, and after a short bound at the latest (see the channel). An empty
 *   `events` list (the console's "Verify") is answered 200.
 * - `GET /line/webhook/health`: `{"status":"ok","platform":"line"}`.
 * - `GET /line/media/<token>/<filename>`: files published for LINE to fetch.
 *
 * @module
 */

import {
  LINE_SIGNATURE_HEADER,
  type LineSignatureVerifier,
  MAX_WEBHOOK_BODY_BYTES,
} from "../../../core/channels/line/signature.ts";
import { readCappedBody } from "../../http/capped_body.ts";
import { MEDIA_PATH_PREFIX, type MediaShelf } from "./media.ts";

/** The webhook's path. */
export const WEBHOOK_PATH = "/line/webhook";
/** The health check's path. */
export const HEALTH_PATH = "/line/webhook/health";

/** A webhook body that passed the signature check. */
export interface WebhookBody {
  /** The bot's user id. */
  destination?: string;
  events: unknown[];
}

/** What the handler needs. */
export interface WebhookHandlerDeps {
  verifier: LineSignatureVerifier;
  media: MediaShelf;
  /**
   * Takes a verified body; the 200 waits for the returned promise (the
   * events taken in, bounded by the caller). Must not throw or reject.
   */
  accept(body: WebhookBody): Promise<void>;
  /** Logs a line (never a secret). */
  log(message: string): void;
}

function json(status: number, body: unknown, headers: Record<string, string> = {}): Response {
  return Response.json(body, { status, headers });
}

/** Handles one request to the webhook server. */
export async function handleWebhookRequest(
  request: Request,
  deps: WebhookHandlerDeps,
): Promise<Response> {
  const { pathname } = new URL(request.url);
  if (pathname === HEALTH_PATH) {
    if (request.method !== "GET" && request.method !== "HEAD") {
      return json(405, { message: "Method not allowed" }, { allow: "GET" });
    }
    return json(200, { status: "ok", platform: "line" });
  }
  if (pathname.startsWith(MEDIA_PATH_PREFIX)) {
    if (request.method !== "GET" && request.method !== "HEAD") {
      return json(405, { message: "Method not allowed" }, { allow: "GET" });
    }
    return await deps.media.serve(pathname);
  }
  if (pathname !== WEBHOOK_PATH) return json(404, { message: "Not found" });
  if (request.method !== "POST") {
    return json(405, { message: "Method not allowed" }, { allow: "POST" });
  }
  const raw = await readCappedBody(request, MAX_WEBHOOK_BODY_BYTES);
  if (raw === null) {
    deps.log("line: refused a webhook body over 1 MiB");
    return json(413, { message: "The request body is larger than 1 MiB" });
  }
  const signature = request.headers.get(LINE_SIGNATURE_HEADER);
  if (!await deps.verifier.verify(raw, signature)) {
    deps.log(
      signature === null
        ? "line: invalid signature (no x-line-signature header); the webhook request was refused"
        : "line: invalid signature; the webhook request was refused (a forged request, or " +
          "LINE_CHANNEL_SECRET does not match the LINE Developers console)",
    );
    return json(400, { message: "invalid signature" });
  }
  let body: unknown;
  try {
    body = JSON.parse(new TextDecoder().decode(raw));
  } catch {
    deps.log("line: a signed webhook body is not JSON; refused");
    return json(400, { message: "The request body is not JSON" });
  }
  if (
    typeof body !== "object" || body === null ||
    !Array.isArray((body as { events?: unknown }).events)
  ) {
    deps.log("line: a signed webhook body has no events list; refused");
    return json(400, { message: "The request body has no events list" });
  }
  const { destination, events } = body as { destination?: unknown; events: unknown[] };
  await deps.accept({
    events,
    ...(typeof destination === "string" ? { destination } : {}),
  });
  return json(200, {});
}

/**
 * The wire details of the fake LINE platform (tests/fakes/line_api.ts):
 * event ids, sources, endpoints, error messages, the webhook signature, and
 * what it checks in a message list, with LINE's own limits and error shape:
 * 1 to 5 message objects, text of at most 5000 UTF-16 code units, HTTPS
 * media URLs, and the buttons template's limits (text 160, altText 400,
 * label 20, postback data 300). A violation is one entry of `details` in
 * LINE's 400 body
 * `{"message":"The request body has N error(s)","details":[{message,property}]}`.
 *
 * @module
 */

/** The endpoints a failure can be scripted for. */
export type FakeLineEndpoint = "reply" | "push" | "loading" | "info" | "content";

/** Where an event comes from: a user alone, or a user in a group or room. */
export interface FakeSource {
  user?: string;
  group?: string;
  room?: string;
}

/** One problem found, as LINE lists it. */
export interface LineErrorDetail {
  message: string;
  property: string;
}

type Json = Record<string, unknown>;

function isRecord(value: unknown): value is Json {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function chars(text: string): number {
  return Array.from(text).length;
}

function checkUrl(value: unknown, property: string, found: LineErrorDetail[]): void {
  if (typeof value !== "string" || value.length > 2000) {
    found.push({ message: "Length must be between 0 and 2000", property });
  } else if (!value.startsWith("https://")) {
    found.push({ message: "must be HTTPS URL", property });
  }
}

function checkAction(action: unknown, property: string, found: LineErrorDetail[]): void {
  if (!isRecord(action)) {
    found.push({ message: "must be an object", property });
    return;
  }
  if (typeof action.label !== "string" || chars(action.label) > 20) {
    found.push({ message: "Length must be between 0 and 20", property: `${property}.label` });
  }
  if (action.type === "postback") {
    if (typeof action.data !== "string" || action.data.length > 300) {
      found.push({ message: "Length must be between 0 and 300", property: `${property}.data` });
    }
  } else if (action.type !== "message" && action.type !== "uri") {
    found.push({ message: "Invalid action type", property: `${property}.type` });
  }
}

function checkMessage(message: unknown, property: string, found: LineErrorDetail[]): void {
  if (!isRecord(message)) {
    found.push({ message: "must be an object", property });
    return;
  }
  switch (message.type) {
    case "text":
      if (typeof message.text !== "string" || message.text.length === 0) {
        found.push({ message: "Must not be empty", property: `${property}.text` });
      } else if (message.text.length > 5000) {
        found.push({ message: "Length must be between 0 and 5000", property: `${property}.text` });
      }
      return;
    case "image":
      checkUrl(message.originalContentUrl, `${property}.originalContentUrl`, found);
      checkUrl(message.previewImageUrl, `${property}.previewImageUrl`, found);
      return;
    case "template": {
      if (typeof message.altText !== "string" || chars(message.altText) > 400) {
        found.push({
          message: "Length must be between 0 and 400",
          property: `${property}.altText`,
        });
      }
      const template = message.template;
      if (!isRecord(template) || template.type !== "buttons") {
        found.push({ message: "Invalid template type", property: `${property}.template` });
        return;
      }
      if (typeof template.text !== "string" || chars(template.text) > 160) {
        found.push({
          message: "Length must be between 0 and 160",
          property: `${property}.template.text`,
        });
      }
      const actions = template.actions;
      if (!Array.isArray(actions) || actions.length < 1 || actions.length > 4) {
        found.push({
          message: "Size must be between 1 and 4",
          property: `${property}.template.actions`,
        });
        return;
      }
      actions.forEach((action, i) =>
        checkAction(action, `${property}.template.actions[${i}]`, found)
      );
      return;
    }
    default:
      found.push({ message: "Invalid message type", property: `${property}.type` });
  }
}

/** The problems of a request's `messages`, empty when LINE would take them. */
export function checkMessages(messages: unknown): LineErrorDetail[] {
  const found: LineErrorDetail[] = [];
  if (!Array.isArray(messages) || messages.length < 1 || messages.length > 5) {
    found.push({ message: "Size must be between 1 and 5", property: "messages" });
    return found;
  }
  messages.forEach((message, i) => checkMessage(message, `messages[${i}]`, found));
  return found;
}

const CROCKFORD = "0123456789ABCDEFGHJKMNPQRSTVWXYZ";

/** A random id shaped like LINE's `webhookEventId` (26 Crockford base32 characters). */
export function ulid(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(26));
  return Array.from(bytes, (byte) => CROCKFORD[byte % 32]).join("");
}

/** `bytes` random bytes in hex (reply tokens). */
export function hex(bytes: number): string {
  return Array.from(
    crypto.getRandomValues(new Uint8Array(bytes)),
    (byte) => byte.toString(16).padStart(2, "0"),
  ).join("");
}

/** LINE's signature of `body` under `secret`, computed here independently of the product. */
export async function lineSignature(secret: string, body: Uint8Array): Promise<string> {
  const key = await crypto.subtle.importKey(
    "raw",
    new TextEncoder().encode(secret),
    { name: "HMAC", hash: "SHA-256" },
    false,
    ["sign"],
  );
  const mac = new Uint8Array(
    await crypto.subtle.sign("HMAC", key, body as Uint8Array<ArrayBuffer>),
  );
  return btoa(String.fromCharCode(...mac));
}

/** Which endpoint a request names on a host, or undefined for none. */
export function endpointOf(
  host: "api" | "data",
  method: string,
  path: string,
): FakeLineEndpoint | undefined {
  if (host === "data") {
    return method === "GET" && /^\/v2\/bot\/message\/[^/]+\/content$/.test(path)
      ? "content"
      : undefined;
  }
  if (method === "POST" && path === "/v2/bot/message/reply") return "reply";
  if (method === "POST" && path === "/v2/bot/message/push") return "push";
  if (method === "POST" && path === "/v2/bot/chat/loading/start") return "loading";
  if (method === "GET" && path === "/v2/bot/info") return "info";
  return undefined;
}

/** LINE's `message` for an error status. */
export function defaultMessage(status: number): string {
  if (status === 429) return "The API rate limit has been exceeded. Try again later.";
  if (status >= 500) return "Internal server error";
  if (status === 403) return "Access to this API is not available for your account";
  return "Bad request";
}

/** An event's `source` object. */
export function sourceOf(source: FakeSource): Record<string, unknown> {
  if (source.group !== undefined) {
    return {
      type: "group",
      groupId: source.group,
      ...(source.user ? { userId: source.user } : {}),
    };
  }
  if (source.room !== undefined) {
    return { type: "room", roomId: source.room, ...(source.user ? { userId: source.user } : {}) };
  }
  if (source.user === undefined) throw new Error("fake LINE: a source needs a user, group or room");
  return { type: "user", userId: source.user };
}

/** The chat id of a `source`: its group, room or user. */
export function chatOf(source: Record<string, unknown>): string {
  return String(source.groupId ?? source.roomId ?? source.userId);
}

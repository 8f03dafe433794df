/**
 * The words and the wire format of LINE's slow-response button (re-exported
 * by postback.ts): the texts a tap is answered with, and the postback data
 * naming a request.
 *
 * @module
 */

/** The texts of the machine; each is a LINE_* setting. */
export interface SlowResponseTexts {
  /** The button message (`LINE_PENDING_TEXT`); LINE shows at most 160 characters. */
  pending: string;
  /** The button (`LINE_BUTTON_LABEL`); at most 20 characters. */
  button: string;
  /** A tap while the answer is being written. */
  stillWorking: string;
  /** A tap while an earlier tap's answer is being sent (a double tap). */
  sending: string;
  /** A tap once the answer went out (`LINE_DELIVERED_TEXT`). */
  delivered: string;
  /** A tap on a request whose turn was stopped (`LINE_INTERRUPTED_TEXT`). */
  interrupted: string;
  /** A tap on a request this gateway does not know (expired, or before a restart). */
  unknown: string;
}

/** The texts used when no setting overrides them. */
export const DEFAULT_SLOW_RESPONSE_TEXTS: Readonly<SlowResponseTexts> = Object.freeze({
  pending: "This one is taking a while. Tap the button below to get the answer when it is ready.",
  button: "Get answer",
  stillWorking: "Still working on it. Tap the button again in a little while.",
  sending: "Your answer is on its way.",
  delivered: "Already answered: the reply is above.",
  interrupted: "That request was stopped before it finished, so there is no answer to fetch.",
  unknown: "That answer is no longer available (it expired or the bot restarted). " +
    "If it never arrived, send your message again.",
});

const DATA_PREFIX = "herald=answer&request=";

/** The postback data of the button for `requestId` (LINE allows 300 characters). */
export function postbackData(requestId: string): string {
  return `${DATA_PREFIX}${requestId}`;
}

/** The request id named by a button's postback data, or undefined for any other data. */
export function parsePostbackData(data: string): string | undefined {
  if (!data.startsWith(DATA_PREFIX)) return undefined;
  const id = data.slice(DATA_PREFIX.length);
  return /^[0-9a-f]{32}$/.test(id) ? id : undefined;
}

/** A new request id: 16 random bytes in hex. */
export function randomId(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  return Array.from(bytes, (byte) => byte.toString(16).padStart(2, "0")).join("");
}

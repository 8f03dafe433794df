/**
 * Telegram's HTML parse mode as the fake Bot API checks it: the tags
 * Telegram supports, balanced, with `<`, `>` and `&` escaped elsewhere. A
 * text it refuses gets the same kind of description the real API gives
 * (`Bad Request: can't parse entities: ...`), with a UTF-8 byte offset.
 *
 * @module
 */

const SUPPORTED = new Set([
  "b",
  "strong",
  "i",
  "em",
  "u",
  "ins",
  "s",
  "strike",
  "del",
  "span",
  "tg-spoiler",
  "a",
  "code",
  "pre",
  "blockquote",
  "tg-emoji",
]);

const ENTITIES: Record<string, string> = { lt: "<", gt: ">", amp: "&", quot: '"' };

/** The text a message shows, or why Telegram cannot parse it. */
export type HtmlCheck = { ok: true; visible: string } | { ok: false; description: string };

function byteOffset(text: string, index: number): number {
  return new TextEncoder().encode(text.slice(0, index)).length;
}

function refuse(text: string, index: number, what: string): HtmlCheck {
  return {
    ok: false,
    description: `Bad Request: can't parse entities: ${what} at byte offset ${
      byteOffset(text, index)
    }`,
  };
}

/** Checks `text` as Telegram's `parse_mode: "HTML"` does. */
export function checkTelegramHtml(text: string): HtmlCheck {
  const open: { name: string; at: number }[] = [];
  let visible = "";
  let i = 0;
  while (i < text.length) {
    const char = text[i];
    if (char === "<") {
      const match = /^<(\/?)([a-zA-Z][a-zA-Z0-9-]*)((?:\s+[a-zA-Z-]+(?:="[^"<>]*")?)*)\s*>/.exec(
        text.slice(i),
      );
      if (match === null) {
        const name = /^<\/?([^\s>]*)/.exec(text.slice(i))?.[1] ?? "";
        return refuse(text, i, `Unsupported start tag "${name}"`);
      }
      const [whole, closing, rawName] = match;
      const name = rawName.toLowerCase();
      if (!SUPPORTED.has(name)) {
        return refuse(text, i, `Unsupported ${closing ? "end" : "start"} tag "${name}"`);
      }
      if (closing) {
        const top = open.pop();
        if (top === undefined || top.name !== name) {
          return refuse(
            text,
            i,
            `Unmatched end tag, expected "</${top?.name ?? ""}>", found "</${name}>"`,
          );
        }
      } else {
        open.push({ name, at: i });
      }
      i += whole.length;
      continue;
    }
    if (char === ">") return refuse(text, i, 'Unexpected end tag ">"');
    if (char === "&") {
      const entity = /^&(#x[0-9a-fA-F]+|#\d+|[a-zA-Z]+);/.exec(text.slice(i));
      if (entity !== null) {
        const name = entity[1];
        if (name.startsWith("#x")) visible += String.fromCodePoint(parseInt(name.slice(2), 16));
        else if (name.startsWith("#")) visible += String.fromCodePoint(Number(name.slice(1)));
        else if (ENTITIES[name] !== undefined) visible += ENTITIES[name];
        else return refuse(text, i, `Unsupported HTML entity "&${name};"`);
        i += entity[0].length;
        continue;
      }
    }
    visible += char;
    i += 1;
  }
  const unclosed = open.pop();
  if (unclosed !== undefined) {
    return refuse(
      text,
      unclosed.at,
      `Can't find end tag corresponding to start tag "${unclosed.name}"`,
    );
  }
  return { ok: true, visible };
}

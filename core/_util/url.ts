/**
 * Checks of URL text shared by the layers that take an endpoint from a
 * person (setup, the model choice, MCP servers, OAuth redirects).
 *
 * @module
 */

/**
 * True when `text` parses as a URL whose scheme is `http:` or `https:`.
 *
 * @example
 * ```ts
 * isHttpUrl("http://127.0.0.1:8080/v1"); // true
 * isHttpUrl("127.0.0.1:8080");           // false
 * isHttpUrl("file:///etc/passwd");       // false
 * ```
 */
export function isHttpUrl(text: string): boolean {
  if (!URL.canParse(text)) return false;
  const { protocol } = new URL(text);
  return protocol === "http:" || protocol === "https:";
}

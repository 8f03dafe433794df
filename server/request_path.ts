/**
 * The path a request is routed by, decided once, before the guard. The
 * guard must judge the same path that routing uses: Hono decodes
 * percent-escapes before matching (`/%61pi/config` reaches `/api/config`),
 * so the guard asks Hono's own `getPath` rather than reading the raw URL.
 * Forms that different readers could take differently are refused: encoded
 * slashes, backslashes, percent signs (double encoding) and control
 * characters, malformed escapes or UTF-8, dot segments (`.`, `..`, literal
 * or encoded) and empty segments (`//`).
 *
 * @module
 */

import { getPath } from "hono/utils/url";

/** The routed path of a request, or why it was refused. */
export type RequestPath =
  | { ok: true; path: string }
  | { ok: false; reason: string };

// Escapes that decode to a character that changes how a path splits or
// decodes: `/`, `\`, `%`, `?`, `#`, and control characters.
const AMBIGUOUS_ESCAPE = /%(?:2f|5c|25|3f|23|[01][0-9a-f]|7f)/i;
const MALFORMED_ESCAPE = /%(?![0-9a-f]{2})/i;
// Raw characters that need a closer look; most paths have none. (Raw control
// characters never get this far: the HTTP parser refuses them.)
const NEEDS_CHECK = /[%\\]|\/\/|\/\./;

/** The raw path of a request URL (up to `?` or `#`) without parsing all of it. */
function rawPathOf(url: string): string {
  const start = url.indexOf("/", url.indexOf("//") + 2);
  if (start === -1) return "/";
  const query = url.indexOf("?", start);
  const fragment = url.indexOf("#", start);
  const end = query === -1 ? fragment : fragment === -1 ? query : Math.min(query, fragment);
  return end === -1 ? url.slice(start) : url.slice(start, end);
}

function refused(reason: string): RequestPath {
  return { ok: false, reason };
}

/**
 * The path Hono will route `request` by, or a refusal for an ambiguous
 * form. A plain path (no escapes, dot segments or doubled slashes) is
 * returned as it is.
 *
 * @example
 * ```ts
 * routedPath(new Request("http://127.0.0.1:9219/%61pi/config")); // { ok: true, path: "/api/config" }
 * routedPath(new Request("http://127.0.0.1:9219/api%2Fconfig")); // { ok: false, reason: "..." }
 * ```
 */
export function routedPath(request: Request): RequestPath {
  const raw = rawPathOf(request.url);
  if (!NEEDS_CHECK.test(raw)) return { ok: true, path: raw };
  if (raw.includes("\\")) return refused("a backslash in the path");
  if (MALFORMED_ESCAPE.test(raw)) return refused("a malformed percent-escape in the path");
  if (AMBIGUOUS_ESCAPE.test(raw)) {
    return refused("an encoded slash, backslash, percent sign or control character in the path");
  }
  let decoded: string;
  try {
    decoded = decodeURIComponent(raw);
  } catch {
    return refused("a percent-escape that is not UTF-8 in the path");
  }
  const segments = decoded.split("/").slice(1);
  for (let i = 0; i < segments.length; i++) {
    const segment = segments[i];
    if (segment === "." || segment === "..") return refused("a dot segment in the path");
    if (segment === "" && i < segments.length - 1) return refused("an empty segment (//)");
  }
  return { ok: true, path: getPath(request) };
}

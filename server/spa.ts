/**
 * Serving the dashboard's web app from the generated module
 * server/ui_assets.gen.ts (built by `deno task ui:build`): hashed assets
 * under /assets/ with a year's caching, and for every other page path the
 * app's index.html, which on loopback binds carries the session token in a
 * `<meta name="herald-token">` so the dashboard needs no login there (on
 * other binds the page takes it from the URL's `#token=`).
 *
 * The module is loaded on the first page request, not at start-up: a
 * dashboard nobody has opened keeps none of it in memory. The page itself
 * is sent as plain text (it is under a kilobyte), so serving it starts no
 * compression stream, which would cost the process a few MB for good.
 *
 * @module
 */

import { importLazily } from "../adapters/lazy.ts";
import type { UiAsset } from "./ui_assets.gen.ts";

/** The security headers every page and asset goes out with. */
const SECURITY_HEADERS: Record<string, string> = {
  "Content-Security-Policy": [
    "default-src 'self'",
    "script-src 'self'",
    // xterm.js and Preact set styles at run time.
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data:",
    "connect-src 'self'",
    "object-src 'none'",
    "base-uri 'none'",
    "frame-ancestors 'none'",
    "form-action 'none'",
  ].join("; "),
  "X-Content-Type-Options": "nosniff",
  "Referrer-Policy": "no-referrer",
};

const TOKEN_SLOT = "<!--herald-token-->";

/** What a browser gets when the embedded app cannot be loaded (the API still works). */
const LOAD_FAILED_PAGE = `<!doctype html><html lang="en"><meta charset="utf-8"><title>Herald</title>
<h1>The dashboard's web app could not be loaded</h1>
<p>The server is running, but its embedded page failed to load; the reason is in the dashboard's
log. Rebuild it with <code>deno task ui:build</code>, restart <code>herald dashboard</code> and reload.</p>
`;

/** One asset ready to send: gzipped bytes and, once asked for, the plain ones. */
interface ReadyAsset {
  type: string;
  /** The base64 text from the module, decoded on the asset's first request. */
  packed: string;
  gzip?: Uint8Array;
  plain?: Uint8Array;
}

/** Answers page and asset requests from the embedded app. */
export interface UiHandler {
  /** The response for a GET or HEAD of `path` (any path outside /api). */
  respond(path: string, request: Request): Promise<Response>;
}

/**
 * Builds the handler; `token` is embedded into the page when given (loopback
 * binds only).
 */
export function uiHandler(options: { token?: string }): UiHandler {
  let loaded: Promise<EmbeddedApp> | undefined;
  const load = () => {
    if (!loaded) {
      loaded = loadEmbeddedApp(options.token);
      // A failed load is tried again on the next request rather than kept.
      loaded.catch(() => (loaded = undefined));
    }
    return loaded;
  };
  return {
    async respond(path, request) {
      let app: EmbeddedApp;
      try {
        app = await load();
      } catch (error) {
        const reason = error instanceof Error ? error.message : String(error);
        console.error(`herald dashboard: the web app could not be loaded: ${reason}`);
        return new Response(LOAD_FAILED_PAGE, {
          status: 500,
          headers: {
            "Content-Type": "text/html; charset=utf-8",
            "Cache-Control": "no-store",
            ...SECURITY_HEADERS,
          },
        });
      }
      const { assets, page } = app;
      const wantsGzip = acceptsGzip(request);
      const asset = assets.get(path);
      if (asset) {
        // Decoded on first request, so chunks nobody asks for (the terminal) cost nothing.
        const gzipped = asset.gzip ??= Uint8Array.fromBase64(asset.packed);
        const body = wantsGzip ? gzipped : (asset.plain ??= await gunzip(gzipped));
        return send(request, body, {
          "Content-Type": asset.type,
          "Cache-Control": path.startsWith("/assets/")
            ? "public, max-age=31536000, immutable"
            : "no-cache",
          ...(wantsGzip ? { "Content-Encoding": "gzip" } : {}),
          Vary: "Accept-Encoding",
        });
      }
      if (path.startsWith("/assets/")) {
        return new Response(
          `No such asset: ${path}. Reload the page: the dashboard was updated.\n`,
          {
            status: 404,
            headers: { "Content-Type": "text/plain; charset=utf-8", ...SECURITY_HEADERS },
          },
        );
      }
      return send(request, page, {
        "Content-Type": "text/html; charset=utf-8",
        "Cache-Control": "no-store",
      });
    },
  };
}

/** The embedded app, unpacked: its assets and the page with the token filled in. */
interface EmbeddedApp {
  assets: Map<string, ReadyAsset>;
  page: Uint8Array;
}

async function loadEmbeddedApp(token: string | undefined): Promise<EmbeddedApp> {
  const { UI_ASSETS, UI_PAGE } = await importLazily<typeof import("./ui_assets.gen.ts")>(
    "server/ui_assets.gen.ts",
  );
  if (!UI_PAGE.includes(TOKEN_SLOT)) {
    throw new Error("the embedded web app's page has no token slot: run `deno task ui:build`");
  }
  const assets = new Map<string, ReadyAsset>();
  for (const [path, asset] of Object.entries(UI_ASSETS)) assets.set(path, unpack(asset));
  const tokenTag = token ? `<meta name="herald-token" content="${escapeAttribute(token)}">` : "";
  return { assets, page: new TextEncoder().encode(UI_PAGE.replace(TOKEN_SLOT, tokenTag)) };
}

function send(request: Request, body: Uint8Array, headers: Record<string, string>): Response {
  return new Response(request.method === "HEAD" ? null : body as BodyInit, {
    status: 200,
    headers: { ...headers, "Content-Length": String(body.length), ...SECURITY_HEADERS },
  });
}

/** True when the request's Accept-Encoding takes gzip (or `*`) with a quality above 0. */
export function acceptsGzip(request: Request): boolean {
  const header = request.headers.get("accept-encoding");
  if (!header) return false;
  let star: boolean | undefined;
  for (const part of header.split(",")) {
    const [coding, ...params] = part.toLowerCase().split(";").map((piece) => piece.trim());
    const quality = params.find((param) => /^q\s*=/.test(param))?.replace(/^q\s*=\s*/, "");
    const accepted = quality === undefined || Number(quality) > 0;
    if (coding === "gzip" || coding === "x-gzip") return accepted;
    if (coding === "*") star = accepted;
  }
  return star ?? false;
}

function unpack(asset: UiAsset): ReadyAsset {
  return { type: asset.type, packed: asset.gzip };
}

async function gunzip(bytes: Uint8Array): Promise<Uint8Array> {
  const stream = new Blob([bytes as BlobPart]).stream().pipeThrough(
    new DecompressionStream("gzip"),
  );
  return new Uint8Array(await new Response(stream).arrayBuffer());
}

function escapeAttribute(text: string): string {
  return text.replace(/&/g, "&amp;").replace(/"/g, "&quot;").replace(/</g, "&lt;").replace(
    />/g,
    "&gt;",
  );
}

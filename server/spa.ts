/**
 * Serving the dashboard's web app from the generated module
 * server/ui_assets.gen.ts (built by `deno task ui:build`): hashed assets
 * under /assets/ with a year's caching, and for every other page path the
 * app's index.html, which on loopback binds carries the session token in a
 * `<meta name="herald-token">` so the dashboard needs no login there (on
 * other binds the page takes it from the URL's `#token=`).
 *
 * The module is loaded on the first page request, not at start-up: a
 * dashboard nobody has opened keeps none of it in memory.
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

/** One asset ready to send: gzipped bytes and, once asked for, the plain ones. */
interface ReadyAsset {
  type: string;
  gzip: Uint8Array;
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
  let loaded:
    | Promise<{ assets: Map<string, ReadyAsset>; page: (gzip: boolean) => Promise<Uint8Array> }>
    | undefined;
  const load = () =>
    loaded ??= importLazily<typeof import("./ui_assets.gen.ts")>("server/ui_assets.gen.ts").then(
      async ({ UI_ASSETS }) => {
        const assets = new Map<string, ReadyAsset>();
        for (const [path, asset] of Object.entries(UI_ASSETS)) assets.set(path, unpack(asset));
        const index = assets.get("/index.html");
        if (!index) {
          throw new Error("the embedded web app has no index.html: run `deno task ui:build`");
        }
        const html = new TextDecoder().decode(await gunzip(index.gzip));
        const tokenTag = options.token
          ? `<meta name="herald-token" content="${escapeAttribute(options.token)}">`
          : "";
        const plain = new TextEncoder().encode(html.replace(TOKEN_SLOT, tokenTag));
        const gzipped = gzip(plain);
        assets.delete("/index.html");
        return { assets, page: async (wantsGzip) => (wantsGzip ? await gzipped : plain) };
      },
    );
  return {
    async respond(path, request) {
      const { assets, page } = await load();
      const wantsGzip = acceptsGzip(request);
      const asset = assets.get(path);
      if (asset) {
        const body = wantsGzip ? asset.gzip : (asset.plain ??= await gunzip(asset.gzip));
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
      return send(request, await page(wantsGzip), {
        "Content-Type": "text/html; charset=utf-8",
        "Cache-Control": "no-store",
        ...(wantsGzip ? { "Content-Encoding": "gzip" } : {}),
        Vary: "Accept-Encoding",
      });
    },
  };
}

function send(request: Request, body: Uint8Array, headers: Record<string, string>): Response {
  return new Response(request.method === "HEAD" ? null : body as BodyInit, {
    status: 200,
    headers: { ...headers, "Content-Length": String(body.length), ...SECURITY_HEADERS },
  });
}

function acceptsGzip(request: Request): boolean {
  return /\bgzip\b/i.test(request.headers.get("accept-encoding") ?? "");
}

function unpack(asset: UiAsset): ReadyAsset {
  return { type: asset.type, gzip: Uint8Array.fromBase64(asset.gzip) };
}

async function gunzip(bytes: Uint8Array): Promise<Uint8Array> {
  const stream = new Blob([bytes as BlobPart]).stream().pipeThrough(
    new DecompressionStream("gzip"),
  );
  return new Uint8Array(await new Response(stream).arrayBuffer());
}

async function gzip(bytes: Uint8Array): Promise<Uint8Array> {
  const stream = new Blob([bytes as BlobPart]).stream().pipeThrough(new CompressionStream("gzip"));
  return new Uint8Array(await new Response(stream).arrayBuffer());
}

function escapeAttribute(text: string): string {
  return text.replace(/&/g, "&amp;").replace(/"/g, "&quot;").replace(/</g, "&lt;").replace(
    />/g,
    "&gt;",
  );
}

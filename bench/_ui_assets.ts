/**
 * Which of the embedded web app's files a first page load needs: the
 * scripts and stylesheets index.html names (script, stylesheet and
 * modulepreload tags) and, transitively, the chunks those scripts import
 * statically. Every other script or stylesheet is loaded on demand (a
 * dynamic `import()`). Sizes are the gzipped bytes the server sends, read
 * from server/ui_assets.gen.ts.
 *
 * @module
 */

import type { UiAsset } from "../server/ui_assets.gen.ts";

/** One embedded file and its sizes. */
export interface AssetSize {
  /** URL path, `/assets/...`. */
  path: string;
  /** Bytes as built. */
  bytes: number;
  /** Bytes as sent (gzip). */
  gzipBytes: number;
}

/** The embedded app split into what the first load needs and what loads later. */
export interface EmbeddedAppSizes {
  /** Scripts and stylesheets the first load needs. */
  initial: AssetSize[];
  /** Scripts and stylesheets loaded on demand. */
  lazy: AssetSize[];
  /** Other files (images, fonts), fetched only when something uses them. */
  other: AssetSize[];
  initialGzipBytes: number;
  lazyGzipBytes: number;
}

const TAG = /<(script|link)\b[^>]*>/gi;
// `import"./x.js"` or `import{a as b}from"./x.js"` / `export*from"./x.js"`; never `import(`.
const STATIC_IMPORT =
  /(?:^|[^\w$.])(?:import\s*(["'`])([^"'`]+)\1|(?:import|export)\s*[^;"'`()]*?\bfrom\s*(["'`])([^"'`]+)\3)/g;

/**
 * Splits `assets` (server/ui_assets.gen.ts's `UI_ASSETS`) into the initial
 * scripts and stylesheets (those `page`, its `UI_PAGE`, names, and their
 * static imports), the lazy ones and other files.
 *
 * @example
 * ```ts
 * import { UI_ASSETS, UI_PAGE } from "../server/ui_assets.gen.ts";
 * const sizes = await embeddedAppSizes(UI_ASSETS, UI_PAGE);
 * console.log(sizes.initialGzipBytes / 1024, "KB gzipped before any lazy chunk");
 * ```
 */
export async function embeddedAppSizes(
  assets: Readonly<Record<string, UiAsset>>,
  page: string,
): Promise<EmbeddedAppSizes> {
  const sizeOf = (path: string): AssetSize => ({
    path,
    bytes: assets[path].size,
    gzipBytes: Uint8Array.fromBase64(assets[path].gzip).length,
  });
  const text = async (path: string) => await gunzipText(assets[path].gzip);

  const pending = htmlReferences(page).filter((path) => path in assets);
  const initial = new Set<string>();
  while (pending.length > 0) {
    const path = pending.pop()!;
    if (initial.has(path)) continue;
    initial.add(path);
    if (path.endsWith(".js")) {
      for (const imported of staticImports(path, await text(path))) {
        if (imported in assets) pending.push(imported);
      }
    }
  }
  const code = (path: string) => path.endsWith(".js") || path.endsWith(".css");
  const paths = Object.keys(assets).sort();
  const pick = (keep: (path: string) => boolean) => paths.filter(keep).map(sizeOf);
  const initialSizes = pick((path) => initial.has(path));
  const lazySizes = pick((path) => code(path) && !initial.has(path));
  const total = (list: AssetSize[]) => list.reduce((sum, asset) => sum + asset.gzipBytes, 0);
  return {
    initial: initialSizes,
    lazy: lazySizes,
    other: pick((path) => !code(path) && !initial.has(path)),
    initialGzipBytes: total(initialSizes),
    lazyGzipBytes: total(lazySizes),
  };
}

/** Paths of the scripts, stylesheets and module preloads an HTML document names. */
export function htmlReferences(html: string): string[] {
  const found: string[] = [];
  for (const [tag, name] of html.matchAll(TAG)) {
    const attribute = (key: string) =>
      new RegExp(`\\s${key}\\s*=\\s*(?:"([^"]*)"|'([^']*)'|([^\\s>]+))`, "i").exec(tag)
        ?.slice(1).find((value) => value !== undefined);
    if (name.toLowerCase() === "script") {
      const src = attribute("src");
      if (src) found.push(resolve("/index.html", src));
      continue;
    }
    const rel = (attribute("rel") ?? "").toLowerCase().split(/\s+/);
    const href = attribute("href");
    if (href && (rel.includes("stylesheet") || rel.includes("modulepreload"))) {
      found.push(resolve("/index.html", href));
    }
  }
  return found;
}

/** Paths a built ES module imports statically (dynamic `import()` excluded). */
export function staticImports(fromPath: string, source: string): string[] {
  const found = new Set<string>();
  for (const match of source.matchAll(STATIC_IMPORT)) {
    const specifier = match[2] ?? match[4];
    if (specifier.startsWith(".") || specifier.startsWith("/")) {
      found.add(resolve(fromPath, specifier));
    }
  }
  return [...found];
}

function resolve(fromPath: string, specifier: string): string {
  return new URL(specifier, new URL(fromPath, "http://app.invalid")).pathname;
}

async function gunzipText(base64: string): Promise<string> {
  const stream = new Blob([Uint8Array.fromBase64(base64) as BlobPart]).stream()
    .pipeThrough(new DecompressionStream("gzip"));
  return await new Response(stream).text();
}

/**
 * Files the LINE channel offers for LINE to fetch. LINE sends an image (or
 * a link to a file) only by URL, so each file in a reply is published under
 * an unguessable token, `/line/media/<token>/<filename>`, served by the
 * webhook server at `LINE_PUBLIC_URL`. A published file is served for a
 * day, then forgotten; at most `maxFiles` are published at once (the
 * oldest go first). Only the published path is ever read.
 *
 * @module
 */

import {
  type ChannelClock,
  type OutboundMedia,
  PermanentSendError,
} from "../../../core/channels/contract.ts";
import type { LineMessage } from "./api.ts";

/** LINE fetches images of at most 10 MB; larger ones are sent as a link. */
const MAX_IMAGE_BYTES = 10 * 1024 * 1024;
const IMAGE = /\.(?:jpe?g|png)$/i;

/** The URL path media is served under. */
export const MEDIA_PATH_PREFIX = "/line/media/";

// deno-fmt-ignore
const CONTENT_TYPES: Record<string, string> = {
  jpg: "image/jpeg", jpeg: "image/jpeg", png: "image/png", gif: "image/gif", webp: "image/webp",
  mp4: "video/mp4", m4a: "audio/mp4", mp3: "audio/mpeg", pdf: "application/pdf",
  txt: "text/plain; charset=utf-8", md: "text/markdown; charset=utf-8", csv: "text/csv; charset=utf-8",
  json: "application/json", zip: "application/zip",
};

interface Published {
  path: string;
  name: string;
  publishedAt: number;
}

/** What a shelf is built from. */
export interface MediaShelfOptions {
  clock: ChannelClock;
  /** Files published at once, at most (default 1,000). */
  maxFiles?: number;
  /** How long a file stays published (default 24 hours). */
  ttlMs?: number;
}

/** The files currently published for LINE to fetch. */
export class MediaShelf {
  readonly #clock: ChannelClock;
  readonly #maxFiles: number;
  readonly #ttlMs: number;
  /** By token, oldest first. */
  readonly #files = new Map<string, Published>();

  /** Creates an empty shelf. */
  constructor(options: MediaShelfOptions) {
    this.#clock = options.clock;
    this.#maxFiles = options.maxFiles ?? 1000;
    this.#ttlMs = options.ttlMs ?? 24 * 60 * 60 * 1000;
  }

  /** The file name a path is published under (its last segment). */
  static fileName(path: string): string {
    return path.split(/[\\/]/).pop() || "file";
  }

  /** Publishes `path` and returns its URL under `publicUrl` (no trailing slash). */
  publish(path: string, publicUrl: string): string {
    this.#sweep();
    const bytes = crypto.getRandomValues(new Uint8Array(18));
    const token = Array.from(bytes, (byte) => byte.toString(16).padStart(2, "0")).join("");
    const name = MediaShelf.fileName(path);
    this.#files.set(token, { path, name, publishedAt: this.#clock.now() });
    while (this.#files.size > this.#maxFiles) {
      const oldest = this.#files.keys().next().value;
      if (oldest === undefined) break;
      this.#files.delete(oldest);
    }
    return `${publicUrl}${MEDIA_PATH_PREFIX}${token}/${encodeURIComponent(name)}`;
  }

  /**
   * Answers a GET for `pathname` (`/line/media/<token>/<filename>`): the
   * file's bytes, or 404 for a token that is unknown, expired or names
   * another file, or a file that is gone.
   */
  async serve(pathname: string): Promise<Response> {
    this.#sweep();
    const match = /^\/line\/media\/([0-9a-f]{36})\/([^/]+)$/.exec(pathname);
    const published = match === null ? undefined : this.#files.get(match[1]);
    let name: string | undefined;
    try {
      name = match === null ? undefined : decodeURIComponent(match[2]);
    } catch {
      name = undefined;
    }
    if (published === undefined || name !== published.name) return notFound();
    let file: Deno.FsFile;
    try {
      file = await Deno.open(published.path, { read: true });
    } catch {
      return notFound();
    }
    const extension = published.name.toLowerCase().split(".").pop() ?? "";
    return new Response(file.readable, {
      headers: {
        "content-type": CONTENT_TYPES[extension] ?? "application/octet-stream",
        "cache-control": "private, max-age=86400",
      },
    });
  }

  #sweep(): void {
    const now = this.#clock.now();
    for (const [token, published] of this.#files) {
      if (now - published.publishedAt <= this.#ttlMs) break;
      this.#files.delete(token);
    }
  }
}

function notFound(): Response {
  return Response.json({ message: "Not found" }, { status: 404 });
}

/**
 * The LINE message for a file of a reply, published on `shelf`: an image
 * message for a JPEG or PNG of at most 10 MB (not sent as a document), a
 * link otherwise. LINE bots cannot send documents, and audio and video
 * messages need a duration and a preview image Herald does not have.
 *
 * @throws PermanentSendError when the file cannot be read.
 */
export async function mediaMessage(
  shelf: MediaShelf,
  media: OutboundMedia,
  publicUrl: string,
): Promise<LineMessage> {
  let size: number;
  try {
    const info = await Deno.stat(media.path);
    if (!info.isFile) throw new Error("it is not a file");
    size = info.size;
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw new PermanentSendError(`The file "${media.path}" to send cannot be read: ${reason}`);
  }
  const url = shelf.publish(media.path, publicUrl);
  if (!media.asDocument && IMAGE.test(media.path) && size <= MAX_IMAGE_BYTES) {
    return { type: "image", originalContentUrl: url, previewImageUrl: url };
  }
  return { type: "text", text: `📎 ${MediaShelf.fileName(media.path)}: ${url}` };
}

/**
 * What happens to a file someone sends the bot (spec 8): it is read into
 * memory up to a size limit (default 32 MiB, 0 for none), small text files
 * of known formats are put into the prompt as text (up to 100 KiB), images,
 * audio and video are kept as files, and anything else is refused unless
 * the platform allows any type. A refusal carries the sentence the user is
 * told; nothing is dropped silently.
 *
 * Settings, in the platform's `platforms.<id>` record of config.yaml:
 *
 * ```yaml
 * platforms:
 *   telegram:
 *     attachments:
 *       max_bytes: 33554432   # 0 = no limit (the whole file is held in memory)
 *       allow_any_type: false # true: keep files of any type
 * ```
 *
 * @example
 * ```ts
 * const { policy, warnings } = readAttachmentPolicy(context.settings);
 * const admitted = await Promise.all(message.attachments.map((a) => admitAttachment(a, policy)));
 * const prompt = message.text + "\n\n" + describeAttachmentsForPrompt(admitted);
 * ```
 *
 * @module
 */

import { isRecord } from "../_util/json.ts";
import type { InboundAttachment } from "./contract.ts";

/** How inbound files are admitted on one platform. */
export interface AttachmentPolicy {
  /** The largest file read, in bytes; 0 for no limit. */
  maxBytes: number;
  /** Keep files of any type, not only text, images, audio and video. */
  allowAnyType: boolean;
}

/** 32 MiB, any type refused (spec 8). */
export const DEFAULT_ATTACHMENT_POLICY: Readonly<AttachmentPolicy> = Object.freeze({
  maxBytes: 32 * 1024 * 1024,
  allowAnyType: false,
});

/** Text files up to this many bytes are put into the prompt (spec 8: 100 KiB). */
export const INLINE_TEXT_LIMIT = 100 * 1024;

/** What became of one inbound file. */
export type AdmittedAttachment =
  | { kind: "inline_text"; name: string; text: string }
  | { kind: "file"; name: string; mimeType?: string; bytes: Uint8Array }
  | { kind: "refused"; name: string; reason: string };

// ------------------------------------------------------------------ settings

/**
 * Reads `attachments.max_bytes` (a whole number of bytes, 0 for no limit)
 * and `attachments.allow_any_type` (true or false) from a platform's
 * settings. A missing value takes the default; an invalid one takes the
 * default too and adds a warning saying what was wrong and what to write.
 */
export function readAttachmentPolicy(
  settings: Readonly<Record<string, unknown>>,
): { policy: AttachmentPolicy; warnings: string[] } {
  const policy = { ...DEFAULT_ATTACHMENT_POLICY };
  const warnings: string[] = [];
  const section = settings.attachments;
  if (section === undefined || section === null) return { policy, warnings };
  if (!isRecord(section)) {
    warnings.push(
      `attachments should be a mapping with max_bytes and allow_any_type, got ${
        JSON.stringify(section)
      }; using the defaults`,
    );
    return { policy, warnings };
  }
  const maxBytes = section.max_bytes;
  if (maxBytes !== undefined) {
    if (typeof maxBytes === "number" && Number.isSafeInteger(maxBytes) && maxBytes >= 0) {
      policy.maxBytes = maxBytes;
    } else {
      warnings.push(
        `attachments.max_bytes should be a whole number of bytes (0 for no limit), got ${
          JSON.stringify(maxBytes)
        }; using ${policy.maxBytes} (${formatBytes(policy.maxBytes)})`,
      );
    }
  }
  const allowAny = section.allow_any_type;
  if (allowAny !== undefined) {
    if (typeof allowAny === "boolean") policy.allowAnyType = allowAny;
    else {
      warnings.push(
        `attachments.allow_any_type should be true or false, got ${
          JSON.stringify(allowAny)
        }; using ${policy.allowAnyType}`,
      );
    }
  }
  return { policy, warnings };
}

/**
 * The attachment policy of a platform's settings (see
 * {@link readAttachmentPolicy}, which also returns the warnings for values
 * it could not use).
 */
export function attachmentPolicy(settings: Readonly<Record<string, unknown>>): AttachmentPolicy {
  return readAttachmentPolicy(settings).policy;
}

// --------------------------------------------------------------------- types

/**
 * File extensions read as text (and put into the prompt when small):
 * prose and data (txt, md, csv, tsv, json, jsonl, yaml, yml, toml, ini,
 * cfg, conf, env, xml, html, htm, css, log, diff, patch, sql, graphql, srt,
 * vtt, tex, rst, adoc, org), and source code of common languages.
 */
// deno-fmt-ignore
export const TEXT_EXTENSIONS: ReadonlySet<string> = new Set([
  "txt", "text", "md", "markdown", "csv", "tsv", "json", "jsonl", "ndjson", "yaml", "yml",
  "toml", "ini", "cfg", "conf", "env", "properties", "xml", "html", "htm", "css", "scss", "less",
  "log", "diff", "patch", "sql", "graphql", "gql", "srt", "vtt", "tex", "rst", "adoc", "org",
  "ts", "tsx", "js", "jsx", "mjs", "cjs", "py", "rb", "go", "rs", "java", "kt", "kts", "scala",
  "c", "h", "cc", "cpp", "hpp", "cs", "swift", "m", "php", "pl", "lua", "r", "dart", "ex", "exs",
  "erl", "hs", "clj", "sh", "bash", "zsh", "fish", "ps1", "bat", "vue", "svelte", "proto", "tf",
  "gradle", "cmake", "mk", "dockerfile", "nix", "zig",
]);

/** File names without an extension that are text. */
const TEXT_NAMES = new Set([
  "dockerfile",
  "makefile",
  "readme",
  "license",
  "changelog",
  "procfile",
]);

/** MIME types read as text besides `text/*`. */
// deno-fmt-ignore
const TEXT_MIME = new Set([
  "application/json", "application/ld+json", "application/x-ndjson", "application/xml",
  "application/yaml", "application/x-yaml", "application/toml", "application/javascript",
  "application/x-javascript", "application/typescript", "application/x-sh", "application/sql",
  "application/graphql", "application/x-python", "application/csv",
]);

// deno-fmt-ignore
const MEDIA_EXTENSIONS: Record<string, string> = {
  png: "image/png", jpg: "image/jpeg", jpeg: "image/jpeg", gif: "image/gif", webp: "image/webp",
  heic: "image/heic", heif: "image/heif", bmp: "image/bmp", tif: "image/tiff", tiff: "image/tiff",
  mp3: "audio/mpeg", m4a: "audio/mp4", aac: "audio/aac", ogg: "audio/ogg", oga: "audio/ogg",
  opus: "audio/opus", wav: "audio/wav", flac: "audio/flac", amr: "audio/amr",
  mp4: "video/mp4", m4v: "video/mp4", mov: "video/quicktime", webm: "video/webm",
  mkv: "video/x-matroska", avi: "video/x-msvideo", "3gp": "video/3gpp",
};

const MEDIA_MIME = /^(?:image|audio|video)\//i;

/** What kind of content a file is, from its platform kind, MIME type and name. */
function classify(attachment: InboundAttachment, name: string): "text" | "media" | "other" {
  const mime = attachment.mimeType?.split(";")[0].trim().toLowerCase() ?? "";
  const lower = name.toLowerCase();
  const dot = lower.lastIndexOf(".");
  const extension = dot > 0 ? lower.slice(dot + 1) : dot === 0 ? lower.slice(1) : "";
  if (attachment.kind === "location") return "text";
  if (["image", "audio", "video", "sticker"].includes(attachment.kind)) return "media";
  if (MEDIA_MIME.test(mime) || extension in MEDIA_EXTENSIONS) return "media";
  if (mime.startsWith("text/") || TEXT_MIME.has(mime) || /\+(?:json|xml)$/.test(mime)) {
    return "text";
  }
  if (TEXT_EXTENSIONS.has(extension) || (dot < 0 && TEXT_NAMES.has(lower))) return "text";
  return "other";
}

/** The MIME type to report for a kept file: the platform's, else one known for its extension. */
function mimeTypeOf(attachment: InboundAttachment, name: string): string | undefined {
  if (attachment.mimeType) return attachment.mimeType;
  const extension = name.toLowerCase().split(".").pop() ?? "";
  return MEDIA_EXTENSIONS[extension];
}

// ------------------------------------------------------------------ admitting

/** A name fit for a sentence and a prompt: no control characters, not endless. */
function cleanName(attachment: InboundAttachment): string {
  // deno-lint-ignore no-control-regex
  const name = (attachment.name ?? "").replace(/[\u0000-\u001f\u007f]+/g, " ").trim();
  if (name !== "") return name.length > 200 ? `${name.slice(0, 199)}…` : name;
  return attachment.kind === "image"
    ? "photo"
    : attachment.kind === "file"
    ? "file"
    : attachment.kind;
}

/**
 * A byte count for people: `512 B`, `1.5 KiB`, `32 MiB`.
 *
 * @example
 * ```ts
 * formatBytes(33554432); // "32 MiB"
 * ```
 */
export function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  const units = ["KiB", "MiB", "GiB", "TiB"];
  let value = bytes / 1024;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  const shown = value >= 100 || Number.isInteger(value) ? Math.round(value) : value.toFixed(1);
  return `${shown} ${units[unit]}`;
}

function tooLarge(name: string, size: number, maxBytes: number): AdmittedAttachment {
  return {
    kind: "refused",
    name,
    reason: `"${name}" was not read: it is ${formatBytes(size)}, over this chat's limit of ` +
      `${formatBytes(maxBytes)}. Send a smaller file, or raise attachments.max_bytes in the ` +
      `platform's settings (0 means no limit).`,
  };
}

const utf8 = new TextDecoder("utf-8", { fatal: true, ignoreBOM: false });

/** The bytes as text when they are valid UTF-8 with no NUL, else null. */
function decodeText(bytes: Uint8Array): string | null {
  try {
    const text = utf8.decode(bytes);
    return text.includes("\0") ? null : text;
  } catch {
    return null;
  }
}

/**
 * Decides what becomes of an inbound file under `policy`:
 *
 * 1. a size the platform announced over `maxBytes` is refused before the
 *    download, and so is a type not admitted (below);
 * 2. the file is downloaded (a failed download is refused with the
 *    platform's message) and refused when its bytes pass `maxBytes`;
 * 3. a text format (by MIME type, extension or well-known name: see
 *    {@link TEXT_EXTENSIONS}) of at most {@link INLINE_TEXT_LIMIT} bytes
 *    of valid UTF-8 becomes inline text; a larger or non-UTF-8 one is a file;
 * 4. images, audio, video and stickers are files;
 * 5. anything else is a file when `allowAnyType`, else refused.
 *
 * A refusal's `reason` is what the user is told: what was refused, why,
 * and what to do.
 */
export async function admitAttachment(
  attachment: InboundAttachment,
  policy: AttachmentPolicy,
): Promise<AdmittedAttachment> {
  const name = cleanName(attachment);
  const limit = policy.maxBytes;
  if (limit > 0 && attachment.size !== undefined && attachment.size > limit) {
    return tooLarge(name, attachment.size, limit);
  }
  const type = classify(attachment, name);
  if (type === "other" && !policy.allowAnyType) {
    const described = attachment.mimeType ? ` (${attachment.mimeType})` : "";
    return {
      kind: "refused",
      name,
      reason: `"${name}"${described} was not read: only text files, images, audio and video ` +
        `are accepted here. Paste its contents as text or send it in one of those formats; ` +
        `the owner can accept every type with attachments.allow_any_type: true.`,
    };
  }
  let bytes: Uint8Array;
  try {
    bytes = await attachment.fetch();
  } catch (error) {
    const why = error instanceof Error ? error.message : String(error);
    return {
      kind: "refused",
      name,
      reason: `"${name}" could not be downloaded: ${why.replace(/\.$/, "")}. Try sending it again.`,
    };
  }
  if (limit > 0 && bytes.byteLength > limit) return tooLarge(name, bytes.byteLength, limit);
  if (type === "text" && bytes.byteLength <= INLINE_TEXT_LIMIT) {
    const text = decodeText(bytes);
    if (text !== null) return { kind: "inline_text", name, text };
  }
  const mimeType = mimeTypeOf(attachment, name);
  return mimeType === undefined ? { kind: "file", name, bytes } : {
    kind: "file",
    name,
    mimeType,
    bytes,
  };
}

// ------------------------------------------------------------------- prompt

/** A code fence longer than any backtick run in `text`, so the text cannot close it. */
function fenceFor(text: string): string {
  let longest = 0;
  for (const match of text.matchAll(/`+/g)) longest = Math.max(longest, match[0].length);
  return "`".repeat(Math.max(3, longest + 1));
}

/** The fence language for a file name: its extension when it is a plain word. */
function languageOf(name: string): string {
  const dot = name.lastIndexOf(".");
  const extension = dot > 0 ? name.slice(dot + 1).toLowerCase() : "";
  return /^[a-z0-9+#-]{1,12}$/.test(extension) ? extension : "";
}

/**
 * What the runner appends to the user's text so the model knows what came
 * with it: inline text in a fence headed by its name, kept files by name,
 * type and size (and the path it was saved at, when `savedPaths[i]` gives
 * one for `admitted[i]`), refusals with their reason. "" when there is
 * nothing.
 *
 * @example
 * ```ts
 * describeAttachmentsForPrompt([{ kind: "inline_text", name: "a.md", text: "# Hi" }]);
 * // 'The user attached 1 file:\n\nText file "a.md":\n```md\n# Hi\n```'
 * ```
 */
export function describeAttachmentsForPrompt(
  admitted: readonly AdmittedAttachment[],
  savedPaths: readonly (string | undefined)[] = [],
): string {
  if (admitted.length === 0) return "";
  const count = admitted.length === 1 ? "1 file" : `${admitted.length} files`;
  const blocks = admitted.map((item, index) => {
    if (item.kind === "inline_text") {
      const fence = fenceFor(item.text);
      const body = item.text.endsWith("\n") ? item.text : `${item.text}\n`;
      return `Text file "${item.name}":\n${fence}${languageOf(item.name)}\n${body}${fence}`;
    }
    if (item.kind === "file") {
      const type = item.mimeType ? `${item.mimeType}, ` : "";
      const saved = savedPaths[index] ? `, saved at ${savedPaths[index]}` : "";
      return `File "${item.name}" (${type}${formatBytes(item.bytes.byteLength)})${saved}.`;
    }
    return `Not received: "${item.name}". ${item.reason}`;
  });
  return `The user attached ${count}:\n\n${blocks.join("\n\n")}`;
}

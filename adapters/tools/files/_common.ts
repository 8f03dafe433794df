/**
 * What the file tools share: their options, path resolution, the checks
 * before reading, binary detection and the mapping of file-system errors to
 * tool errors.
 *
 * @module
 */

import { dirname } from "node:path";
import { closest } from "../../../core/_util/suggest.ts";
import { ToolError } from "../../../core/tools/types.ts";
import { resolveToolPath, userHome } from "../_paths.ts";
import type { WriteGuardOptions } from "./_write_guard.ts";

/** Options shared by the file tools (see `createFileTools`). */
export interface FileToolsOptions {
  /**
   * Semantic diagnostics for a file just written (the language-server seam,
   * adapters/lsp): what the write introduced, compared with `before`, the
   * file's text before it (null for a new file, undefined when unknown).
   * Called only when the syntax check found no error; an empty string or a
   * thrown error means "nothing to report".
   */
  diagnostics?: (path: string, before?: string | null) => Promise<string>;
  /** Folder that `~` expands to; defaults to the user's home (`HOME`). */
  homeDir?: string;
  /**
   * Nothing outside this folder is written (`HERALD_WRITE_SAFE_ROOT` or
   * `tools.write_safe_root`); absent: no write root.
   */
  writeSafeRoot?: string;
}

/** Resolves a tool's path argument against the working directory; `~` is read at each call. */
export function pathResolver(options: FileToolsOptions): (path: string, cwd: string) => string {
  return (path, cwd) => resolveToolPath(path, cwd, options.homeDir ?? userHome());
}

/** The write guard's options from the file tools' options. */
export function guardOptions(options: FileToolsOptions): WriteGuardOptions {
  return { userHome: options.homeDir ?? userHome(), writeSafeRoot: options.writeSafeRoot };
}

/** Stats a path for reading; refuses missing files, folders and devices with a clear error. */
export async function statForRead(path: string): Promise<Deno.FileInfo> {
  let info: Deno.FileInfo;
  try {
    info = await Deno.stat(path);
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) {
      throw new ToolError("not_found", `File "${path}" not found${await suggestSibling(path)}`);
    }
    throw fsError(error, path, "read");
  }
  if (info.isDirectory) {
    throw new ToolError(
      "is_directory",
      `"${path}" is a directory; use search_files with mode "files" to list it`,
    );
  }
  if (!info.isFile) {
    throw new ToolError("not_regular_file", `"${path}" is not a regular file (a device or socket)`);
  }
  return info;
}

/** `; did you mean "x"?` for a missing file whose folder has a similarly named entry. */
async function suggestSibling(path: string): Promise<string> {
  try {
    const names: string[] = [];
    for await (const entry of Deno.readDir(dirname(path))) names.push(entry.name);
    const name = path.slice(dirname(path).length + 1);
    const match = closest(name, names);
    return match ? `; did you mean "${dirname(path)}/${match}"?` : "";
  } catch {
    return "";
  }
}

/** Reads a whole text file for patching; refuses binary files. */
export async function readWholeText(path: string): Promise<string> {
  const info = await statForRead(path);
  let bytes: Uint8Array;
  try {
    bytes = await Deno.readFile(path);
  } catch (error) {
    throw fsError(error, path, "read");
  }
  if (looksBinary(bytes)) throw binaryError(path, bytes, info.size);
  try {
    return new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch {
    throw binaryError(path, bytes, info.size);
  }
}

const BINARY_SNIFF_BYTES = 8192;

/** True when the first bytes hold a NUL, the mark of a binary file. */
export function looksBinary(bytes: Uint8Array): boolean {
  return bytes.subarray(0, BINARY_SNIFF_BYTES).includes(0);
}

const MAGIC: [number[], string][] = [
  [[0x89, 0x50, 0x4e, 0x47], "PNG image"],
  [[0xff, 0xd8, 0xff], "JPEG image"],
  [[0x47, 0x49, 0x46, 0x38], "GIF image"],
  [[0x25, 0x50, 0x44, 0x46], "PDF document"],
  [[0x50, 0x4b, 0x03, 0x04], "ZIP archive"],
  [[0x1f, 0x8b], "gzip archive"],
  [[0x7f, 0x45, 0x4c, 0x46], "ELF executable"],
  [[0x53, 0x51, 0x4c, 0x69, 0x74, 0x65], "SQLite database"],
];

/** The refusal for a binary file, naming its kind (from its first bytes) and size. */
export function binaryError(path: string, head: Uint8Array, size: number): ToolError {
  const kind = MAGIC.find(([magic]) => magic.every((byte, i) => head[i] === byte))?.[1] ??
    "binary data";
  return new ToolError(
    "binary_file",
    `"${path}" is a binary file (${kind}, ${formatSize(size)}); read_file only shows text`,
  );
}

function formatSize(bytes: number): string {
  if (bytes < 1024) return `${bytes} bytes`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KB`;
  return `${(bytes / 1024 / 1024).toFixed(1)} MB`;
}

/** Maps a file-system error to a ToolError the model can act on. */
export function fsError(error: unknown, path: string, verb: "read" | "write"): ToolError {
  if (error instanceof ToolError) return error;
  if (error instanceof Deno.errors.PermissionDenied) {
    return new ToolError("permission_denied", `Cannot ${verb} "${path}": permission denied`);
  }
  if (error instanceof Deno.errors.NotFound) {
    return new ToolError("not_found", `Cannot ${verb} "${path}": a parent folder does not exist`);
  }
  const reason = error instanceof Error ? error.message : String(error);
  return new ToolError(`${verb}_failed`, `Cannot ${verb} "${path}": ${reason}`);
}

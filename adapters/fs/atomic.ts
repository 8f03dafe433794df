/**
 * Atomic file replacement: write a temporary file beside the target, flush
 * it, then rename it over the target, so a reader sees the old or the new
 * content and never half of either.
 *
 * @module
 */

import { basename, dirname, join } from "node:path";

/** Options for {@link writeFileAtomic}. */
export interface AtomicWriteOptions {
  /** Mode for a new file; an existing file keeps its own mode unless `forceMode` is set. */
  mode?: number;
  /** Always apply `mode`, even when the target exists (used for secrets). */
  forceMode?: boolean;
}

/**
 * Replaces `path` with `data` atomically.
 *
 * @example
 * ```ts
 * await writeFileAtomic("/tmp/x/config.yaml", "agent:\n  max_turns: 5\n");
 * ```
 */
export async function writeFileAtomic(
  path: string,
  data: string | Uint8Array,
  options: AtomicWriteOptions = {},
): Promise<void> {
  let mode = options.mode ?? 0o600;
  if (!options.forceMode) {
    try {
      mode = (await Deno.stat(path)).mode! & 0o777;
    } catch (error) {
      if (!(error instanceof Deno.errors.NotFound)) throw error;
    }
  }
  const suffix = crypto.getRandomValues(new Uint32Array(1))[0].toString(36);
  const temp = join(dirname(path), `.${basename(path)}.${suffix}.tmp`);
  const bytes = typeof data === "string" ? new TextEncoder().encode(data) : data;
  try {
    const file = await Deno.open(temp, { write: true, createNew: true, mode });
    try {
      let written = 0;
      while (written < bytes.length) written += await file.write(bytes.subarray(written));
      await file.sync();
    } finally {
      file.close();
    }
    await Deno.chmod(temp, mode);
    await Deno.rename(temp, path);
  } catch (error) {
    await Deno.remove(temp).catch(() => {});
    throw error;
  }
}

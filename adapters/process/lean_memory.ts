/**
 * Keeping a long-lived process (the gateway) lean. Nothing the gateway holds
 * grows per message, yet its RSS crept up by a third from 1,000 to 10,000
 * messages (bench/gateway.ts): V8 kept growing a heap several times its live
 * size, and glibc's allocator kept what the runtime freed (HTTP traffic
 * leaves its arenas fragmented). Two remedies, measured together at +0.5%:
 *
 * - {@link LEAN_V8_FLAGS} (`--optimize-for-size`) in `DENO_V8_FLAGS` of the
 *   gateway's process, which must be set before the process starts: `herald
 *   gateway start` and the service units set it ({@link leanProcessEnv});
 * - {@link trimFreedMemory} now and then (glibc's `malloc_trim(0)`; Linux with
 *   glibc only, a no-op anywhere else).
 *
 * @module
 */

type Trim = () => void;

let loaded: Trim | null | undefined;

/** glibc's `malloc_trim`, or null where there is none. */
function trimFunction(): Trim | null {
  if (loaded !== undefined) return loaded;
  loaded = null;
  if (Deno.build.os !== "linux") return loaded;
  try {
    const libc = Deno.dlopen("libc.so.6", {
      malloc_trim: { parameters: ["usize"], result: "i32" },
    });
    loaded = () => void libc.symbols.malloc_trim(0n);
  } catch {
    // Not glibc, or no permission to load libraries: nothing to trim with.
  }
  return loaded;
}

/**
 * Returns the allocator's free memory to the system where it can (Linux
 * with glibc); does nothing elsewhere. Never throws.
 *
 * @example
 * ```ts
 * setInterval(trimFreedMemory, 60_000);
 * ```
 */
export function trimFreedMemory(): void {
  try {
    trimFunction()?.();
  } catch {
    loaded = null;
  }
}

/** The V8 flags of a lean long-lived process: a heap sized for memory, not peak speed. */
export const LEAN_V8_FLAGS = "--optimize-for-size";

/**
 * `DENO_V8_FLAGS` for a lean process: `current` (the environment's value,
 * kept) with {@link LEAN_V8_FLAGS} added when it is not there yet.
 *
 * @example
 * ```ts
 * leanV8Flags(undefined);            // "--optimize-for-size"
 * leanV8Flags("--max-old-space-size=512"); // "--max-old-space-size=512,--optimize-for-size"
 * ```
 */
export function leanV8Flags(current: string | undefined): string {
  const flags = (current ?? "").split(",").map((flag) => flag.trim()).filter((flag) => flag !== "");
  if (!flags.includes(LEAN_V8_FLAGS)) flags.push(LEAN_V8_FLAGS);
  return flags.join(",");
}

/**
 * A memory probe preloaded into a real `herald gateway run` by the gateway
 * bench (`deno run --preload bench/_gateway_probe.ts --v8-flags=--expose-gc
 * cli/main.ts gateway run`, see bench/_gateway_load.ts). On SIGUSR1 it runs
 * a full garbage collection, reads the JavaScript heap and glibc's malloc
 * figures (`mallinfo2`), returns the allocator's free pages to the system
 * (`malloc_trim(0)`), reads again and appends one JSON line to the file
 * named by `HERALD_BENCH_PROBE_FILE`. It tells memory the gateway holds
 * from memory the allocators keep after it was freed.
 *
 * Linux with glibc only: elsewhere the malloc figures are left out.
 *
 * @module
 */

/** One reading of the probe (MB). */
export interface ProbeReading {
  /** VmRSS after the collection. */
  rssMb: number;
  /** VmRSS after `malloc_trim(0)` too. */
  trimmedRssMb: number;
  /** Live JavaScript heap after the collection. */
  heapUsedMb: number;
  /** The JavaScript heap V8 has committed. */
  heapTotalMb: number;
  /** Bytes malloc has handed out and not had back (`uordblks`), when known. */
  mallocInUseMb?: number;
  /** Bytes malloc holds free in its arenas (`fordblks`), before the trim, when known. */
  mallocFreeMb?: number;
}

const MB = 1024 * 1024;

type Libc = {
  symbols: {
    mallinfo2(): Uint8Array;
    malloc_trim(pad: number | bigint): number;
  };
};

function openLibc(): Libc | undefined {
  try {
    return Deno.dlopen("libc.so.6", {
      mallinfo2: { parameters: [], result: { struct: Array(10).fill("usize") } },
      malloc_trim: { parameters: ["usize"], result: "i32" },
    }) as unknown as Libc;
  } catch {
    return undefined;
  }
}

function read(libc: Libc | undefined) {
  const usage = Deno.memoryUsage();
  const info = libc ? new BigUint64Array(libc.symbols.mallinfo2().buffer) : undefined;
  return {
    rssMb: usage.rss / MB,
    heapUsedMb: usage.heapUsed / MB,
    heapTotalMb: usage.heapTotal / MB,
    ...(info ? { mallocInUseMb: Number(info[7]) / MB, mallocFreeMb: Number(info[8]) / MB } : {}),
  };
}

const file = Deno.env.get("HERALD_BENCH_PROBE_FILE");
const collect = (globalThis as { gc?: () => void }).gc;
if (file && collect) {
  const libc = openLibc();
  const probe = () => {
    collect();
    collect();
    const before = read(libc);
    libc?.symbols.malloc_trim(0);
    const reading: ProbeReading = { ...before, trimmedRssMb: read(libc).rssMb };
    Deno.writeTextFileSync(file, JSON.stringify(reading) + "\n", { append: true });
  };
  Deno.addSignalListener("SIGUSR1", probe);
}

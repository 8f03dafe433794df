/**
 * The compile matrix: the five targets `deno task build` makes a binary
 * for, the binary's file name for each, and which target a program file
 * (a `DENORT_BIN`) was built for, read from its header.
 *
 * @module
 */

/** One target of the compile matrix. */
export interface Target {
  /** Deno's target triple (`deno compile --target`). */
  triple: string;
  /** `Deno.build.os` on that target. */
  os: "linux" | "darwin" | "windows";
  /** `Deno.build.arch` on that target. */
  arch: "x86_64" | "aarch64";
}

/** Every target `deno task build` compiles for, in build order. */
export const TARGETS: readonly Target[] = [
  { triple: "x86_64-unknown-linux-gnu", os: "linux", arch: "x86_64" },
  { triple: "aarch64-unknown-linux-gnu", os: "linux", arch: "aarch64" },
  { triple: "x86_64-apple-darwin", os: "darwin", arch: "x86_64" },
  { triple: "aarch64-apple-darwin", os: "darwin", arch: "aarch64" },
  { triple: "x86_64-pc-windows-msvc", os: "windows", arch: "x86_64" },
];

/**
 * The binary's file name for `target`: `herald-<os>-<arch>`, with `.exe`
 * on Windows (os and arch as `Deno.build` names them).
 *
 * @example
 * ```ts
 * artifactName(TARGETS[4]) // "herald-windows-x86_64.exe"
 * ```
 */
export function artifactName(target: Target): string {
  return `herald-${target.os}-${target.arch}${target.os === "windows" ? ".exe" : ""}`;
}

/** The target with this triple, or undefined. */
export function targetByTriple(triple: string): Target | undefined {
  return TARGETS.find((target) => target.triple === triple);
}

/** The target this machine is, when it is one of {@link TARGETS}. */
export function hostTarget(): Target | undefined {
  return TARGETS.find((target) => target.os === Deno.build.os && target.arch === Deno.build.arch);
}

function find(os: Target["os"], arch: Target["arch"] | undefined): Target | undefined {
  return arch ? TARGETS.find((target) => target.os === os && target.arch === arch) : undefined;
}

/**
 * The target a program was built for, from the first bytes of its file
 * (ELF, 64-bit Mach-O or PE), or undefined when they are none of those or
 * name an architecture outside {@link TARGETS}.
 *
 * @example
 * ```ts
 * binaryTarget(await Deno.readFile("/bin/true")) // the linux target of this machine
 * ```
 */
export function binaryTarget(header: Uint8Array): Target | undefined {
  const view = new DataView(header.buffer, header.byteOffset, header.byteLength);
  const has = (bytes: number) => header.byteLength >= bytes;
  if (has(20) && view.getUint32(0) === 0x7f454c46) {
    const machine = view.getUint16(18, header[5] === 1);
    return find("linux", machine === 0x3e ? "x86_64" : machine === 0xb7 ? "aarch64" : undefined);
  }
  if (has(8) && view.getUint32(0, true) === 0xfeedfacf) {
    const cpu = view.getUint32(4, true);
    return find(
      "darwin",
      cpu === 0x01000007 ? "x86_64" : cpu === 0x0100000c ? "aarch64" : undefined,
    );
  }
  if (has(64) && header[0] === 0x4d && header[1] === 0x5a) {
    const pe = view.getUint32(0x3c, true);
    if (!has(pe + 6) || view.getUint32(pe) !== 0x50450000) return undefined;
    const machine = view.getUint16(pe + 4, true);
    return find("windows", machine === 0x8664 ? "x86_64" : undefined);
  }
  return undefined;
}

/**
 * The `herald` program. `--version` answers on a fast path that loads only
 * the version module; everything else loads the full command tree.
 *
 * The command tree is imported through a variable (adapters/lazy.ts) on purpose: Deno
 * pre-loads the whole graph behind a literal `import("./app.ts")` even when
 * it never runs, which would cost `--version` about a third of its start-up
 * time. `deno compile` therefore needs `--include cli/app.ts` (listed in `LAZY_MODULES`).
 *
 * @module
 */

import { importLazily } from "../adapters/lazy.ts";
import { versionLine } from "./version.ts";

if (import.meta.main) {
  const args = Deno.args;
  if (args.length === 1 && (args[0] === "--version" || args[0] === "-V")) {
    console.log(versionLine());
  } else {
    const { run, denoOutput } = await importLazily<typeof import("./app.ts")>("cli/app.ts");
    Deno.exitCode = await run(args, {
      io: denoOutput(),
      env: Deno.env.toObject(),
      terminal: {
        input: () => Deno.stdin.readable,
        interactive: Deno.stdin.isTerminal(),
        signals: true,
      },
    });
  }
}

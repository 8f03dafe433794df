/**
 * The `herald` program. `--version` answers on a fast path that loads only
 * the version module, and the interactive chat (bare `herald` on a
 * terminal) on one that loads only the terminal UI before its first frame;
 * everything else loads the full command tree.
 *
 * The command tree is imported through a variable (adapters/lazy.ts) on purpose: Deno
 * pre-loads the whole graph behind a literal `import("./app.ts")` even when
 * it never runs, which would cost `--version` about a third of its start-up
 * time. `deno compile` therefore needs `--include cli/app.ts` (listed in `LAZY_MODULES`).
 *
 * @module
 */

import { importLazily } from "../adapters/lazy.ts";
import { extractGlobalArgs } from "./argv.ts";
import { versionLine } from "./version.ts";

/**
 * When `args` only open the interactive chat (bare `herald` or `herald
 * chat`, with or without `-p`) and both ends are a terminal: the profile
 * named with `-p` (absent when none). Null for any other run. Such a run
 * skips the command tree: the prompt is drawn before anything else loads.
 */
function interactiveChatProfile(args: readonly string[]): { profile?: string } | null {
  if (!Deno.stdin.isTerminal() || !Deno.stdout.isTerminal()) return null;
  try {
    const global = extractGlobalArgs(args);
    const bare = global.rest.length === 0 ||
      (global.rest.length === 1 && global.rest[0] === "chat");
    return bare && global.cd === undefined ? { profile: global.profile } : null;
  } catch {
    // The command tree reports the mistake.
    return null;
  }
}

/**
 * `deno task herald …` and `deno task start` run in the checkout; Deno names
 * the folder the task was started from in `INIT_CWD`. When this process runs
 * in the checkout (the folder of deno.json next to cli/), it moves there, so
 * Herald works in the caller's folder like the installed launcher does.
 */
function followTaskFolder(): void {
  const from = Deno.env.get("INIT_CWD");
  const checkout = new URL("../", import.meta.url);
  if (!from || checkout.protocol !== "file:") return;
  try {
    if (Deno.realPathSync(Deno.cwd()) !== Deno.realPathSync(checkout)) return;
    if (!Deno.statSync(new URL("deno.json", checkout)).isFile) return;
    Deno.chdir(from);
  } catch {
    // A vanished folder or a compiled binary: stay where the process started.
  }
}

if (import.meta.main) {
  followTaskFolder();
  const args = Deno.args;
  const chat = interactiveChatProfile(args);
  if (args.length === 1 && (args[0] === "--version" || args[0] === "-V" || args[0] === "-v")) {
    console.log(versionLine());
  } else if (chat) {
    const launch = await importLazily<typeof import("./tui/launch.ts")>("cli/tui/launch.ts");
    const result = await launch.runInteractiveChat({
      env: Deno.env.toObject(),
      profile: chat.profile,
      input: Deno.stdin.readable,
    });
    Deno.stderr.writeSync(new TextEncoder().encode(launch.farewell(result)));
    Deno.exitCode = result.failed || result.startFailed ? 1 : 0;
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

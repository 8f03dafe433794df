/**
 * The `codex` program, asked for its version: the check that enabling the
 * Codex runtime needs (`codex --version` prints `codex-cli 0.169.0`).
 *
 * @module
 */

import type { CodexProgram } from "../../core/usecases/codex_runtime.ts";
import { childEnvironment } from "../process/child_env.ts";
import { spawnProcessGroup } from "../process/spawn_group.ts";

/** How long `codex --version` may take before the program counts as not answering. */
export const VERSION_TIMEOUT_MS = 5000;

/**
 * `binary` (a name looked up on `env.PATH`, or a path) as a
 * {@link CodexProgram}. `version()` runs `binary --version` with the
 * child allowlist of `env` (adapters/process/child_env.ts; no secrets) and gives its first line, or null when the program
 * is missing, fails, prints nothing or does not finish within 5 s (its
 * process tree is ended then).
 *
 * @example
 * ```ts
 * await codexProgram("codex", Deno.env.toObject()).version(); // "codex-cli 0.169.0" or null
 * ```
 */
export function codexProgram(
  binary = "codex",
  env: Readonly<Record<string, string | undefined>> = Deno.env.toObject(),
): CodexProgram {
  return {
    async version() {
      let group;
      try {
        group = spawnProcessGroup(binary, {
          args: ["--version"],
          env: childEnvironment(env),
          clearEnv: true,
          stdin: "null",
          stdout: "piped",
          stderr: "null",
        });
      } catch {
        return null;
      }
      let timer: ReturnType<typeof setTimeout> | undefined;
      const timedOut = new Promise<null>((resolve) => {
        timer = setTimeout(() => resolve(null), VERSION_TIMEOUT_MS);
      });
      const answered = (async () => {
        const [status, stdout] = await Promise.all([
          group.status,
          new Response(group.child.stdout).text(),
        ]);
        const line = stdout.trim().split("\n")[0]?.trim() ?? "";
        return status.success && line !== "" ? line : null;
      })();
      try {
        return await Promise.race([answered, timedOut]);
      } catch {
        return null;
      } finally {
        clearTimeout(timer);
        await group.terminate({ graceMs: 500 }).catch(() => {});
        await answered.catch(() => null);
      }
    },
  };
}

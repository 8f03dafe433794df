/**
 * Codex's home folder and its config.toml: where a profile's Codex keeps
 * its settings, sign-in and threads, and the file Herald writes its
 * managed block into.
 *
 * @module
 */

import { dirname, join } from "node:path";
import type { HeraldConfig } from "../../core/config/mod.ts";
import type { CodexConfigFile } from "../../core/usecases/codex_runtime.ts";
import { writeFileAtomic } from "../fs/atomic.ts";

/** The environment {@link codexHomeFor} reads. */
export type CodexHomeEnv = Readonly<Record<string, string | undefined>>;

function expandHome(path: string, env: CodexHomeEnv): string {
  if (path !== "~" && !path.startsWith("~/") && !path.startsWith("~\\")) return path;
  const home = env.HOME || env.USERPROFILE;
  if (!home) throw new Error(`cannot expand "${path}": HOME is not set`);
  return join(home, path.slice(1));
}

/**
 * Codex's home for a profile: `codex.home` from config.yaml (`~` expanded),
 * else `$CODEX_HOME`, else `~/.codex`.
 *
 * @throws Error when a `~` path or the default is needed and HOME is not set.
 *
 * @example
 * ```ts
 * codexHomeFor(config, { HOME: "/home/ann" }); // "/home/ann/.codex"
 * ```
 */
export function codexHomeFor(
  config: Pick<HeraldConfig, "codex">,
  env: CodexHomeEnv,
): string {
  const configured = config.codex.home?.trim();
  if (configured) return expandHome(configured, env);
  const fromEnv = env.CODEX_HOME?.trim();
  if (fromEnv) return expandHome(fromEnv, env);
  return expandHome("~/.codex", env);
}

/**
 * `<home>/config.toml` as a {@link CodexConfigFile}: read gives null for a
 * missing file (and fails on text that is not UTF-8; a byte-order mark is
 * kept); write creates the home (0700) when missing and replaces the file
 * atomically, keeping its mode (0600 for a new file), through a symbolic
 * link to where the file lives.
 */
export function codexConfigFile(home: string): CodexConfigFile {
  const path = join(home, "config.toml");
  return {
    path,
    async read() {
      try {
        // Fatal on bad UTF-8 (never rewrite what cannot be read back), and a BOM kept as text.
        return new TextDecoder("utf-8", { fatal: true, ignoreBOM: true })
          .decode(await Deno.readFile(path));
      } catch (error) {
        if (error instanceof Deno.errors.NotFound) return null;
        throw error;
      }
    },
    async write(text) {
      await Deno.mkdir(dirname(path), { recursive: true, mode: 0o700 });
      // A linked config.toml (a dotfiles checkout) is written where it lives; the link stays.
      let target = path;
      try {
        target = await Deno.realPath(path);
      } catch (error) {
        if (!(error instanceof Deno.errors.NotFound)) throw error;
      }
      await writeFileAtomic(target, text, { mode: 0o600 });
    },
  };
}

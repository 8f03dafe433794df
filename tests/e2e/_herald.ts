/**
 * Running the real `herald` program as a subprocess for end-to-end tests,
 * with its own home and a model pointed at the fake model server.
 *
 * @module
 */

import { join } from "node:path";
import { REPO_ROOT } from "../_helpers.ts";

/** What a run of the program produced. */
export interface HeraldRun {
  code: number;
  stdout: string;
  stderr: string;
}

/** Options of one run. */
export interface HeraldRunOptions {
  args: string[];
  home: string;
  cwd?: string;
  stdin?: string;
  env?: Record<string, string>;
}

const MAIN = join(REPO_ROOT, "cli", "main.ts");

/** Runs `herald <args>` with `HERALD_HOME=home`, feeding `stdin` when given. */
export async function runHerald(options: HeraldRunOptions): Promise<HeraldRun> {
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", "--allow-all", "--quiet", MAIN, ...options.args],
    cwd: options.cwd ?? options.home,
    env: { NO_COLOR: "1", HERALD_HOME: options.home, ...options.env },
    stdin: "piped",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const writer = child.stdin.getWriter();
  if (options.stdin !== undefined) await writer.write(new TextEncoder().encode(options.stdin));
  await writer.close();
  const output = await child.output();
  const decode = (bytes: Uint8Array) => new TextDecoder().decode(bytes);
  return { code: output.code, stdout: decode(output.stdout), stderr: decode(output.stderr) };
}

/** Writes a config.yaml that points the default model at an OpenAI-compatible base URL. */
export async function configureModel(
  home: string,
  baseUrl: string,
  extra = "",
  provider = "custom",
): Promise<void> {
  await Deno.mkdir(home, { recursive: true });
  await Deno.writeTextFile(
    join(home, "config.yaml"),
    `model:\n  provider: ${provider}\n  base_url: ${baseUrl}\n  default: test-model\n${extra}`,
  );
}

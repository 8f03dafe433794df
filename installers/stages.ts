/**
 * The installer's stage list: installers/stages.tsv is the one source of
 * truth, and install.sh and install.ps1 each carry a copy generated from it
 * between `# BEGIN GENERATED STAGES` and `# END GENERATED STAGES` (the
 * scripts run alone, piped from a download, so they cannot read the file).
 *
 * ```sh
 * deno run -A installers/stages.ts --write   # regenerate both copies
 * deno run -A installers/stages.ts --check   # exit 1 when a copy differs
 * ```
 *
 * @module
 */

import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

/** One installer stage, as stages.tsv lists it. */
export interface InstallerStage {
  name: string;
  title: string;
  category: "runtime" | "configuration";
  needsInput: boolean;
  /** The stages that must have completed before this one runs. */
  needs: string[];
  /** `desktop`: only with `--include-desktop`. */
  when: "always" | "desktop";
}

/** The folder of the installers and stages.tsv. */
export const INSTALLERS_DIR: string = dirname(fileURLToPath(import.meta.url));

const BEGIN = "# BEGIN GENERATED STAGES";
const END = "# END GENERATED STAGES";
const HEADER = `${BEGIN} (from installers/stages.tsv: deno run -A installers/stages.ts --write)`;

/**
 * Parses stages.tsv (comment lines start with `#`).
 *
 * @throws Error naming the line when a row is malformed.
 */
export function parseStages(tsv: string): InstallerStage[] {
  const stages: InstallerStage[] = [];
  tsv.split("\n").forEach((line, index) => {
    if (line.trim() === "" || line.startsWith("#")) return;
    const cells = line.split("\t");
    const [name, title, category, input, needs, when] = cells;
    const bad = (what: string) => new Error(`stages.tsv line ${index + 1}: ${what}`);
    if (cells.length !== 6) throw bad(`expected 6 tab-separated columns, found ${cells.length}`);
    if (!/^[a-z][a-z-]*$/.test(name)) throw bad(`bad stage name "${name}"`);
    if (/['|]/.test(title)) throw bad("a title may hold no ' or |");
    if (category !== "runtime" && category !== "configuration") throw bad(`bad category`);
    if (input !== "true" && input !== "false") throw bad("needs input is true or false");
    if (when !== "always" && when !== "desktop") throw bad("when is always or desktop");
    const required = needs === "-" ? [] : needs.split(",");
    for (const need of required) {
      if (!stages.some((stage) => stage.name === need)) {
        throw bad(`"${name}" needs "${need}", which is not an earlier stage`);
      }
    }
    stages.push({ name, title, category, needsInput: input === "true", needs: required, when });
  });
  return stages;
}

/** Reads installers/stages.tsv. */
export async function readStages(): Promise<InstallerStage[]> {
  return parseStages(await Deno.readTextFile(join(INSTALLERS_DIR, "stages.tsv")));
}

/** The stage list as install.sh's `STAGES` variable (one `|`-separated line per stage). */
export function renderShellStages(stages: readonly InstallerStage[]): string {
  const rows = stages.map((s) =>
    [s.name, s.title, s.category, s.needsInput, s.needs.join(",") || "-", s.when].join("|")
  );
  return `${HEADER}\nSTAGES='${rows.join("\n")}'\n${END}`;
}

/** The stage list as install.ps1's `$StageList` array of ordered hashtables. */
export function renderPowerShellStages(stages: readonly InstallerStage[]): string {
  const rows = stages.map((s) => {
    const needs = s.needs.map((n) => `'${n}'`).join(", ");
    return `  [ordered]@{ name = '${s.name}'; title = '${s.title}'; category = '${s.category}'; ` +
      `needsInput = $${s.needsInput}; needs = @(${needs}); when = '${s.when}' }`;
  });
  return `${HEADER}\n$StageList = @(\n${rows.join("\n")}\n)\n${END}`;
}

/**
 * The generated block of `script` (from the BEGIN line to the END line).
 *
 * @throws Error when the script has no such block.
 */
export function generatedBlock(script: string): string {
  const start = script.indexOf(BEGIN);
  const end = script.indexOf(END);
  if (start < 0 || end < start) throw new Error(`no "${BEGIN}" ... "${END}" block`);
  return script.slice(start, end + END.length).replaceAll("\r\n", "\n");
}

/** `script` with its generated block replaced by `block`. */
export function replaceBlock(script: string, block: string): string {
  generatedBlock(script); // throws when the block is missing
  const eol = script.includes("\r\n") ? "\r\n" : "\n";
  const start = script.indexOf(BEGIN);
  const end = script.indexOf(END) + END.length;
  return script.slice(0, start) + block.replaceAll("\n", eol) + script.slice(end);
}

/** The two scripts and the block each must carry. */
export async function expectedBlocks(): Promise<{ file: string; block: string }[]> {
  const stages = await readStages();
  return [
    { file: join(INSTALLERS_DIR, "install.sh"), block: renderShellStages(stages) },
    { file: join(INSTALLERS_DIR, "install.ps1"), block: renderPowerShellStages(stages) },
  ];
}

async function main(args: string[]): Promise<number> {
  const write = args.includes("--write");
  let stale = 0;
  for (const { file, block } of await expectedBlocks()) {
    const script = await Deno.readTextFile(file);
    if (generatedBlock(script) === block) continue;
    if (write) {
      await Deno.writeTextFile(file, replaceBlock(script, block));
      console.error(`updated the stage list in ${file}`);
    } else {
      console.error(`${file}: its stage list differs from stages.tsv; run with --write`);
      stale++;
    }
  }
  return stale === 0 ? 0 : 1;
}

if (import.meta.main) Deno.exit(await main(Deno.args));

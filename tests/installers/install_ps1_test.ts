/**
 * installers/install.ps1 checked without PowerShell (it cannot be installed
 * here): parsed by a real PowerShell grammar (tests/installers/_powershell.ts),
 * which must find no syntax problem (and does find one in broken copies);
 * its -Manifest code, evaluated from the parsed tree, must yield exactly the
 * object install.sh --manifest prints; and every flag of install.sh must be a
 * parameter of install.ps1. Running it under pwsh is the ignored test in
 * install_sh_test.ts.
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import type { Node } from "web-tree-sitter";
import { REPO_ROOT } from "../_helpers.ts";
import { readStages } from "../../installers/stages.ts";
import { INSTALLER_PROTOCOL_VERSION } from "../../core/desktop/bootstrap.ts";
import {
  arrayHashtables,
  findFunction,
  hashEntries,
  parsePowerShell,
  type PsValue,
  psValue,
  scriptAssignment,
  scriptParameters,
  syntaxProblems,
} from "./_powershell.ts";

const PS1 = join(REPO_ROOT, "installers", "install.ps1");
const SH = join(REPO_ROOT, "installers", "install.sh");
const source = await Deno.readTextFile(PS1);

/** The syntax problems of `script`, one `line:column KIND text` line each. */
async function problemsOf(script: string): Promise<string[]> {
  const tree = await parsePowerShell(script);
  try {
    return syntaxProblems(tree).map((p) =>
      `${p.line}:${p.column} ${p.kind} ${JSON.stringify(p.text)}`
    );
  } finally {
    tree.delete();
  }
}

/** install.ps1 with `from` (which must occur exactly once) replaced by `to`. */
function mutated(from: string, to: string): string {
  assert.equal(source.split(from).length, 2, `install.ps1 holds ${JSON.stringify(from)} once`);
  return source.replace(from, to);
}

async function installSh(...args: string[]): Promise<string> {
  const out = await new Deno.Command("sh", { args: [SH, ...args], stdin: "null" }).output();
  assert.equal(out.code, 0, new TextDecoder().decode(out.stderr));
  return new TextDecoder().decode(out.stdout);
}

/** The text of `node` with runs of white space made one space. */
function flat(node: Node): string {
  return node.text.replace(/\s+/g, " ");
}

Deno.test("install.ps1 parses with the PowerShell grammar: no ERROR and no MISSING node", async () => {
  const problems = await problemsOf(source);
  assert.deepEqual(problems, [], `install.ps1 does not parse:\n${problems.join("\n")}`);
});

const VENV = "function Stage-Venv { Skip 'Herald needs no Python' }";

Deno.test("the syntax check fails on an unbalanced {", async () => {
  const problems = await problemsOf(mutated(VENV, VENV.slice(0, -2)));
  assert.ok(problems.length > 0, "an unclosed function body must be a syntax problem");
});

Deno.test("the syntax check fails on a stray )", async () => {
  const problems = await problemsOf(mutated("$ProtocolVersion = 1\n", "$ProtocolVersion = 1)\n"));
  assert.ok(problems.length > 0, "a stray ) must be a syntax problem");
});

Deno.test("the syntax check fails on an unterminated string", async () => {
  const problems = await problemsOf(
    mutated(VENV, "function Stage-Venv { Skip 'Herald needs no Python }"),
  );
  assert.ok(problems.length > 0, "an unterminated string must be a syntax problem");
});

Deno.test("install.ps1's -Manifest code yields exactly install.sh's --manifest, from the same stage list", async () => {
  const tree = await parsePowerShell(source);
  try {
    // The generated stage block, read as values (not as text: install_sh_test.ts compares the text).
    const stageList = arrayHashtables(scriptAssignment(tree, "StageList")).map((hash) =>
      Object.fromEntries(hashEntries(hash).map(([key, value]) => [key, psValue(value)]))
    );
    const stages = await readStages();
    assert.deepEqual(
      stageList,
      stages.map((s) => ({
        name: s.name,
        title: s.title,
        category: s.category,
        needsInput: s.needsInput,
        needs: s.needs,
        when: s.when,
      })),
    );
    const protocolVersion = psValue(scriptAssignment(tree, "ProtocolVersion"));
    assert.equal(protocolVersion, INSTALLER_PROTOCOL_VERSION);

    // Format-Manifest: which stage fields it projects, under which keys, in which order.
    const format = findFunction(tree, "Format-Manifest");
    const projection = hashEntries(format).map(([key, value]) => {
      const read = psValue(value) as { member?: string; of?: string };
      assert.ok(read.member && read.of === "entry", `${key} is read from a stage: ${value.text}`);
      return [key, read.member] as const;
    });
    const strings = format.descendantsOfType("string_literal").map((node) => node?.text);
    for (const piece of [`'{"protocolVersion":'`, `',"stages":['`, `']}'`]) {
      assert.ok(strings.includes(piece), `Format-Manifest writes ${piece}`);
    }
    assert.ok(
      format.descendantsOfType("variable").some((node) => node?.text === "$ProtocolVersion"),
      "Format-Manifest writes $ProtocolVersion",
    );
    assert.ok(
      format.descendantsOfType("command_name").some((node) => node?.text === "Get-IncludedStages"),
      "Format-Manifest lists Get-IncludedStages",
    );
    const included = flat(findFunction(tree, "Get-IncludedStages"));
    assert.ok(
      included.includes("$_.when -eq 'always' -or ($_.when -eq 'desktop' -and $IncludeDesktop)"),
    );
    assert.ok(
      flat(findFunction(tree, "Invoke-Main")).includes(
        "[Console]::Out.WriteLine((Format-Manifest))",
      ),
    );

    for (const desktop of [false, true]) {
      const manifest = {
        protocolVersion,
        stages: stageList
          .filter((stage) => stage.when === "always" || (desktop && stage.when === "desktop"))
          .map((stage) =>
            Object.fromEntries(
              projection.map(([key, field]) => [key, (stage as Record<string, PsValue>)[field]]),
            )
          ),
      } as Record<string, PsValue | Record<string, PsValue>[]>;
      const sh = await installSh("--manifest", ...(desktop ? ["--include-desktop"] : []));
      assert.equal(JSON.stringify(manifest), sh.trim(), `with desktop: ${desktop}`);
    }
  } finally {
    tree.delete();
  }
});

/** install.sh's flags from its usage text: `--name` and whether it takes a value. */
function shellFlags(usage: string): { flag: string; value: boolean }[] {
  const options = usage.slice(usage.indexOf("Options:"), usage.indexOf("Environment:"));
  return [...options.matchAll(/^ {2}(?:-h, )?(--[a-z-]+)( <[^>]+>)?/gm)].map((match) => ({
    flag: match[1],
    value: match[2] !== undefined,
  }));
}

/** The install.ps1 parameter for an install.sh flag: PascalCase, except the two folders. */
function psName(flag: string): string {
  const special: Record<string, string> = { "--dir": "InstallDir", "--home": "HeraldHome" };
  return special[flag] ??
    flag.slice(2).split("-").map((word) => word[0].toUpperCase() + word.slice(1)).join("");
}

Deno.test("every flag of install.sh is a parameter of install.ps1 with the same kind, and back", async () => {
  const flags = shellFlags(await installSh("--help"));
  for (
    const flag of ["--manifest", "--stage", "--json", "--non-interactive", "--commit", "--branch"]
  ) {
    assert.ok(flags.some((f) => f.flag === flag), `install.sh's usage names ${flag}`);
  }
  assert.ok(flags.length >= 14, `install.sh's usage lists its flags: ${JSON.stringify(flags)}`);
  const tree = await parsePowerShell(source);
  try {
    const parameters = scriptParameters(tree);
    const usage = String(psValue(scriptAssignment(tree, "Usage")) ?? "");
    for (const { flag, value } of flags) {
      const name = psName(flag);
      const parameter = parameters.find((p) => p.name === name);
      assert.ok(parameter, `install.sh ${flag} has no install.ps1 -${name} parameter`);
      assert.equal(
        parameter.type,
        value ? "string" : "switch",
        `-${name} takes a value as ${flag} does`,
      );
      assert.match(usage, new RegExp(`^ {2}-${name}\\b`, "m"), `install.ps1 -Help names -${name}`);
    }
    const expected = flags.map((f) => psName(f.flag));
    for (const { name } of parameters) {
      assert.ok(expected.includes(name), `install.ps1 -${name} has no install.sh flag`);
    }
  } finally {
    tree.delete();
  }
});

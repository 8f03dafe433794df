/**
 * installers/install.ps1 checked without PowerShell (it cannot be installed
 * here): parsed by a real PowerShell grammar (tests/installers/_powershell.ts),
 * which must find no syntax problem (and does find one in broken copies);
 * its -Manifest code, evaluated from the parsed tree, must yield exactly the
 * object install.sh --manifest prints; and every flag of install.sh must be a
 * parameter of install.ps1. Static checks of review findings, each shown to
 * fail on a broken copy: no native program runs with 'Stop' in force, binary
 * mode puts herald.cmd (never a herald.exe copy) in the bin folder, the user
 * PATH is read and written unexpanded, Get-State survives an empty file.
 * These read the source; nothing here runs it. Running it under pwsh is the
 * ignored test in install_sh_test.ts.
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import type { Node } from "web-tree-sitter";
import { REPO_ROOT } from "../_helpers.ts";
import { readStages } from "../../installers/stages.ts";
import { INSTALLER_PROTOCOL_VERSION } from "../../core/desktop/bootstrap.ts";
import {
  arrayHashtables,
  commandUses,
  enclosingFunction,
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

/** Runs `check` on the parsed install.ps1 (or `script`), freeing the tree after. */
async function withTree<T>(
  check: (tree: Awaited<ReturnType<typeof parsePowerShell>>) => T,
  script = source,
): Promise<T> {
  const tree = await parsePowerShell(script);
  try {
    return check(tree);
  } finally {
    tree.delete();
  }
}

/**
 * Native programs run while `$ErrorActionPreference = 'Stop'` is in force
 * (none may be: Windows PowerShell 5.1 makes their stderr error records,
 * which Stop turns into an "unexpected error"): every `&` or `.` call must
 * sit in a function that sets 'Continue' before it, and no native program is
 * called by its bare name. Invoke-StageFunction is the one exception: it
 * calls the stage's own PowerShell function, which must keep 'Stop'.
 */
function nativeCallsUnderStop(script: string): Promise<string[]> {
  const natives = [
    "git",
    "deno",
    "npx",
    "node",
    "herald",
    "cmd",
    "curl",
    "where",
    "powershell",
    "pwsh",
  ];
  return withTree((tree) => {
    const problems: string[] = [];
    for (const use of commandUses(tree.rootNode)) {
      const line = use.node.startPosition.row + 1;
      const where = enclosingFunction(use.node) ?? "(script)";
      if (!use.operator) {
        if (natives.includes(use.name.toLowerCase().replace(/\.exe$/, ""))) {
          problems.push(
            `${line} ${where}: ${use.name} is called by name; use Invoke-Logged or another Continue helper`,
          );
        }
        continue;
      }
      if (where === "Invoke-StageFunction" && use.name === "$StageFunctions[$Name]") continue;
      const fn = findFunction(tree, where);
      const before = fn.text.slice(0, use.node.startIndex - fn.startIndex);
      if (!/\$ErrorActionPreference\s*=\s*'Continue'/.test(before)) {
        problems.push(`${line} ${where}: ${use.operator} ${use.name} runs with 'Stop' in force`);
      }
    }
    return problems;
  }, script);
}

Deno.test("no native program runs while $ErrorActionPreference 'Stop' is in force", async () => {
  assert.deepEqual(await nativeCallsUnderStop(source), []);
  // herald setup goes through the Continue helper and its exit code is checked.
  const setup = await withTree((tree) => flat(findFunction(tree, "Stage-Setup")));
  assert.ok(setup.includes("$code = Invoke-Console $herald @('setup')"), setup);
  assert.ok(setup.includes("if ($code -ne 0) { Fail"), setup);
});

Deno.test("the Stop check finds a native call made with 'Stop' in force", async () => {
  const direct = mutated(
    "$code = Invoke-Console $herald @('setup')",
    "& $herald setup\n  $code = $LASTEXITCODE",
  );
  assert.match((await nativeCallsUnderStop(direct)).join("\n"), /Stage-Setup: & \$herald/);
  const helper = source.replace(
    /(function Invoke-Console[^\n]*\n[^\n]*\n) {2}\$ErrorActionPreference = 'Continue'\n/,
    "$1",
  );
  assert.notEqual(helper, source);
  assert.match((await nativeCallsUnderStop(helper)).join("\n"), /Invoke-Console: & \$Program/);
  const bare = mutated(VENV, "function Stage-Venv { git status; Skip 'Herald needs no Python' }");
  assert.match((await nativeCallsUnderStop(bare)).join("\n"), /Stage-Venv: git is called by name/);
});

/**
 * What is wrong with the binary-mode path stage: it must write herald.cmd
 * (with the launcher marker Test-OwnLauncher looks for) running the installed
 * bin\herald.exe, and no function that touches $BinDir may copy, move or link
 * a file there; the only thing done to a herald.exe there is removing it.
 */
function binaryPathProblems(script: string): Promise<string[]> {
  return withTree((tree) => {
    const problems: string[] = [];
    const stage = flat(findFunction(tree, "Stage-Path"));
    if (!stage.includes("if ((Get-InstallMode) -eq 'binary') { Install-BinaryCommand }")) {
      problems.push("Stage-Path does not run Install-BinaryCommand in binary mode");
    }
    const binary = findFunction(tree, "Install-BinaryCommand");
    const text = flat(binary);
    if (!text.includes("$command = Join-Path $BinDir 'herald.cmd'")) {
      problems.push("Install-BinaryCommand does not name $BinDir\\herald.cmd");
    }
    if (!text.includes("$target = Join-Path $InstallDir 'bin\\herald.exe'")) {
      problems.push("Install-BinaryCommand does not run $InstallDir\\bin\\herald.exe");
    }
    const marker = psValue(
      commandUses(findFunction(tree, "Test-OwnLauncher")).find((use) =>
        use.name === "Select-String"
      )!
        .node.descendantsOfType("string_literal")[0]!,
    );
    const launcher = binary.descendantsOfType("string_literal").map((node) => node!.text)
      .find((literal) => literal.includes("herald-launcher"));
    if (!launcher || !launcher.includes(`\`r\`n${marker}herald\`r\`n`)) {
      problems.push(
        `the binary launcher lacks the marker line ${JSON.stringify(marker)}: ${launcher}`,
      );
    } else if (!/""\$\(\$target[^"]*"" %\*`r`n"$/.test(launcher)) {
      problems.push(`the binary launcher does not run $target with %*: ${launcher}`);
    }
    if (!text.includes("Write-TextFile $command $text")) {
      problems.push("Install-BinaryCommand does not write the launcher to $command");
    }
    if (/bin-sha256/.test(text) && /Set-State/.test(text)) {
      problems.push("Install-BinaryCommand records the hash of a copy it makes");
    }
    const removes = commandUses(binary).filter((use) => use.name === "Remove-Item");
    if (!removes.some((use) => flat(use.node).includes("-LiteralPath $copy"))) {
      problems.push("Install-BinaryCommand does not remove an old herald.exe copy");
    }
    for (const fn of tree.rootNode.descendantsOfType("function_statement")) {
      if (!fn || !fn.text.includes("$BinDir")) continue;
      const name = fn.namedChildren.find((child) => child?.type === "function_name")?.text;
      for (const use of commandUses(fn)) {
        const call = flat(use.node);
        if (/^(copy-item|move-item|copy|cp|move|mv|robocopy|xcopy)$/i.test(use.name)) {
          problems.push(`${name} puts a file in place with ${call}`);
        }
        if (/^new-item$/i.test(use.name) && /symboliclink|hardlink|junction/i.test(call)) {
          problems.push(`${name} links a file with ${call}`);
        }
      }
      if (/::Copy\(|\.CopyTo\(|::CreateSymbolicLink|::CreateHardLink/i.test(fn.text)) {
        problems.push(`${name} copies or links a file with .NET`);
      }
    }
    return problems;
  }, script);
}

Deno.test("binary mode puts herald.cmd on the PATH and never a copy of herald.exe", async () => {
  assert.deepEqual(await binaryPathProblems(source), []);
});

Deno.test("the binary-mode check fails when herald.exe is copied to the bin folder again", async () => {
  const copies = mutated(
    "  Write-TextFile $command $text\n  return $command\n}\n\n# Checkout mode",
    "  Write-TextFile $command $text\n  Copy-Item -Force -LiteralPath $target -Destination $copy\n" +
      "  return $command\n}\n\n# Checkout mode",
  );
  assert.match((await binaryPathProblems(copies)).join("\n"), /Install-BinaryCommand puts a file/);
  const noMarker = mutated('rem herald-launcher: herald`r`n""$($target', '""$($target');
  assert.match((await binaryPathProblems(noMarker)).join("\n"), /lacks the marker line/);
  const oldName = mutated(
    "$command = Join-Path $BinDir 'herald.cmd'\n  Assert-OwnLauncher $command\n  $copy",
    "$command = Join-Path $BinDir 'herald.exe'\n  Assert-OwnLauncher $command\n  $copy",
  );
  assert.match((await binaryPathProblems(oldName)).join("\n"), /does not name/);
});

/** What is wrong with how install.ps1 reads and writes the user's PATH. */
function userPathProblems(script: string): Promise<string[]> {
  return withTree((tree) => {
    const problems: string[] = [];
    if (/(Get|Set)EnvironmentVariable\(\s*['"]Path['"]/i.test(script)) {
      problems.push("the user PATH goes through [Environment]::Get/SetEnvironmentVariable('Path'");
    }
    const add = flat(findFunction(tree, "Add-UserPath"));
    for (
      const piece of [
        "Get-Item -LiteralPath 'HKCU:\\Environment'",
        "$key.GetValue('Path', '', 'DoNotExpandEnvironmentNames')",
        "$kind = $key.GetValueKind('Path')",
        "if ($value.Contains('%')) { $kind = [Microsoft.Win32.RegistryValueKind]::ExpandString }",
        "$writable.SetValue('Path', $value, $kind)",
      ]
    ) {
      if (!add.includes(piece)) problems.push(`Add-UserPath lacks ${piece}`);
    }
    // The one .NET environment write left is the broadcast: a delete ($null) of a name never set.
    for (const match of script.matchAll(/SetEnvironmentVariable\(([^)]*)\)/gi)) {
      if (!/^'HERALD_INSTALLER_NO_SUCH_VARIABLE', \$null, 'User'$/.test(match[1])) {
        problems.push(`an environment variable is written: ${match[0]}`);
      }
    }
    return problems;
  }, script);
}

Deno.test("the user PATH is read and written unexpanded, keeping REG_EXPAND_SZ", async () => {
  assert.deepEqual(await userPathProblems(source), []);
});

Deno.test("the user PATH check fails on the expanding .NET calls and on a lost kind", async () => {
  const expanding = mutated(
    "$userPath = [string]$key.GetValue('Path', '', 'DoNotExpandEnvironmentNames')",
    "$userPath = [Environment]::GetEnvironmentVariable('Path', 'User')",
  );
  assert.match((await userPathProblems(expanding)).join("\n"), /SetEnvironmentVariable\('Path'/);
  const regSz = mutated(
    "$writable.SetValue('Path', $value, $kind)",
    "$writable.SetValue('Path', $value)",
  );
  assert.match((await userPathProblems(regSz)).join("\n"), /lacks \$writable\.SetValue/);
});

/** What is wrong with Get-State: it must give '' for an empty file, never call .Trim() on $null. */
function getStateProblems(script: string): Promise<string[]> {
  return withTree((tree) => {
    const problems: string[] = [];
    const state = flat(findFunction(tree, "Get-State"));
    if (!state.includes("return ([string][IO.File]::ReadAllText($file)).Trim()")) {
      problems.push(`Get-State trims what may be $null: ${state}`);
    }
    if (/\(Get-Content[^()]*\)\.Trim\(/i.test(script)) {
      problems.push("(Get-Content ...).Trim() is $null.Trim() for an empty file");
    }
    return problems;
  }, script);
}

Deno.test("Get-State reads an empty state file as ''", async () => {
  assert.deepEqual(await getStateProblems(source), []);
  const old = mutated(
    "return ([string][IO.File]::ReadAllText($file)).Trim()",
    "return (Get-Content -Raw -LiteralPath $file).Trim()",
  );
  assert.equal((await getStateProblems(old)).length, 2);
});

/**
 * The layering rules, enforced: core/ imports no `node:` module, no `npm:`
 * specifier, no bare specifier mapped to either except the allowed pure
 * libraries, and nothing under server/, cli/ or adapters/; server/ imports
 * nothing from cli/; adapters/ nothing from cli/ or server/; a `_` file is
 * private to its folder; product modules form no import cycle; every
 * variable-specifier import goes through adapters/lazy.ts. Product files over
 * 500 lines are listed, not failed.
 */

import assert from "node:assert/strict";
import { join, relative, resolve } from "node:path";
import { REPO_ROOT, tempDir } from "./_helpers.ts";
import { importCycles, type ImportGraph, readImportGraph } from "./_import_graph.ts";
import { LAZY_MODULES } from "../adapters/lazy.ts";

/**
 * Bare specifiers core may use: pure libraries with no I/O. `croner` computes
 * cron schedules (core/schedules creates every `Cron` paused, so it starts no
 * timer either).
 */
const CORE_ALLOWED_PACKAGES = new Set(["zod", "yaml", "croner"]);
const FORBIDDEN_DIRS = ["server", "cli", "adapters"];

const SPECIFIER =
  /(?:^|[\s;])(?:import|export)\s+(?:type\s+)?(?:[\w*{}\s,$]+?\s+from\s+)?["']([^"']+)["']|import\(\s*["']([^"']+)["']\s*\)/gm;

/** Every module specifier a TypeScript source names in import/export statements. */
function specifiers(source: string): string[] {
  const withoutComments = source.replace(/\/\*[\s\S]*?\*\//g, "").replace(/^\s*\/\/.*$/gm, "");
  return [...withoutComments.matchAll(SPECIFIER)].map((m) => m[1] ?? m[2]);
}

async function* sourceFiles(dir: string): AsyncGenerator<string> {
  for await (const entry of Deno.readDir(dir)) {
    const path = join(dir, entry.name);
    if (entry.isDirectory) yield* sourceFiles(path);
    else if (/\.(ts|tsx|js|mjs)$/.test(entry.name)) yield path;
  }
}

/** Lists the boundary violations of the core folder of `root`. */
async function coreViolations(root: string, importMap: Record<string, string>): Promise<string[]> {
  const problems: string[] = [];
  for await (const file of sourceFiles(join(root, "core"))) {
    const rel = relative(root, file);
    for (const spec of specifiers(await Deno.readTextFile(file))) {
      if (spec.startsWith("node:") || spec.startsWith("npm:") || spec.startsWith("jsr:")) {
        problems.push(`${rel} imports "${spec}"`);
      } else if (spec.startsWith(".") || spec.startsWith("/")) {
        const target = relative(root, resolve(join(file, ".."), spec));
        const top = target.split(/[\\/]/)[0];
        if (FORBIDDEN_DIRS.includes(top) || top === "..") {
          problems.push(`${rel} imports "${spec}" (${target})`);
        }
      } else {
        const mapped = importMap[spec] ?? importMap[spec.split("/")[0]] ?? "";
        if (!CORE_ALLOWED_PACKAGES.has(spec.split("/")[0]) || mapped.startsWith("node:")) {
          problems.push(`${rel} imports "${spec}" (only ${[...CORE_ALLOWED_PACKAGES]} allowed)`);
        }
      }
    }
  }
  return problems;
}

async function importMap(root: string): Promise<Record<string, string>> {
  return JSON.parse(await Deno.readTextFile(join(root, "deno.json"))).imports ?? {};
}

Deno.test("core imports no node: module, npm: specifier, or server/cli/adapters code", async () => {
  assert.deepEqual(await coreViolations(REPO_ROOT, await importMap(REPO_ROOT)), []);
});

Deno.test("core creates every croner Cron paused, so no timer starts in core", async () => {
  const unpaused: string[] = [];
  for await (const file of sourceFiles(join(REPO_ROOT, "core"))) {
    const source = await Deno.readTextFile(file);
    for (const match of source.matchAll(/new Cron\(([^;]*?)\)/gs)) {
      if (!/paused:\s*true/.test(match[1])) unpaused.push(relative(REPO_ROOT, file));
    }
  }
  assert.deepEqual(unpaused, []);
});

Deno.test("the boundary check catches every kind of forbidden import", async () => {
  await using dir = await tempDir();
  await Deno.mkdir(join(dir.path, "core", "deep"), { recursive: true });
  const files: Record<string, string> = {
    "core/a.ts": 'import { readFile } from "node:fs/promises";',
    "core/b.ts": 'import { z } from "npm:zod@4";',
    "core/deep/c.ts": 'export { run } from "../../cli/app.ts";',
    "core/d.ts": 'const m = await import("../adapters/x.ts");',
    "core/e.ts": 'import type { Hono } from "hono";',
    "core/f.ts": 'import {\n  a,\n  b,\n} from "../server/app.ts";',
    "core/ok.ts":
      'import { z } from "zod";\nimport { x } from "./deep/c.ts";\n// import "node:fs";',
  };
  for (const [path, text] of Object.entries(files)) {
    await Deno.writeTextFile(join(dir.path, path), text);
  }
  const problems = await coreViolations(dir.path, { zod: "npm:zod@4", hono: "npm:hono@4" });
  const offenders = problems.map((p) => p.split(" ")[0]).sort();
  assert.deepEqual(offenders, [
    "core/a.ts",
    "core/b.ts",
    "core/d.ts",
    "core/deep/c.ts",
    "core/e.ts",
    "core/f.ts",
  ]);
});

Deno.test("server imports nothing from cli (the CLI and the server share adapters, not each other)", async () => {
  const problems: string[] = [];
  for await (const file of sourceFiles(join(REPO_ROOT, "server"))) {
    for (const spec of specifiers(await Deno.readTextFile(file))) {
      if (!spec.startsWith(".")) continue;
      const target = relative(REPO_ROOT, resolve(join(file, ".."), spec));
      if (target.split(/[\\/]/)[0] === "cli") {
        problems.push(`${relative(REPO_ROOT, file)} imports "${spec}"`);
      }
    }
  }
  assert.deepEqual(problems, []);
});

Deno.test("the web app imports only itself, core/ and its own packages (it runs in a browser)", async () => {
  const ui = join(REPO_ROOT, "server", "ui");
  const packages = /^(preact|preact\/.*|@xterm\/.*|vite|@preact\/preset-vite)$/;
  const problems: string[] = [];
  for await (const file of sourceFiles(ui)) {
    if (file.includes(`${join("ui", "dist")}/`)) continue;
    for (const spec of specifiers(await Deno.readTextFile(file))) {
      const where = `${relative(REPO_ROOT, file)} imports "${spec}"`;
      if (!spec.startsWith(".")) {
        if (!packages.test(spec)) problems.push(where);
        continue;
      }
      const target = relative(REPO_ROOT, resolve(join(file, ".."), spec));
      if (!target.startsWith("server/ui/") && !target.startsWith("core/")) {
        problems.push(where);
      }
    }
  }
  assert.deepEqual(problems, []);
});

// ---------------------------------------------------------------------------
// Rules over the parsed import graph (tests/_import_graph.ts): every .ts file
// of the repository, every kind of import (`import`, `import type`,
// `export ... from`, `typeof import("...")`, dynamic `import(...)`), relative
// specifiers resolved to repository paths.

const PRODUCT = /^(cli|server|core|adapters)\/|^mod\.ts$/;
const LAZY_HELPER = "adapters/lazy.ts";
const LONG_FILE_LINES = 500;

function isProduct(path: string): boolean {
  return PRODUCT.test(path);
}

function folderOf(path: string): string {
  return path.includes("/") ? path.slice(0, path.lastIndexOf("/")) : ".";
}

/** True when `outer` is `inner` or one of its ancestor folders. */
function contains(outer: string, inner: string): boolean {
  return outer === "." || outer === inner || inner.startsWith(`${outer}/`);
}

/** adapters/ importing cli/ or server/, one message per import. */
function adapterViolations(graph: ImportGraph): string[] {
  return graph.edges
    .filter((e) => e.from.startsWith("adapters/") && /^(cli|server)\//.test(e.target ?? ""))
    .map((e) =>
      `${e.from}:${e.line} imports ${e.target}; adapters implement core's ports and are used by ` +
      `cli/ and server/, never the reverse. Move the shared piece into adapters/ or core/.`
    );
}

/**
 * Imports of a `_`-prefixed file from outside its folder's subtree. A test
 * may use any helper under tests/ (the tests share their fakes and temp-home
 * builders); a test may not reach a product `_` file, it goes through the
 * folder's public module like any caller.
 */
function privateFileViolations(graph: ImportGraph): string[] {
  const problems: string[] = [];
  for (const edge of graph.edges) {
    const target = edge.target;
    if (!target || !target.slice(target.lastIndexOf("/") + 1).startsWith("_")) continue;
    const folder = folderOf(target);
    if (contains(folder, folderOf(edge.from))) continue;
    if (edge.from.startsWith("tests/") && target.startsWith("tests/")) continue;
    problems.push(
      `${edge.from}:${edge.line} imports ${target}, which is private to ${folder}/ (its name ` +
        `starts with "_"). Import what you need from ${folder}/mod.ts (export it there), or move ` +
        `it to a module without the "_" that both folders may import.`,
    );
  }
  return problems;
}

/**
 * Import cycles among product modules, at two grains: files, and folders
 * (a folder and its own subfolder may import each other: the parent composes
 * its parts). Type-only imports count: a type cycle still ties two modules
 * into one unit that cannot be understood, moved or tested apart, and it
 * becomes a run-time cycle the day someone imports a value along it.
 */
function cycleViolations(graph: ImportGraph): string[] {
  const files = [...graph.files.keys()].filter(isProduct);
  const fileEdges = graph.edges.filter((e) => isProduct(e.from));
  const folderEdges = fileEdges
    .filter((e) => e.target && isProduct(e.target))
    .map((e) => ({ ...e, from: folderOf(e.from), target: folderOf(e.target!) }))
    .filter((e) => !contains(e.from, e.target) && !contains(e.target, e.from));
  const advice = "Move what both sides need into a small module that each imports " +
    "(or that the lower one owns), so one direction of the loop disappears.";
  return [
    ...importCycles(files, fileEdges).map((loop) =>
      `Import cycle between files: ${loop.join(" -> ")}. ${advice}`
    ),
    ...importCycles(new Set(files.map(folderOf)), folderEdges).map((loop) =>
      `Import cycle between folders: ${loop.join(" -> ")}. ${advice}`
    ),
  ];
}

/** Variable-specifier imports outside the lazy-import helper. */
function variableImportViolations(graph: ImportGraph): string[] {
  return graph.variableImports
    .filter((v) => v.from !== LAZY_HELPER && !v.from.startsWith("tests/"))
    .map((v) =>
      `${v.from}:${v.line} imports a variable specifier (import(${v.argument})). Add the module ` +
      `to LAZY_MODULES in ${LAZY_HELPER} and call importLazily("<entry>") instead, so ` +
      `\`deno compile --include\` knows to embed it.`
    );
}

Deno.test("adapters import nothing from cli or server", async () => {
  assert.deepEqual(adapterViolations(await readImportGraph(REPO_ROOT)), []);
});

Deno.test("a file named _*.ts is imported only from inside its own folder", async () => {
  assert.deepEqual(privateFileViolations(await readImportGraph(REPO_ROOT)), []);
});

Deno.test("product modules import each other without cycles, by file and by folder", async () => {
  assert.deepEqual(cycleViolations(await readImportGraph(REPO_ROOT)), []);
});

Deno.test("every variable-specifier import goes through adapters/lazy.ts", async () => {
  const graph = await readImportGraph(REPO_ROOT);
  assert.deepEqual(variableImportViolations(graph), []);
  // In the helper itself: one import for LAZY_MODULES, one for users' plugin files.
  assert.equal(graph.variableImports.filter((v) => v.from === LAZY_HELPER).length, 2);
});

Deno.test("every entry of LAZY_MODULES names a module that exists and is loaded", async () => {
  const map = await importMap(REPO_ROOT);
  const problems: string[] = [];
  const callers = await Promise.all(
    [...(await readImportGraph(REPO_ROOT)).files.keys()]
      .filter((file) => isProduct(file) && file !== LAZY_HELPER)
      .map((file) => Deno.readTextFile(join(REPO_ROOT, file))),
  );
  for (const entry of LAZY_MODULES) {
    const exists = entry.endsWith(".ts")
      ? await Deno.stat(join(REPO_ROOT, entry)).then(() => true, () => false)
      : entry in map;
    if (!exists) {
      problems.push(
        `LAZY_MODULES lists "${entry}", which is neither a repository file nor in ` +
          `deno.json's imports; fix or remove the entry in ${LAZY_HELPER}.`,
      );
    }
    if (!callers.some((text) => text.includes(`"${entry}"`) && text.includes("importLazily"))) {
      problems.push(
        `LAZY_MODULES lists "${entry}" but no module calls importLazily("${entry}"); remove ` +
          `the entry from ${LAZY_HELPER} so the binary does not embed it for nothing.`,
      );
    }
  }
  assert.deepEqual(problems, []);
});

Deno.test("product files over 500 lines are reported (a list to read, not a failure)", async () => {
  const long = [...(await readImportGraph(REPO_ROOT)).files]
    .filter(([file, lines]) => isProduct(file) && lines > LONG_FILE_LINES)
    .sort((a, b) => b[1] - a[1]);
  if (long.length > 0) {
    console.log(
      `Product files over ${LONG_FILE_LINES} lines (consider splitting by responsibility):\n` +
        long.map(([file, lines]) => `  ${String(lines).padStart(5)}  ${file}`).join("\n"),
    );
  }
});

Deno.test("the graph checks catch each kind of violation in a planted tree", async () => {
  await using dir = await tempDir();
  const files: Record<string, string> = {
    "adapters/a.ts": 'import type { X } from "../cli/x.ts";\nexport const a = 1;',
    "adapters/b.ts": "type S = typeof import(\n  '../server/s.ts'\n);",
    "adapters/deep/inner/ok.ts": 'import { h } from "../_h.ts";\n// import "../../../cli/x.ts";',
    "adapters/deep/_h.ts": "export const h = 1;",
    "server/s.ts": 'import { h } from "../adapters/deep/_h.ts";',
    "cli/x.ts": 'import { y } from "./y.ts";\nexport const x = 1;',
    "cli/y.ts": 'export { x as y } from "./x.ts";\nconst m = "./x.ts";\nawait import(m);',
    "core/p/one.ts": 'import type { T } from "../q/two.ts";',
    "core/q/two.ts": 'import { one } from "../p/one.ts";',
    "tests/t_test.ts": 'import "./_helper.ts";\nimport "./deep/_more.ts";\nimport "../cli/_z.ts";',
    "tests/deep/_more.ts": 'import "../_helper.ts";',
    "tests/_helper.ts": "",
    "cli/_z.ts": "",
  };
  for (const [path, text] of Object.entries(files)) {
    await Deno.mkdir(join(dir.path, path, ".."), { recursive: true });
    await Deno.writeTextFile(join(dir.path, path), text);
  }
  const graph = await readImportGraph(dir.path);
  const first = (problems: string[]) => problems.map((p) => p.split(" ")[0]).sort();
  assert.deepEqual(first(adapterViolations(graph)), ["adapters/a.ts:1", "adapters/b.ts:1"]);
  assert.deepEqual(first(privateFileViolations(graph)), ["server/s.ts:1", "tests/t_test.ts:3"]);
  assert.deepEqual(cycleViolations(graph).map((p) => p.split(": ")[1].split(". ")[0]), [
    "cli/x.ts -> cli/y.ts -> cli/x.ts",
    "core/p/one.ts -> core/q/two.ts -> core/p/one.ts", // one side is `import type`: still a cycle
    "core/p -> core/q -> core/p",
  ]);
  assert.deepEqual(first(variableImportViolations(graph)), ["cli/y.ts:3"]);
});

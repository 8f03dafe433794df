/**
 * The layering rule, enforced: core/ imports no `node:` module, no `npm:`
 * specifier, no bare specifier mapped to either except the allowed pure
 * libraries, and nothing under server/, cli/ or adapters/.
 */

import assert from "node:assert/strict";
import { join, relative, resolve } from "node:path";
import { REPO_ROOT, tempDir } from "./_helpers.ts";

/** Bare specifiers core may use: pure libraries with no I/O. */
const CORE_ALLOWED_PACKAGES = new Set(["zod", "yaml"]);
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

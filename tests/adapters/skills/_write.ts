/**
 * Writing skill and bundle files into a temporary home.
 *
 * @module
 */

import { dirname, join } from "node:path";

/** Writes `files` (relative path to text) under `root`, creating folders. */
export async function writeTree(root: string, files: Record<string, string>): Promise<void> {
  for (const [rel, text] of Object.entries(files)) {
    const path = join(root, ...rel.split("/"));
    await Deno.mkdir(dirname(path), { recursive: true });
    await Deno.writeTextFile(path, text);
  }
}

/** A SKILL.md with a name, a description and a body. */
export function skillMd(name: string, body = `Instructions of ${name}.`, extra = ""): string {
  return `---\nname: ${name}\ndescription: About ${name}\n${extra}---\n# ${name}\n\n${body}\n`;
}

/** True when `path` exists. */
export async function exists(path: string): Promise<boolean> {
  try {
    await Deno.lstat(path);
    return true;
  } catch {
    return false;
  }
}

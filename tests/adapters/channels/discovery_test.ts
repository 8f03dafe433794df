/**
 * Bundled platform plugins are discovered: every folder of adapters/channels/
 * with a `mod.ts` is listed (so a `deno compile` binary embeds it) and
 * exports a usable `plugin` whose id is the folder's name.
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import {
  BUNDLED_PLUGIN_MODULES,
  discoverPlugins,
  isChannelPlugin,
  pluginFolder,
} from "../../../adapters/channels/mod.ts";
import { LAZY_MODULES } from "../../../adapters/lazy.ts";
import { REPO_ROOT } from "../../_helpers.ts";

/** The platform folders: adapters/channels/<name>/ holding a mod.ts. */
async function pluginFolders(): Promise<string[]> {
  const root = join(REPO_ROOT, "adapters", "channels");
  const names: string[] = [];
  for await (const entry of Deno.readDir(root)) {
    if (!entry.isDirectory) continue;
    const hasMod = await Deno.stat(join(root, entry.name, "mod.ts")).then(() => true, () => false);
    if (hasMod) names.push(entry.name);
  }
  return names.sort();
}

Deno.test("every platform folder with a mod.ts is a listed, lazily loaded plugin module", async () => {
  const folders = await pluginFolders();
  const listed = BUNDLED_PLUGIN_MODULES.map(pluginFolder).sort();
  const missing = folders.filter((name) => !listed.includes(name)).map((name) =>
    `adapters/channels/${name}/mod.ts is not discoverable: add it to BUNDLED_PLUGIN_MODULES in ` +
    "adapters/channels/mod.ts and to LAZY_MODULES in adapters/lazy.ts"
  );
  assert.deepEqual(missing, []);
  assert.deepEqual(listed, folders, "every listed module is a platform folder");
  for (const module of BUNDLED_PLUGIN_MODULES) {
    assert.ok((LAZY_MODULES as readonly string[]).includes(module), `${module} in LAZY_MODULES`);
  }
});

Deno.test("discovery loads every bundled plugin, each named after its folder", async () => {
  const { plugins, problems } = await discoverPlugins();
  assert.deepEqual(problems, []);
  assert.deepEqual(plugins.map((p) => p.id), await pluginFolders());
  for (const plugin of plugins) {
    assert.ok(isChannelPlugin(plugin));
    assert.ok(plugin.label.trim() !== "", `${plugin.id} has a label`);
  }
});

Deno.test("a value without id, label and create is not a plugin", () => {
  assert.equal(isChannelPlugin(undefined), false);
  assert.equal(isChannelPlugin({ id: "x", label: "X" }), false);
  assert.equal(isChannelPlugin({ id: "", label: "X", create: () => ({}) }), false);
  assert.equal(isChannelPlugin({ id: "x", label: "X", create: () => ({}) }), true);
});

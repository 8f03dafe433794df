/**
 * Composing a profile's gateway: which platforms run, which are refused and
 * why, and what is warned about at start. Test plugins stand in for the
 * bundled ones (no network); everything else is real (files, state.db).
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import type { Channel, ChannelContext, ChannelPlugin } from "../../../core/channels/contract.ts";
import { HeraldError } from "../../../core/errors.ts";
import { ensureProfileHome, profilePaths } from "../../../adapters/home/mod.ts";
import {
  composeGateway,
  type GatewayComposeOptions,
  platformEnabled,
} from "../../../adapters/runtime/gateway.ts";
import { tempDir } from "../../_helpers.ts";

/** A plugin whose channel has the credential key `key` and can send. */
function plugin(id: string, options: { key?: string; fail?: string } = {}): ChannelPlugin & {
  contexts: ChannelContext[];
} {
  const contexts: ChannelContext[] = [];
  return {
    id,
    label: id.toUpperCase(),
    contexts,
    create(context): Channel {
      contexts.push(context);
      if (options.fail) throw new HeraldError("platform_not_configured", "usage", options.fail);
      return {
        id,
        label: id.toUpperCase(),
        ...(options.key === undefined ? {} : { credentialKey: options.key }),
        outbound: {
          chunkLimit: 100,
          format: (markdown) => markdown,
          send: () => Promise.resolve({ messageIds: ["1"] }),
        },
      };
    },
  };
}

async function profile(root: string, name: string, config: string, env = "") {
  const paths = profilePaths(root, name);
  await ensureProfileHome(paths);
  await Deno.writeTextFile(paths.config, config);
  await Deno.writeTextFile(paths.env, env);
  return paths;
}

function options(
  paths: ReturnType<typeof profilePaths>,
  root: string,
  plugins: ChannelPlugin[],
  pid = 1000,
): GatewayComposeOptions {
  return { paths, root, env: {}, cwd: root, pid, log: () => {}, plugins };
}

Deno.test("a platform is enabled by config.yaml or by <ID>_ENABLED", () => {
  const none = () => undefined;
  assert.equal(platformEnabled("telegram", none, {}), false);
  assert.equal(platformEnabled("telegram", none, { enabled: true }), true);
  assert.equal(platformEnabled("telegram", none, { enabled: "true" }), false);
  const env = (name: string) => ({ API_SERVER_ENABLED: "yes" } as Record<string, string>)[name];
  assert.equal(platformEnabled("api_server", env, {}), true);
});

Deno.test("only enabled platforms get a channel, with their settings, env and own data folder", async () => {
  await using root = await tempDir();
  const paths = await profile(
    root.path,
    "default",
    "platforms:\n  alpha:\n    enabled: true\n    extra_key: 7\n  beta:\n    enabled: false\n",
    "ALPHA_ALLOWED_USERS=1\nGAMMA_ENABLED=true\n",
  );
  const alpha = plugin("alpha"), beta = plugin("beta"), gamma = plugin("gamma");
  const gateway = await composeGateway(options(paths, root.path, [alpha, beta, gamma]));
  try {
    assert.deepEqual(gateway.status().platforms.map((p) => [p.platform, p.state]), [
      ["alpha", "stopped"],
      ["gamma", "stopped"],
    ]);
    assert.equal(beta.contexts.length, 0);
    const context = alpha.contexts[0];
    assert.equal(context.settings.extra_key, 7, "unknown keys reach the plugin");
    assert.equal(context.env("ALPHA_ALLOWED_USERS"), "1");
    assert.equal(context.dataDir, join(paths.home, "gateway", "alpha"));
    assert.equal((await Deno.stat(context.dataDir)).isDirectory, true);
    // alpha has an allowlist; gamma has none, so everyone is denied: a warning says so.
    assert.deepEqual(gateway.warnings.filter((w) => w.startsWith("alpha")), []);
    assert.equal(gateway.warnings.filter((w) => w.startsWith("gamma: no allowlist")).length, 1);
  } finally {
    gateway.close();
  }
});

Deno.test("a platform that cannot be created is refused with its reason; the others run", async () => {
  await using root = await tempDir();
  const paths = await profile(
    root.path,
    "default",
    "platforms:\n  alpha:\n    enabled: true\n  beta:\n    enabled: true\n  nope:\n    enabled: true\n",
    "GATEWAY_ALLOWED_USERS=1\n",
  );
  const gateway = await composeGateway(
    options(paths, root.path, [
      plugin("alpha", { fail: "ALPHA_TOKEN is not set" }),
      plugin("beta"),
    ]),
  );
  try {
    const refused = gateway.status().platforms.find((p) => p.platform === "alpha");
    assert.equal(refused?.state, "refused");
    assert.equal(refused?.lastError, "ALPHA_TOKEN is not set");
    assert.equal(gateway.status().platforms.find((p) => p.platform === "beta")?.state, "stopped");
    assert.ok(gateway.warnings.includes("alpha: not started: ALPHA_TOKEN is not set"));
    assert.ok(
      gateway.warnings.some((w) => w.startsWith("platforms.nope is enabled but no bundled")),
    );
  } finally {
    gateway.close();
  }
});

Deno.test("a bot credential held by another profile's gateway is refused, naming that profile", async () => {
  await using root = await tempDir();
  const config = "platforms:\n  alpha:\n    enabled: true\n  beta:\n    enabled: true\n";
  const env = "GATEWAY_ALLOWED_USERS=1\n";
  const main = await profile(root.path, "default", config, env);
  const work = await profile(root.path, "work", config, env);
  const plugins = () => [plugin("alpha", { key: "same-bot" }), plugin("beta", { key: "beta-bot" })];
  const first = await composeGateway(options(main, root.path, plugins(), 111));
  const second = await composeGateway(
    options(
      work,
      root.path,
      [plugin("alpha", { key: "same-bot" }), plugin("beta", { key: "b2" })],
      222,
    ),
  );
  try {
    const alpha = second.status().platforms.find((p) => p.platform === "alpha");
    assert.equal(alpha?.state, "refused");
    assert.match(alpha?.lastError ?? "", /already in use by profile "default" \(gateway pid 111\)/);
    assert.equal(second.status().platforms.find((p) => p.platform === "beta")?.state, "stopped");
  } finally {
    second.close();
    first.close();
  }
  // Closed: the credential is free again.
  const third = await composeGateway(options(work, root.path, plugins(), 333));
  try {
    assert.deepEqual(third.refused, []);
  } finally {
    third.close();
  }
});

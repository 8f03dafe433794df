/**
 * `/api/messaging/platforms`: the platform catalog with each platform's
 * status in the profile, saving a platform's setup (secrets to `.env`,
 * enable/disable to config.yaml), and a configuration check. Until the
 * gateway exists the check makes no network call, and says so.
 *
 * @module
 */

import type { Context, Hono } from "hono";
import {
  checkPlatformSecrets,
  type PlatformInfo,
  platformInfo,
  PLATFORMS,
} from "../../core/messaging/mod.ts";
import type { ServerDeps } from "../deps.ts";
import { ApiError } from "../errors.ts";
import { scopedProfile } from "../profile_scope.ts";
import {
  booleanField,
  jsonBody,
  optionalJsonBody,
  stringArrayField,
  stringRecordField,
} from "../_input.ts";
import {
  loadProfileConfig,
  type ProfileCredentials,
  profileCredentials,
  removeEnvVariables,
  updateProfileFiles,
} from "../_profile_io.ts";
import { applyConfigEdits } from "../_config_text.ts";
import type { HeraldConfig } from "../../core/config/mod.ts";
import type { ProfilePaths } from "../../adapters/home/mod.ts";

const NO_NETWORK_NOTE = "Only the configuration was checked; no network call was made " +
  "(connecting to the platform needs the messaging gateway, which is not running here)";

function requirePlatform(c: Context): PlatformInfo {
  const id = c.req.param("platform") ?? "";
  const platform = platformInfo(id);
  if (!platform) {
    throw new ApiError(
      404,
      "platform_unknown",
      `No messaging platform "${id}" (known: ${PLATFORMS.map((p) => p.id).join(", ")})`,
    );
  }
  return platform;
}

function platformStatus(
  platform: PlatformInfo,
  config: HeraldConfig,
  credentials: ProfileCredentials,
) {
  const check = checkPlatformSecrets(platform, credentials.lookup);
  return {
    id: platform.id,
    label: platform.label,
    description: platform.description,
    docs_url: platform.docsUrl,
    env: platform.secrets.map((secret) => ({
      name: secret.name,
      label: secret.label,
      required: secret.required,
      secret: true,
      hint: secret.hint,
      set: credentials.source(secret.name) !== null,
      source: credentials.source(secret.name),
    })),
    config_keys: platform.configKeys,
    configured: check.ok || check.missing.length === 0,
    well_formed: check.ok,
    enabled: config.platforms[platform.id]?.enabled ?? false,
  };
}

async function statusOf(paths: ProfilePaths, deps: ServerDeps, platform: PlatformInfo) {
  const credentials = await profileCredentials(paths, deps);
  const config = (await loadProfileConfig(paths)).config;
  return platformStatus(platform, config, credentials);
}

/** Registers the messaging routes. */
export function registerMessagingRoutes(app: Hono, deps: ServerDeps): void {
  app.get("/api/messaging/platforms", async (c) => {
    const paths = await scopedProfile(c, deps);
    const credentials = await profileCredentials(paths, deps);
    const config = (await loadProfileConfig(paths)).config;
    return c.json({
      profile: paths.name,
      platforms: PLATFORMS.map((platform) => platformStatus(platform, config, credentials)),
    });
  });

  app.put("/api/messaging/platforms/:platform", async (c) => {
    const body = await jsonBody(c);
    const platform = requirePlatform(c);
    const paths = await scopedProfile(c, deps, body);
    const enabled = booleanField(body, "enabled");
    const env = stringRecordField(body, "env") ?? {};
    const clear = stringArrayField(body, "clear_env") ?? [];
    const known = new Set(platform.secrets.map((secret) => secret.name));
    for (const name of [...Object.keys(env), ...clear]) {
      if (!known.has(name)) {
        throw new ApiError(
          400,
          "platform_env_unknown",
          `${platform.label} does not use ${name} (it uses ${[...known].join(", ")})`,
        );
      }
    }
    for (const [name, value] of Object.entries(env)) {
      if (value.trim() === "") {
        throw new ApiError(
          400,
          "bad_request",
          `The value of ${name} is empty; to remove it, list it in clear_env`,
        );
      }
    }
    const edits = enabled === undefined
      ? []
      : [[`platforms.${platform.id}.enabled`, enabled] as const];
    const secrets = Object.entries(env).map(([name, value]) => ({ name, value: value.trim() }));
    await updateProfileFiles(paths, (text) => ({
      text: applyConfigEdits(text, paths.config, edits).text,
      secrets,
    }));
    const cleared = await removeEnvVariables(paths, clear.filter((name) => !(name in env)));
    return c.json({
      ok: true,
      profile: paths.name,
      saved_env: secrets.map((secret) => secret.name),
      cleared_env: cleared,
      platform: await statusOf(paths, deps, platform),
    });
  });

  app.post("/api/messaging/platforms/:platform/test", async (c) => {
    const body = await optionalJsonBody(c);
    const platform = requirePlatform(c);
    const paths = await scopedProfile(c, deps, body);
    const credentials = await profileCredentials(paths, deps);
    const check = checkPlatformSecrets(platform, credentials.lookup);
    const common = {
      profile: paths.name,
      platform: platform.id,
      network: false,
      note: NO_NETWORK_NOTE,
    };
    if (check.ok) return c.json({ ...common, ok: true, checked: "configuration" });
    return c.json({
      ...common,
      ok: false,
      checked: "configuration",
      missing: check.missing,
      malformed: check.malformed,
    });
  });
}

/**
 * `/api/config`: the profile's effective configuration (defaults filled in,
 * secrets redacted), edits by dotted key or by a partial config object
 * (validated like `herald config set`, comments kept, secrets to `.env`),
 * and the raw file text.
 *
 * @module
 */

import type { Hono } from "hono";
import {
  getConfigValue,
  parseConfigDocument,
  redact,
  validateConfig,
} from "../../core/config/mod.ts";
import { ConfigParseError } from "../../core/errors.ts";
import { ensureProfileHome, readConfigText, writeConfigText } from "../../adapters/home/mod.ts";
import type { ServerDeps } from "../deps.ts";
import { ApiError } from "../errors.ts";
import { jsonBody, scopedProfile } from "../profile_scope.ts";
import { objectField, stringField } from "../_input.ts";
import { loadProfileConfig, writeProfileFiles } from "../_profile_io.ts";
import {
  applyConfigEdits,
  isSecretPath,
  parseErrorResponse,
  redactConfig,
  redactConfigText,
  restoreRedactedSecrets,
} from "../_config_text.ts";

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}

/** Leaves of a partial config object as `[dotted key, value]`; arrays and scalars are leaves. */
function leaves(value: Record<string, unknown>, prefix: string[] = []): [string, unknown][] {
  return Object.entries(value).flatMap(([key, child]) =>
    isPlainObject(child) ? leaves(child, [...prefix, key]) : [[[...prefix, key].join("."), child]]
  );
}

/**
 * The edits a `{config: {...}}` body amounts to: leaves that differ from
 * the current configuration. A secret sent back as GET showed it (redacted,
 * or a `${NAME}` reference) is unchanged.
 */
function configObjectEdits(
  patch: Record<string, unknown>,
  current: unknown,
): [string, unknown][] {
  return leaves(patch).filter(([key, value]) => {
    const existing = getConfigValue(current, key);
    if (JSON.stringify(existing) === JSON.stringify(value)) return false;
    // A secret sent back the way GET showed it is unchanged.
    return !(isSecretPath(key) && typeof existing === "string" && value === redact(existing));
  });
}

/** Registers the config routes. */
export function registerConfigRoutes(app: Hono, deps: ServerDeps): void {
  app.get("/api/config", async (c) => {
    const paths = await scopedProfile(c, deps);
    try {
      const loaded = await loadProfileConfig(paths);
      return c.json({
        profile: paths.name,
        file: paths.config,
        config: redactConfig(loaded.config),
        warnings: loaded.warnings,
      });
    } catch (error) {
      if (error instanceof ConfigParseError) return parseErrorResponse(c, error);
      throw error;
    }
  });

  app.put("/api/config", async (c) => {
    const body = await jsonBody(c);
    const paths = await scopedProfile(c, deps, body);
    const patch = objectField(body, "config");
    const set = objectField(body, "set");
    if (!patch && !set) {
      throw new ApiError(
        400,
        "bad_request",
        'Send {"config": {...}} (a partial configuration) or {"set": {"dotted.key": value}}',
      );
    }
    try {
      const text = await readConfigText(paths.config);
      const before = await loadProfileConfig(paths);
      const edits = [
        ...(patch ? configObjectEdits(patch, before.config) : []),
        ...Object.entries(set ?? {}),
      ];
      const result = applyConfigEdits(text, paths.config, edits);
      await writeProfileFiles(paths, { text: result.text, secrets: result.secrets });
      const after = await loadProfileConfig(paths);
      return c.json({
        ok: true,
        profile: paths.name,
        file: paths.config,
        changed: result.changed,
        removed: result.removed,
        secrets: result.secrets.map((secret) => secret.name),
        config: redactConfig(after.config),
        warnings: after.warnings,
      });
    } catch (error) {
      if (error instanceof ConfigParseError) return parseErrorResponse(c, error);
      throw error;
    }
  });

  app.get("/api/config/raw", async (c) => {
    const paths = await scopedProfile(c, deps);
    const text = await readConfigText(paths.config);
    let shown = { text, redacted: [] as string[] };
    try {
      shown = redactConfigText(text, paths.config);
    } catch (error) {
      // A broken file is shown as it is, so it can be fixed here.
      if (!(error instanceof ConfigParseError)) throw error;
    }
    return c.json({
      profile: paths.name,
      file: paths.config,
      text: shown.text,
      redacted: shown.redacted,
    });
  });

  app.put("/api/config/raw", async (c) => {
    const body = await jsonBody(c);
    const paths = await scopedProfile(c, deps, body);
    const text = stringField(body, "text");
    if (text === undefined) {
      throw new ApiError(400, "bad_request", '"text" (the whole config.yaml) is required');
    }
    let data: Record<string, unknown>;
    try {
      data = (parseConfigDocument(text, paths.config).toJS() ?? {}) as Record<string, unknown>;
    } catch (error) {
      if (error instanceof ConfigParseError) return parseErrorResponse(c, error);
      throw error;
    }
    const restored = restoreRedactedSecrets(text, await readConfigText(paths.config), paths.config);
    await ensureProfileHome(paths);
    await writeConfigText(paths.config, restored);
    return c.json({
      ok: true,
      profile: paths.name,
      file: paths.config,
      warnings: validateConfig(data).warnings,
    });
  });
}

/**
 * `/api/config`: the profile's effective configuration (defaults filled in,
 * secrets redacted), edits by dotted key or by a partial config object
 * (validated like `herald config set`, comments kept, secrets to `.env`),
 * and the raw file text with its version. Every edit is planned under the
 * file's lock from the text as it is then; a whole-file save must name the
 * version it started from and is refused with 409 `config_changed` when the
 * file has changed since.
 *
 * @module
 */

import type { Hono } from "hono";
import {
  getConfigValue,
  isRedactedForm,
  parseConfig,
  parseConfigDocument,
  redactConfigText,
  redactSecrets,
  restoreRedactedSecrets,
  validateConfig,
} from "../../core/config/mod.ts";
import { ConfigParseError } from "../../core/errors.ts";
import {
  configTextVersion,
  ensureProfileHome,
  readConfigText,
  updateConfigText,
} from "../../adapters/home/mod.ts";
import type { ServerDeps } from "../deps.ts";
import { ApiError } from "../errors.ts";
import { scopedProfile } from "../profile_scope.ts";
import { jsonBody, objectField, stringField } from "../_input.ts";
import { loadProfileConfig, updateProfileFiles } from "../_profile_io.ts";
import { applyConfigEdits } from "../_config_text.ts";

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
 * the current configuration. A value sent back as GET showed it (with its
 * secrets redacted, or a `${NAME}` reference) is unchanged.
 */
function configObjectEdits(
  patch: Record<string, unknown>,
  current: unknown,
): [string, unknown][] {
  return leaves(patch).filter(([key, value]) => {
    const existing = getConfigValue(current, key);
    if (JSON.stringify(existing) === JSON.stringify(value)) return false;
    // A value sent back the way GET showed it (secrets redacted) is unchanged.
    return !isRedactedForm(key, value, existing);
  });
}

/** Registers the config routes. */
export function registerConfigRoutes(app: Hono, deps: ServerDeps): void {
  app.get("/api/config", async (c) => {
    const paths = await scopedProfile(c, deps);
    const loaded = await loadProfileConfig(paths);
    return c.json({
      profile: paths.name,
      file: paths.config,
      config: redactSecrets(loaded.config),
      warnings: loaded.warnings,
    });
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
    // The diff and the edit are planned inside the locks from the file as it is now,
    // so a change saved meanwhile (another tab, the CLI) is kept.
    const result = await updateProfileFiles(paths, (text) => {
      const before = parseConfig(text, paths.config);
      const edits = [
        ...(patch ? configObjectEdits(patch, before.config) : []),
        ...Object.entries(set ?? {}),
      ];
      return applyConfigEdits(text, paths.config, edits);
    });
    const after = await loadProfileConfig(paths);
    return c.json({
      ok: true,
      profile: paths.name,
      file: paths.config,
      changed: result.changed,
      removed: result.removed,
      secrets: result.secrets.map((secret) => secret.name),
      config: redactSecrets(after.config),
      warnings: after.warnings,
    });
  });

  app.get("/api/config/raw", async (c) => {
    const paths = await scopedProfile(c, deps);
    const text = await readConfigText(paths.config);
    const version = await configTextVersion(text);
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
      version,
    });
  });

  app.put("/api/config/raw", async (c) => {
    const body = await jsonBody(c);
    const paths = await scopedProfile(c, deps, body);
    const text = stringField(body, "text");
    if (text === undefined) {
      throw new ApiError(400, "bad_request", '"text" (the whole config.yaml) is required');
    }
    const version = stringField(body, "version");
    if (version === undefined || version.trim() === "") {
      throw new ApiError(
        400,
        "bad_request",
        '"version" is required: send the version that GET /api/config/raw returned with the ' +
          "text, so a change saved since is not overwritten",
      );
    }
    // Text that is not YAML throws ConfigParseError: a 422 with file, line and column.
    const document = parseConfigDocument(text, paths.config);
    const data = (document.toJS() ?? {}) as Record<string, unknown>;
    await ensureProfileHome(paths);
    // The whole file is replaced, which cannot be merged with a change made since the
    // editor loaded it: inside the lock, the file must still be at the version it was sent.
    const saved = await updateConfigText(paths.config, async (current) => {
      if ((await configTextVersion(current)) !== version.trim()) {
        throw new ApiError(
          409,
          "config_changed",
          `${paths.config} was changed by someone else since you loaded it; nothing was ` +
            "written. Reload it and apply your edit again",
        );
      }
      return { text: restoreRedactedSecrets(text, current, paths.config) };
    });
    return c.json({
      ok: true,
      profile: paths.name,
      file: paths.config,
      version: await configTextVersion(saved!.text),
      warnings: validateConfig(data).warnings,
    });
  });
}

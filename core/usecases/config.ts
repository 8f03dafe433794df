/**
 * The config use cases: show the effective configuration (secrets hidden),
 * read one key, edit keys with typed values or by a partial config object,
 * and read or save the whole config.yaml text under a version check. The
 * CLI (`herald config ...`), the dashboard (`/api/config`) and later
 * channels call these; each edit is planned inside the file locks from the
 * text as it is then, so a change saved meanwhile by anyone is kept.
 *
 * @module
 */

import {
  checkConfigValue,
  type ConfigEdit,
  configObjectEdits,
  configTextVersion,
  configValueFromText,
  type ConfigWarning,
  getConfigValue,
  type HeraldConfig,
  isEnvName,
  isSecretKey,
  type LoadedConfig,
  parseConfig,
  planConfigEdits,
  providerProblem,
  redactConfigText,
  redactSecrets,
  resolveConfigKey,
  restoreRedactedSecrets,
} from "../config/mod.ts";
import { ConfigParseError, ConfigValueError, HeraldError } from "../errors.ts";
import type { Credentials, ProfileContext } from "./ports.ts";

/** A whole-file save that started from a text that has changed since (HTTP 409). */
export class ConfigChangedError extends HeraldError {
  /** Creates the error for config file `file`. */
  constructor(readonly file: string) {
    super(
      "config_changed",
      "conflict",
      `${file} was changed by someone else since you loaded it; nothing was written. ` +
        "Reload it and apply your edit again",
      { details: { file } },
    );
  }
}

/**
 * config.yaml as written (`${NAME}` references kept), defaults filled in.
 *
 * @throws ConfigParseError when the file is not YAML.
 */
export async function loadWrittenConfig(profile: ProfileContext): Promise<LoadedConfig> {
  return parseConfig(await profile.files.readConfigText(), profile.files.configPath);
}

/**
 * config.yaml as a session sees it: `${NAME}` references expanded from the
 * profile's credentials (its `.env`, then the environment), which come
 * along, and the text as read (to show it as written without reading again).
 *
 * @throws ConfigParseError when the file is not YAML.
 */
export async function loadExpandedConfig(
  profile: ProfileContext,
): Promise<LoadedConfig & { credentials: Credentials; text: string }> {
  const credentials = await profile.files.credentials();
  const text = await profile.files.readConfigText();
  return {
    ...parseConfig(text, profile.files.configPath, credentials.lookup),
    credentials,
    text,
  };
}

/** The JSON view of a profile's configuration (`config show --json`, `GET /api/config`). */
export interface ConfigView {
  profile: string;
  file: string;
  /** The effective configuration, defaults filled in, every secret hidden. */
  config: HeraldConfig;
  warnings: ConfigWarning[];
}

/** The one JSON view of a loaded configuration: secrets hidden, as every surface shows it. */
export function configView(profile: ProfileContext, loaded: LoadedConfig): ConfigView {
  return {
    profile: profile.name,
    file: profile.files.configPath,
    config: redactSecrets(loaded.config),
    warnings: loaded.warnings,
  };
}

/**
 * The effective configuration with secrets hidden, and the file's warnings.
 *
 * @throws ConfigParseError when config.yaml is not YAML.
 *
 * @example
 * ```ts
 * const { config, warnings } = await showConfig(profile);
 * ```
 */
export async function showConfig(profile: ProfileContext): Promise<ConfigView> {
  return configView(profile, await loadWrittenConfig(profile));
}

/** The JSON view of one setting (`config get --json`); `value` is null when unset. */
export interface ConfigValueView {
  key: string;
  value: unknown;
}

/** One setting as {@link readConfigValue} finds it. */
export interface ConfigValueRead {
  view: ConfigValueView;
  /** False when the key has no value (not even a default). */
  set: boolean;
  file: string;
  warnings: ConfigWarning[];
}

/**
 * One setting of the effective configuration by dotted key, secrets hidden.
 *
 * @throws ConfigKeyError for a key the schema does not know (before anything is read).
 * @throws ConfigParseError when config.yaml is not YAML.
 */
export async function readConfigValue(
  profile: ProfileContext,
  key: string,
): Promise<ConfigValueRead> {
  resolveConfigKey(key);
  const shown = await showConfig(profile);
  const value = getConfigValue(shown.config, key);
  return {
    view: { key, value: value ?? null },
    set: value !== undefined,
    file: shown.file,
    warnings: shown.warnings,
  };
}

/** A secret an edit stored in `.env` (never its value). */
export interface StoredSecret {
  /** The `.env` variable. */
  name: string;
  /** The config key that references it, or null for a bare `.env` name. */
  key: string | null;
}

/** What an edit of the configuration did. */
export interface ConfigEditResult {
  profile: string;
  file: string;
  /** Keys set in config.yaml. */
  changed: string[];
  /** Keys removed from config.yaml (their defaults apply again). */
  removed: string[];
  /** Secrets stored in `.env`. */
  secrets: StoredSecret[];
}

async function applyEdits(
  profile: ProfileContext,
  plan: (current: string) => ConfigEdit[],
): Promise<ConfigEditResult> {
  const file = profile.files.configPath;
  const planned =
    (await profile.files.updateConfig((current) => planConfigEdits(current, file, plan(current))))!;
  return {
    profile: profile.name,
    file,
    changed: planned.changed,
    removed: planned.removed,
    secrets: planned.secrets.map(({ name, key }) => ({ name, key })),
  };
}

/**
 * Sets or removes keys (`value: null` removes), in order, in one write:
 * typed values checked against the schema, comments kept, secrets stored in
 * `.env` first with a `${NAME}` reference in config.yaml.
 *
 * @throws ConfigKeyError, ConfigValueError, SecretValueTypeError, ValueTooLargeError,
 *   ConfigParseError: nothing is written.
 *
 * @example
 * ```ts
 * await editConfig(profile, [{ key: "agent.max_turns", value: 30 }, { key: "model.base_url", value: null }]);
 * ```
 */
export function editConfig(
  profile: ProfileContext,
  edits: readonly ConfigEdit[],
): Promise<ConfigEditResult> {
  return applyEdits(profile, () => [...edits]);
}

/**
 * Whether the leaf at `key` takes a list: the schema accepts an empty one.
 * Secrets, `.env` names and sections never do.
 */
function takesList(key: string, path: readonly string[]): boolean {
  if (isSecretKey(key)) return false;
  try {
    checkConfigValue(key, path, []);
    return true;
  } catch (error) {
    if (error instanceof ConfigValueError) return false;
    throw error;
  }
}

/**
 * The typed value `herald config set <key> <value...>` means. A key whose
 * schema type is a list takes its items as separate arguments (`a b c`),
 * as one comma-separated argument (`a,b`; not for `approvals.*`, whose
 * command patterns hold commas: there one argument is one item), or as
 * today's JSON/YAML text (`["a", "b"]`, `[]` for an empty list); items are
 * trimmed, and an empty one, or one that starts with `[` or ends with `]`
 * (JSON the shell split into words), is refused. Any other key takes
 * exactly one value, read as `configValueFromText` reads it.
 *
 * @example
 * ```ts
 * configValueFromArgs("plugins", ["a.ts,b.ts"]);                  // ["a.ts", "b.ts"]
 * configValueFromArgs("approvals.deny", ["git commit -m a,b"]);   // ["git commit -m a,b"]
 * configValueFromArgs("plugins", ["a.ts", "b.ts"]);            // ["a.ts", "b.ts"]
 * configValueFromArgs("agent.max_turns", ["30"]);              // 30
 * ```
 *
 * @throws HeraldError (usage, `config_value_count`) for no value, or several for a key
 *   that takes one (the values stay out of the message: they may be secrets).
 * @throws ConfigKeyError, ConfigValueError, ValueTooLargeError as `configValueFromText`;
 *   ConfigValueError for an empty list item or an item of the wrong type.
 */
export function configValueFromArgs(key: string, texts: readonly string[]): unknown {
  if (texts.length === 0) {
    throw new HeraldError("config_value_count", "usage", `Give a value for "${key}"`);
  }
  const list = !isEnvName(key) && takesList(key, resolveConfigKey(key));
  if (!list) {
    if (texts.length > 1) {
      throw new HeraldError(
        "config_value_count",
        "usage",
        `"${key}" takes one value, got ${texts.length}; quote a value that has spaces`,
        { details: { key, count: texts.length } },
      );
    }
    return configValueFromText(key, texts[0]);
  }
  if (texts.length === 1 && texts[0].trim().startsWith("[")) {
    return configValueFromText(key, texts[0]);
  }
  const shown = texts.length === 1 ? texts[0] : texts;
  // Command patterns hold commas (`git commit -m a,b`): an approvals list item is one argument.
  const splits = texts.length === 1 && !key.startsWith("approvals.");
  const items = (splits ? texts[0].split(",") : texts).map((item) => item.trim());
  if (items.some((item) => item === "")) {
    throw new ConfigValueError(
      key,
      shown,
      splits
        ? "a list item is empty; separate items with commas (a,b) or give them as separate " +
          "arguments, and use [] for an empty list"
        : "a list item is empty; give each item as its own argument, and use [] for an empty list",
    );
  }
  if (items.some((item) => item.startsWith("[") || item.endsWith("]"))) {
    throw new ConfigValueError(
      key,
      shown,
      "a list item starts with [ or ends with ], as JSON split by the shell does; quote the " +
        `JSON as one argument: herald config set ${key} '["a", "b"]'`,
    );
  }
  return checkConfigValue(key, resolveConfigKey(key), items);
}

/**
 * Applies a partial config object (as the dashboard sends it): only the
 * leaves that differ from the current configuration are written, and a
 * value sent back redacted or as a `${NAME}` reference counts as unchanged.
 * `then` are edits applied after the object's, in the same write.
 *
 * @throws as {@link editConfig}.
 */
export function editConfigObject(
  profile: ProfileContext,
  patch: Readonly<Record<string, unknown>>,
  then: readonly ConfigEdit[] = [],
): Promise<ConfigEditResult> {
  return applyEdits(profile, (current) => {
    if (Object.keys(patch).length === 0) return [...then];
    const before = parseConfig(current, profile.files.configPath);
    return [...configObjectEdits(patch, before.config), ...then];
  });
}

/** config.yaml as text for an editor: secrets hidden, with the version to save against. */
export interface RawConfigView {
  profile: string;
  file: string;
  /** The text, with every secret value replaced by its redacted form. */
  text: string;
  /** Dotted paths whose values were hidden. */
  redacted: string[];
  /** The version of the text on disk (see `configTextVersion`). */
  version: string;
}

/**
 * config.yaml as text with secrets hidden, and its version. A file that is
 * not YAML is shown as it is, so it can be fixed.
 */
export async function readRawConfig(profile: ProfileContext): Promise<RawConfigView> {
  const file = profile.files.configPath;
  const text = await profile.files.readConfigText();
  let shown = { text, redacted: [] as string[] };
  try {
    shown = redactConfigText(text, file);
  } catch (error) {
    if (!(error instanceof ConfigParseError)) throw error;
  }
  return {
    profile: profile.name,
    file,
    text: shown.text,
    redacted: shown.redacted,
    version: await configTextVersion(text),
  };
}

/** What a whole-file save did. */
export interface RawConfigSaved {
  profile: string;
  file: string;
  /** The version of the text now on disk. */
  version: string;
  /** Problems in the saved text that did not stop the save (unknown keys, bad values). */
  warnings: ConfigWarning[];
}

/**
 * Replaces config.yaml with `text`, putting back the secrets it carries in
 * redacted form. The whole file is replaced, which cannot be merged with a
 * change made since the editor loaded it: inside the lock, the file must
 * still be at `version` (from {@link readRawConfig}).
 *
 * @throws ConfigParseError when `text` is not YAML (nothing is written).
 * @throws ConfigChangedError when the file changed since `version`.
 * @throws ValueTooLargeError when `text` is over the file limit.
 */
export async function saveRawConfig(
  profile: ProfileContext,
  text: string,
  version: string,
): Promise<RawConfigSaved> {
  const file = profile.files.configPath;
  const { warnings } = parseConfig(text, file);
  const saved = (await profile.files.updateConfig(async (current) => {
    if ((await configTextVersion(current)) !== version.trim()) throw new ConfigChangedError(file);
    return { text: restoreRedactedSecrets(text, current, file) };
  }))!;
  return {
    profile: profile.name,
    file,
    version: await configTextVersion(saved.text!),
    warnings,
  };
}

/** One config health check (`herald doctor`). */
export interface ConfigCheck {
  name: "config" | "model";
  status: "ok" | "warn" | "fail";
  detail: string;
}

/**
 * Checks config.yaml (parses, no warnings) and that a model is configured
 * with a provider Herald knows (an unknown `model.provider` is a `fail`).
 * A file that cannot be read or parsed is one `fail`; nothing throws.
 */
export async function checkConfig(profile: ProfileContext): Promise<ConfigCheck[]> {
  const file = profile.files.configPath;
  let loaded: LoadedConfig;
  try {
    loaded = await loadWrittenConfig(profile);
  } catch (error) {
    return [{
      name: "config",
      status: "fail",
      detail: error instanceof Error ? error.message : String(error),
    }];
  }
  const config: ConfigCheck = loaded.warnings.length === 0
    ? { name: "config", status: "ok", detail: file }
    : {
      name: "config",
      status: "warn",
      detail: `${file}: ${loaded.warnings.map((w) => w.message).join("; ")}`,
    };
  return [config, modelCheck(file, loaded.config.model)];
}

/**
 * The `model` line of {@link checkConfig}. A provider name that is not one
 * fails, except one already in config.yaml with `model.base_url` set: that
 * works as an OpenAI-compatible server (as it did before the provider rule),
 * so it is a warning; `config set` still refuses such a name.
 */
function modelCheck(file: string, model: HeraldConfig["model"]): ConfigCheck {
  const providerIssue = model.provider ? providerProblem(model.provider, model.base_url) : null;
  if (providerIssue) {
    const baseUrl = model.base_url?.trim();
    if (!baseUrl) {
      return {
        name: "model",
        status: "fail",
        detail: `${file}: model.provider: ${providerIssue.message}`,
      };
    }
    return {
      name: "model",
      status: "warn",
      detail: `${file}: model.provider "${model.provider}" is not a known provider; it is used ` +
        `as an OpenAI-compatible server at ${baseUrl}` +
        (providerIssue.suggestion
          ? `. If you meant "${providerIssue.suggestion}", run \`herald setup\``
          : ""),
    };
  }
  if (model.provider && model.default) {
    return { name: "model", status: "ok", detail: `${model.provider} / ${model.default}` };
  }
  return {
    name: "model",
    status: "warn",
    detail: "no model configured; run `herald setup` to choose the provider, key and model",
  };
}

/**
 * Size limits on what a config edit may store: one value in config.yaml,
 * the whole config.yaml text, and one value in `.env`. They are checked
 * where an edit is planned (core/config/edit.ts, core/config/env_text.ts),
 * so `herald config set`, the dashboard's `/api/config` and `/api/env`
 * routes refuse the same things with a {@link ValueTooLargeError}
 * (`value_too_large`). docs/configuration.md quotes these figures; tests
 * use the constants.
 *
 * Reading is not limited: a larger file written by hand still loads.
 *
 * @module
 */

import { ValueTooLargeError } from "../errors.ts";

export { MAX_YAML_ALIASES } from "../_util/yaml.ts";

/** The largest value one config key may hold, in UTF-8 bytes (64 KiB) as typed or sent. */
export const MAX_CONFIG_VALUE_BYTES = 64 * 1024;

/** The largest config.yaml an edit may produce, in UTF-8 bytes (1 MiB). */
export const MAX_CONFIG_TEXT_BYTES = 1024 * 1024;

/** The largest value of one `.env` variable, in UTF-8 bytes (64 KiB). */
export const MAX_ENV_VALUE_BYTES = 64 * 1024;

/** Size of `text` in UTF-8 bytes. */
export function utf8Bytes(text: string): number {
  return new TextEncoder().encode(text).length;
}

/**
 * Refuses a config value over {@link MAX_CONFIG_VALUE_BYTES}.
 *
 * @throws ValueTooLargeError naming `key`, the size and the limit.
 */
export function checkConfigValueSize(key: string, value: string): void {
  const size = utf8Bytes(value);
  if (size > MAX_CONFIG_VALUE_BYTES) {
    throw new ValueTooLargeError("config_value", key, size, MAX_CONFIG_VALUE_BYTES);
  }
}

/**
 * Refuses a `.env` value over {@link MAX_ENV_VALUE_BYTES}.
 *
 * @throws ValueTooLargeError naming `name`, the size and the limit.
 */
export function checkEnvValueSize(name: string, value: string): void {
  const size = utf8Bytes(value);
  if (size > MAX_ENV_VALUE_BYTES) {
    throw new ValueTooLargeError("env_value", name, size, MAX_ENV_VALUE_BYTES);
  }
}

/**
 * Refuses a new config.yaml text over {@link MAX_CONFIG_TEXT_BYTES} when it
 * is larger than the text it replaces (an edit that does not grow a file
 * already over the limit is allowed, so such a file can still be trimmed).
 *
 * @param key what is being written: the dotted key, or the file for a whole-text write.
 * @throws ValueTooLargeError naming `key`, the new size and the limit.
 */
export function checkConfigTextSize(key: string, text: string, before = ""): void {
  const size = utf8Bytes(text);
  if (size > MAX_CONFIG_TEXT_BYTES && size > utf8Bytes(before)) {
    throw new ValueTooLargeError("config_text", key, size, MAX_CONFIG_TEXT_BYTES);
  }
}

/**
 * Domain errors. Every error Herald raises on purpose is a {@link HeraldError}
 * with a machine-readable `code`; the CLI maps codes to exit statuses and
 * one-line messages in one place (cli/errors.ts), the server maps them to
 * HTTP statuses. Messages say what happened and what to do, quoting the
 * offending value.
 *
 * @module
 */

/** Whether an error was caused by what the user typed or by the state around them. */
export type ErrorKind = "usage" | "state" | "internal";

/** Base class of all deliberate Herald errors. */
export class HeraldError extends Error {
  /** Machine-readable code, stable across releases (for example `profile_name_invalid`). */
  readonly code: string;
  /** `usage`: the user asked for something invalid; `state`: something on disk or in the environment is wrong. */
  readonly kind: ErrorKind;

  /** Creates an error with a code, a kind and a one-line message. */
  constructor(code: string, kind: ErrorKind, message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = new.target.name;
    this.code = code;
    this.kind = kind;
  }
}

/** A profile name that does not follow the naming rule or is reserved. */
export class ProfileNameError extends HeraldError {
  /** Creates the error for the rejected `input`. */
  constructor(
    readonly input: string,
    code: "profile_name_invalid" | "profile_name_reserved" | "profile_name_empty",
    message: string,
  ) {
    super(code, "usage", message);
  }
}

/** A named profile whose home does not exist. */
export class ProfileNotFoundError extends HeraldError {
  /** Creates the error for profile `profile` expected at `home`. */
  constructor(readonly profile: string, readonly home: string) {
    super(
      "profile_not_found",
      "usage",
      `Profile "${profile}" does not exist (expected ${home}); create it with \`herald profile create ${profile}\``,
    );
  }
}

/** A profile that is asked to be created but already exists. */
export class ProfileExistsError extends HeraldError {
  /** Creates the error for profile `profile` at `home`. */
  constructor(readonly profile: string, readonly home: string) {
    super("profile_exists", "usage", `Profile "${profile}" already exists at ${home}`);
  }
}

/** A home folder that cannot be found or used (a file in the way, no user home). */
export class HomeError extends HeraldError {
  /** Creates the error for `path` with a `reason` that says what to do. */
  constructor(readonly path: string, reason: string) {
    super("home_unusable", "state", `${path}: ${reason}`);
  }
}

/** A config file that is not valid YAML. Carries the position of the first problem. */
export class ConfigParseError extends HeraldError {
  /** Creates the error for `file` at 1-based `line` and `column`. */
  constructor(
    readonly file: string,
    readonly line: number,
    readonly column: number,
    readonly reason: string,
  ) {
    super(
      "config_parse",
      "state",
      `${file}:${line}:${column}: ${reason}; fix the file by hand (Herald leaves it untouched)`,
    );
  }
}

/** A config key that the schema does not know. */
export class ConfigKeyError extends HeraldError {
  /** Creates the error for the dotted `key`, with an optional nearest known key. */
  constructor(readonly key: string, readonly suggestion?: string) {
    super(
      "config_unknown_key",
      "usage",
      `Unknown config key "${key}"` +
        (suggestion
          ? `; did you mean "${suggestion}"?`
          : "; run `herald config show` to see the keys"),
    );
  }
}

/** A config value that does not fit the schema for its key. */
export class ConfigValueError extends HeraldError {
  /** Creates the error for the dotted `key` and the schema's complaint `reason`. */
  constructor(readonly key: string, readonly value: unknown, readonly reason: string) {
    super(
      "config_invalid_value",
      "usage",
      `Invalid value ${JSON.stringify(value)} for "${key}": ${reason}`,
    );
  }
}

/** What a {@link ValueTooLargeError} is about. */
export type TooLargeScope = "config_value" | "config_text" | "env_value";

function sizeText(bytes: number): string {
  if (bytes < 1024) return `${bytes} bytes`;
  const [unit, size] = bytes < 1024 * 1024 ? ["KiB", bytes / 1024] : ["MiB", bytes / 1024 / 1024];
  return `${Number.isInteger(size) ? size : size.toFixed(1)} ${unit}`;
}

/**
 * A config value, a `.env` value or a whole config.yaml text larger than
 * Herald stores (the limits are in core/config/limits.ts). Nothing is written.
 */
export class ValueTooLargeError extends HeraldError {
  /**
   * Creates the error for `key` (a dotted config key, a `.env` name, or for
   * `config_text` the key being set or the file) of `size` bytes against `limit`.
   */
  constructor(
    readonly scope: TooLargeScope,
    readonly key: string,
    readonly size: number,
    readonly limit: number,
  ) {
    const over = `${size} bytes (${sizeText(size)}), over the ${
      sizeText(limit)
    } limit (${limit} bytes)`;
    super(
      "value_too_large",
      "usage",
      scope === "config_value"
        ? `The value for "${key}" is ${over} for one config value; nothing was written`
        : scope === "env_value"
        ? `The value for "${key}" is ${over} for one .env value; nothing was written`
        : `Writing "${key}" would make config.yaml ${over} for the whole file; ` +
          "nothing was written (remove settings you no longer need)",
    );
  }
}

/** A `.env` file that cannot be read or parsed as text. */
export class EnvFileError extends HeraldError {
  /** Creates the error for `file` with a `reason`. */
  constructor(readonly file: string, readonly reason: string) {
    super("env_unreadable", "state", `Cannot read ${file}: ${reason}`);
  }
}

/**
 * A profile file whose lock another process held for too long; nothing was
 * changed. The holder is usually a `herald` process that is stuck or stopped.
 */
export class FileLockTimeoutError extends HeraldError {
  /** Creates the error for `file` after waiting `timeoutMs` milliseconds. */
  constructor(readonly file: string, readonly timeoutMs: number) {
    super(
      "file_lock_timeout",
      "state",
      `Gave up after ${timeoutMs / 1000} s waiting for another Herald process to finish ` +
        `writing ${file}; nothing was changed. Try again, or stop the stuck process ` +
        "(a stopped `herald` in another terminal, for example)",
    );
  }
}

/** A state database that cannot be opened, migrated or written. */
export class StoreError extends HeraldError {
  /** Creates the error for database `file` with a `reason`. */
  constructor(readonly file: string, readonly reason: string, options?: ErrorOptions) {
    super("store_failed", "state", `State database ${file}: ${reason}`, options);
  }
}

/** A named thing (session, message, ...) that does not exist. */
export class NotFoundError extends HeraldError {
  /** Creates the error for a missing `what` (for example `Session`) identified by `id`. */
  constructor(readonly what: string, readonly id: string, hint?: string) {
    super("not_found", "usage", `${what} "${id}" not found${hint ? `; ${hint}` : ""}`);
  }
}

/** Why a model call failed, for callers that branch on it. */
export type ModelErrorCode =
  | "model_auth"
  | "model_rate_limited"
  | "model_unavailable"
  | "model_bad_request"
  | "model_bad_response"
  | "model_not_configured";

/** A model or HTTP call that failed; the message says which provider or URL and what to do. */
export class ModelError extends HeraldError {
  /** Creates the error; `status` is the HTTP status when there was one. */
  constructor(
    code: ModelErrorCode,
    message: string,
    readonly provider?: string,
    readonly status?: number,
    options?: ErrorOptions,
  ) {
    super(code, code === "model_not_configured" ? "usage" : "state", message, options);
  }
}

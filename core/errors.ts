/**
 * Domain errors. Every error Herald raises on purpose is a {@link HeraldError}
 * with a machine-readable `code`, a {@link ErrorKind} and the `details` a
 * caller needs to act on it. The kind is the whole mapping: the server turns
 * it into an HTTP status (server/errors.ts) and the CLI into an exit code
 * (cli/errors.ts), each in one table. Messages say what happened and what to
 * do, quoting the offending value.
 *
 * @module
 */

/**
 * What went wrong, as far as a caller cares:
 *
 * - `usage`: the request or command line is wrong (a bad name, an unknown key).
 * - `not_found`: the thing asked for does not exist.
 * - `conflict`: the thing to create already exists, or the request clashes with the current state.
 * - `too_large`: a value or text over a size limit; nothing was written.
 * - `parse`: a file or text that cannot be parsed (the details say where).
 * - `unavailable`: a resource that is busy or missing right now; trying again may work.
 * - `state`: something on disk or in the environment is wrong.
 * - `internal`: a bug in Herald.
 */
export const ERROR_KINDS = [
  "usage",
  "not_found",
  "conflict",
  "too_large",
  "parse",
  "unavailable",
  "state",
  "internal",
] as const;

/** One of {@link ERROR_KINDS}. */
export type ErrorKind = typeof ERROR_KINDS[number];

/**
 * True for the kinds a caller fixes by asking differently (`usage`,
 * `not_found`, `conflict`, `too_large`), false for the ones about the
 * world around them.
 */
export function isCallerKind(kind: ErrorKind): boolean {
  return kind === "usage" || kind === "not_found" || kind === "conflict" || kind === "too_large";
}

/** One value in {@link HeraldError.details}: plain JSON, so it can go on the wire as it is. */
export type ErrorDetail = string | number | boolean;

/** The structured facts an error carries (for example `file`, `line`, `column`). */
export type ErrorDetails = Readonly<Record<string, ErrorDetail>>;

/** Options of {@link HeraldError}: the standard `cause`, plus the error's details. */
export interface HeraldErrorOptions extends ErrorOptions {
  /** Structured facts; keys whose value is `undefined` are left out. */
  details?: Readonly<Record<string, ErrorDetail | undefined>>;
}

function definedDetails(details: HeraldErrorOptions["details"]): ErrorDetails {
  const kept: Record<string, ErrorDetail> = {};
  for (const [key, value] of Object.entries(details ?? {})) {
    if (value !== undefined) kept[key] = value;
  }
  return Object.freeze(kept);
}

/**
 * Base class of all deliberate Herald errors.
 *
 * @example
 * ```ts
 * const error = new HeraldError("board_locked", "unavailable", "The board is busy; try again", {
 *   details: { board: "kanban.db" },
 * });
 * error.kind; // "unavailable": HTTP 503, exit code 1
 * ```
 */
export class HeraldError extends Error {
  /** Machine-readable code, stable across releases (for example `profile_name_invalid`). */
  readonly code: string;
  /** What went wrong, as far as a caller cares; the server and the CLI map only this. */
  readonly kind: ErrorKind;
  /** Structured facts (file, line, key, limit, ...); empty when there is nothing more to say. */
  readonly details: ErrorDetails;

  /** Creates an error with a code, a kind, a one-line message and optional details. */
  constructor(code: string, kind: ErrorKind, message: string, options?: HeraldErrorOptions) {
    const { details, ...errorOptions } = options ?? {};
    super(message, options === undefined ? undefined : errorOptions);
    this.name = new.target.name;
    this.code = code;
    this.kind = kind;
    this.details = definedDetails(details);
  }
}

/** A profile name that does not follow the naming rule or is reserved. */
export class ProfileNameError extends HeraldError {
  /**
   * Creates the error for the rejected `input`; `field` names the request
   * field or option that gave it (`name`, `clone_from`), when there is one.
   */
  constructor(
    readonly input: string,
    code: "profile_name_invalid" | "profile_name_reserved" | "profile_name_empty",
    message: string,
    readonly field?: string,
  ) {
    super(code, "usage", message, { details: { input, field } });
  }
}

/** A named profile whose home does not exist. */
export class ProfileNotFoundError extends HeraldError {
  /** Creates the error for profile `profile` expected at `home`. */
  constructor(readonly profile: string, readonly home: string) {
    super(
      "profile_not_found",
      "not_found",
      `Profile "${profile}" does not exist (expected ${home}); create it with \`herald profile create ${profile}\``,
      { details: { profile, home } },
    );
  }
}

/** A profile that is asked to be created but already exists. */
export class ProfileExistsError extends HeraldError {
  /** Creates the error for profile `profile` at `home`. */
  constructor(readonly profile: string, readonly home: string) {
    super("profile_exists", "conflict", `Profile "${profile}" already exists at ${home}`, {
      details: { profile, home },
    });
  }
}

/** A home folder that cannot be found or used (a file in the way, no user home). */
export class HomeError extends HeraldError {
  /** Creates the error for `path` with a `reason` that says what to do. */
  constructor(readonly path: string, reason: string) {
    super("home_unusable", "state", `${path}: ${reason}`, { details: { path, reason } });
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
      "parse",
      `${file}:${line}:${column}: ${reason}; fix the file by hand (Herald leaves it untouched)`,
      { details: { file, line, column, reason } },
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
      { details: { key, suggestion } },
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
      // The value itself stays out: it may be a secret, and the message already quotes it.
      { details: { key, reason } },
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
      "too_large",
      scope === "config_value"
        ? `The value for "${key}" is ${over} for one config value; nothing was written`
        : scope === "env_value"
        ? `The value for "${key}" is ${over} for one .env value; nothing was written`
        : `Writing "${key}" would make config.yaml ${over} for the whole file; ` +
          "nothing was written (remove settings you no longer need)",
      { details: { scope, key, size, limit } },
    );
  }
}

/** A `.env` file that cannot be read or parsed as text. */
export class EnvFileError extends HeraldError {
  /** Creates the error for `file` with a `reason`. */
  constructor(readonly file: string, readonly reason: string) {
    super("env_unreadable", "state", `Cannot read ${file}: ${reason}`, {
      details: { file, reason },
    });
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
      "unavailable",
      `Gave up after ${timeoutMs / 1000} s waiting for another Herald process to finish ` +
        `writing ${file}; nothing was changed. Try again, or stop the stuck process ` +
        "(a stopped `herald` in another terminal, for example)",
      { details: { file, timeout_ms: timeoutMs } },
    );
  }
}

/** A state database that cannot be opened, migrated or written. */
export class StoreError extends HeraldError {
  /** Creates the error for database `file` with a `reason`. */
  constructor(readonly file: string, readonly reason: string, options?: ErrorOptions) {
    super("store_failed", "state", `State database ${file}: ${reason}`, {
      ...options,
      details: { file, reason },
    });
  }
}

/** A named thing (session, message, ...) that does not exist. */
export class NotFoundError extends HeraldError {
  /** Creates the error for a missing `what` (for example `Session`) identified by `id`. */
  constructor(readonly what: string, readonly id: string, hint?: string) {
    super("not_found", "not_found", `${what} "${id}" not found${hint ? `; ${hint}` : ""}`, {
      details: { what, id },
    });
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

function modelErrorKind(code: ModelErrorCode): ErrorKind {
  if (code === "model_not_configured") return "usage";
  if (code === "model_rate_limited" || code === "model_unavailable") return "unavailable";
  return "state";
}

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
    super(code, modelErrorKind(code), message, { ...options, details: { provider, status } });
  }
}

/** The message of an error, or the text of anything else thrown (for logs and notes). */
export function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

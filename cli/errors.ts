/**
 * The one place where errors become exit codes and one-line messages.
 * A user mistake never prints a stack trace.
 *
 * @module
 */

import { CommanderError } from "commander";
import { type ErrorKind, HeraldError } from "../core/errors.ts";
import { type Output, OutputClosedError } from "./io.ts";

/** Exit codes of the `herald` program. */
export const EXIT = {
  ok: 0,
  /** Something went wrong at run time (state on disk, network, a failed check). */
  failure: 1,
  /** The command line or a value typed by the user is wrong. */
  usage: 2,
} as const;

/**
 * The exit code of each {@link ErrorKind}: the whole error-to-exit-code
 * mapping. What the caller can fix by typing something else (a wrong value,
 * a name that does not exist or already does, a value over a limit) is a
 * usage error, 2; everything else is 1.
 */
export const EXIT_OF_KIND: Readonly<Record<ErrorKind, number>> = {
  usage: EXIT.usage,
  not_found: EXIT.usage,
  conflict: EXIT.usage,
  too_large: EXIT.usage,
  parse: EXIT.failure,
  unavailable: EXIT.failure,
  state: EXIT.failure,
  internal: EXIT.failure,
};

function oneLine(text: string): string {
  return text.replace(/^error:\s*/, "").replace(/\s*\n\s*/g, " ").trim();
}

function commanderMessage(error: CommanderError): string {
  const message = oneLine(error.message);
  const suggested = /Did you mean/.test(message);
  if (error.code === "commander.unknownCommand" || error.code === "commander.unknownOption") {
    return suggested ? message : `${message}; run \`herald --help\` to see what is available`;
  }
  if (error.code === "commander.help") return "a subcommand is needed (see the list above)";
  return message;
}

/** What the user is told about one error: a stable code, one line, and the exit code. */
interface Report {
  code: string;
  message: string;
  exit: number;
  /** The stack of an unexpected error, shown with HERALD_DEBUG=1. */
  stack?: string;
}

/** `commander.unknownOption` → `unknown_option`. */
function commanderCode(code: string): string {
  return code.replace(/^commander\./, "").replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
}

function describe(error: unknown): Report | undefined {
  // Nobody reads the output any more (`herald ... | head`): nothing to say, nothing failed.
  if (error instanceof OutputClosedError) return undefined;
  if (error instanceof CommanderError) {
    if (error.code === "commander.helpDisplayed" || error.code === "commander.version") {
      return undefined;
    }
    return {
      code: commanderCode(error.code),
      message: commanderMessage(error),
      exit: EXIT.usage,
    };
  }
  if (error instanceof HeraldError) {
    return { code: error.code, message: error.message, exit: EXIT_OF_KIND[error.kind] };
  }
  if (error instanceof Deno.errors.PermissionDenied) {
    return {
      code: "permission_denied",
      message: `permission denied: ${error.message}`,
      exit: EXIT.failure,
    };
  }
  const message = error instanceof Error ? error.message : String(error);
  return {
    code: "internal",
    message: `${oneLine(message)} (set HERALD_DEBUG=1 for details)`,
    exit: EXIT.failure,
    stack: error instanceof Error ? error.stack : undefined,
  };
}

/** How {@link reportError} prints. */
export interface ReportOptions {
  /** Print the stack of an unexpected error (`HERALD_DEBUG=1`). */
  debug?: boolean;
  /**
   * Also print the error on standard output as one JSON line,
   * `{"error":{"code":"...","message":"..."}}` (the command line had `--json`
   * and the command printed nothing on standard output yet).
   */
  json?: boolean;
}

/**
 * Prints `error` as one line on standard error and returns the exit code.
 * Set `HERALD_DEBUG=1` to also print the stack of an unexpected error. A
 * closed standard output ({@link OutputClosedError}) ends quietly with 0.
 * With `json`, the error is also printed on standard output as one JSON
 * line, for scripts.
 *
 * @example
 * ```ts
 * reportError(new HeraldError("x", "usage", "Bad"), io, { json: true });
 * // stdout: {"error":{"code":"x","message":"Bad"}}   stderr: herald: Bad   returns 2
 * ```
 */
export function reportError(
  error: unknown,
  io: Output,
  options: ReportOptions = {},
): number {
  const { debug = false, json = false } = options;
  const report = describe(error);
  if (!report) return EXIT.ok;
  if (json) {
    try {
      io.out(`${JSON.stringify({ error: { code: report.code, message: report.message } })}\n`);
    } catch (writeError) {
      if (!(writeError instanceof OutputClosedError)) throw writeError;
    }
  }
  if (debug && report.stack) io.err(`herald: ${report.stack}\n`);
  else io.err(`herald: ${report.message}\n`);
  return report.exit;
}

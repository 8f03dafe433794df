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

/**
 * Prints `error` as one line on standard error and returns the exit code.
 * Set `HERALD_DEBUG=1` to also print the stack of an unexpected error. A
 * closed standard output ({@link OutputClosedError}) ends quietly with 0.
 */
export function reportError(error: unknown, io: Output, debug = false): number {
  // Nobody reads the output any more (`herald ... | head`): nothing to say, nothing failed.
  if (error instanceof OutputClosedError) return EXIT.ok;
  if (error instanceof CommanderError) {
    if (error.code === "commander.helpDisplayed" || error.code === "commander.version") {
      return EXIT.ok;
    }
    io.err(`herald: ${commanderMessage(error)}\n`);
    return EXIT.usage;
  }
  if (error instanceof HeraldError) {
    io.err(`herald: ${error.message}\n`);
    return EXIT_OF_KIND[error.kind];
  }
  if (error instanceof Deno.errors.PermissionDenied) {
    io.err(`herald: permission denied: ${error.message}\n`);
    return EXIT.failure;
  }
  const message = error instanceof Error ? error.message : String(error);
  if (debug && error instanceof Error && error.stack) {
    io.err(`herald: ${error.stack}\n`);
  } else {
    io.err(`herald: ${oneLine(message)} (set HERALD_DEBUG=1 for details)\n`);
  }
  return EXIT.failure;
}

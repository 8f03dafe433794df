/**
 * Where commands write. Every command prints through an {@link Output}, so
 * tests capture exactly what a user would see.
 *
 * @module
 */

/** The two streams a command writes to. */
export interface Output {
  /** Writes to standard output (data). */
  out(text: string): void;
  /** Writes to standard error (warnings, progress, errors). */
  err(text: string): void;
}

/** An {@link Output} that keeps everything written, for tests. */
export interface CapturedOutput extends Output {
  readonly stdout: string;
  readonly stderr: string;
}

/** Writes a value as indented JSON followed by a newline. */
export function printJson(io: Output, value: unknown): void {
  io.out(JSON.stringify(value, null, 2) + "\n");
}

/**
 * Standard output was closed by its reader (`herald ... | head`). Thrown by
 * the first write after that; cli/errors.ts turns it into a quiet exit 0,
 * as other command-line tools end on SIGPIPE.
 */
export class OutputClosedError extends Error {
  /** Creates the error; `cause` is the write's own error (a broken pipe). */
  constructor(options?: ErrorOptions) {
    super("Standard output was closed by its reader", options);
    this.name = "OutputClosedError";
  }
}

function writeAll(stream: { writeSync(p: Uint8Array): number }, text: string): void {
  const bytes = new TextEncoder().encode(text);
  let written = 0;
  while (written < bytes.length) written += stream.writeSync(bytes.subarray(written));
}

/**
 * The process's real standard output and error. Once the reader of
 * standard output has gone, the write that found out throws
 * {@link OutputClosedError} and later writes to it are dropped, so a
 * command that catches the error still prints nothing more.
 */
export function denoOutput(): Output {
  let outClosed = false;
  return {
    out: (text) => {
      if (outClosed) return;
      try {
        writeAll(Deno.stdout, text);
      } catch (error) {
        if (!(error instanceof Deno.errors.BrokenPipe)) throw error;
        outClosed = true;
        throw new OutputClosedError({ cause: error });
      }
    },
    err: (text) => writeAll(Deno.stderr, text),
  };
}

/** An {@link Output} that knows whether anything was written to standard output. */
export interface TrackedOutput extends Output {
  /** True once {@link Output.out} wrote something. */
  readonly wroteOut: boolean;
}

/**
 * Wraps `io` to remember whether standard output was written, so an error
 * printed as JSON (`--json`) never follows a command's own JSON.
 */
export function trackOutput(io: Output): TrackedOutput {
  let wroteOut = false;
  return {
    out: (text) => {
      if (text !== "") wroteOut = true;
      io.out(text);
    },
    err: (text) => io.err(text),
    get wroteOut() {
      return wroteOut;
    },
  };
}

/** An output that records both streams in memory. */
export function captureOutput(): CapturedOutput {
  let stdout = "";
  let stderr = "";
  return {
    out: (text) => void (stdout += text),
    err: (text) => void (stderr += text),
    get stdout() {
      return stdout;
    },
    get stderr() {
      return stderr;
    },
  };
}

/**
 * The desktop bootstrap resolver's pure parts: which Herald a desktop shell
 * (or `herald desktop`) runs, decided by rungs tried in order, the first
 * that answers winning:
 *
 * 1. `root-override`: `HERALD_DESKTOP_ROOT` names a checkout or a folder
 *    holding a `herald` binary.
 * 2. `dev-checkout`: a source checkout in development mode (`HERALD_DEV=1`,
 *    or running from a git checkout that is not the install folder;
 *    `HERALD_DEV=0` turns the second off).
 * 3. `active-install`: the install folder (`HERALD_INSTALL_DIR`, default
 *    `<HERALD_HOME>/herald-agent`) with a valid bootstrap-complete marker and
 *    a runtime that answers `--version`.
 * 4. `path`: a `herald` on the PATH that answers `--version`
 *    (skipped with `HERALD_DESKTOP_IGNORE_EXISTING=1`).
 * 5. `package`: an installed package's binary that answers `--version`
 *    (`HERALD_DESKTOP_HERALD`, the shell's bundled binary, the platform's
 *    package paths).
 * 6. `bootstrap`: none answered, so the staged installer runs, stage by
 *    stage, reporting {@link BootstrapEvent}s.
 *
 * After an installer failure the failure is latched: later starts throw it
 * at once (rungs 3 to 6 are not tried) until an explicit reset.
 *
 * Also here: the installer protocol's manifest and result frame, the output
 * ring buffer, and the latched failure record. The probes and the installer
 * run in adapters/install/bootstrap.ts.
 *
 * @module
 */

import { z } from "zod";
import { HeraldError } from "../errors.ts";

/** The rungs, in the order they are tried. */
export const RUNGS = [
  "root-override",
  "dev-checkout",
  "active-install",
  "path",
  "package",
  "bootstrap",
] as const;

/** One of {@link RUNGS}. */
export type Rung = typeof RUNGS[number];

/** A line for each rung, for people. */
export const RUNG_TITLES: Readonly<Record<Rung, string>> = {
  "root-override": "root override (HERALD_DESKTOP_ROOT)",
  "dev-checkout": "source checkout in development mode",
  "active-install": "the active install",
  "path": "herald on the PATH",
  "package": "an installed package",
  "bootstrap": "a fresh install by the staged installer",
};

/** The Herald a rung found. */
export interface DesktopBackend {
  rung: Rung;
  /** The command (program first) that runs this Herald; append Herald's arguments. */
  command: string[];
  /** The checkout or install folder, when there is one. */
  root?: string;
  /** The `herald --version` line, when it was probed. */
  version?: string;
}

/** What a rung says: it answers with a backend, or passes with the reason. */
export type RungAnswer =
  | { answered: true; backend: DesktopBackend }
  | { answered: false; reason: string };

/** One rung to try: its name and its probe. */
export interface RungProbe {
  rung: Rung;
  probe(): Promise<RungAnswer>;
}

/** The rungs tried, in order, and the backend of the one that answered. */
export interface Resolution {
  backend: DesktopBackend;
  /** The rungs that passed before it, with their reasons. */
  passed: { rung: Rung; reason: string }[];
}

/**
 * Tries `probes` in order and returns the first that answers. A probe that
 * throws stops the resolution (an override that points nowhere, a latched
 * failure, an installer failure).
 *
 * @throws HeraldError (state, `desktop_no_backend`) when every probe passes.
 */
export async function firstAnswer(probes: readonly RungProbe[]): Promise<Resolution> {
  const passed: { rung: Rung; reason: string }[] = [];
  for (const { rung, probe } of probes) {
    const answer = await probe();
    if (answer.answered) return { backend: { ...answer.backend, rung }, passed };
    passed.push({ rung, reason: answer.reason });
  }
  throw new HeraldError(
    "desktop_no_backend",
    "state",
    "No Herald to run was found: " +
      passed.map((p) => `${RUNG_TITLES[p.rung]}: ${p.reason}`).join("; "),
  );
}

/** The environment variables the resolver reads. */
export interface DesktopEnv {
  HERALD_DESKTOP_ROOT?: string;
  HERALD_DEV?: string;
  HERALD_INSTALL_DIR?: string;
  HERALD_DESKTOP_IGNORE_EXISTING?: string;
  HERALD_DESKTOP_HERALD?: string;
}

/** What decides rung 2. */
export interface DevFacts {
  /** The checkout this code runs from (undefined in a compiled binary). */
  checkout?: string;
  /** Whether that checkout is a git working copy (has `.git`). */
  isGitCheckout: boolean;
  /** Whether the checkout is the install folder (links resolved, when they can be). */
  sameFolder: boolean;
}

/** Rung 2's decision: the checkout to run, or the reason it passes. */
export type DevDecision = { dev: true; checkout: string } | { dev: false; reason: string };

/**
 * Whether rung 2 answers, and with which checkout: `HERALD_DEV=1` takes the
 * running checkout as it is; otherwise a git checkout that is not the
 * install folder counts as development mode, unless `HERALD_DEV=0`.
 *
 * @throws HeraldError (usage, `desktop_dev_no_checkout`) for `HERALD_DEV=1` in a compiled binary.
 */
export function devCheckout(env: DesktopEnv, facts: DevFacts): DevDecision {
  const flag = env.HERALD_DEV?.trim();
  if (facts.checkout === undefined) {
    if (flag === "1") {
      throw new HeraldError(
        "desktop_dev_no_checkout",
        "usage",
        "HERALD_DEV=1 asks for a source checkout, but this Herald is a compiled binary with " +
          "none; run `herald desktop` from the checkout, or set HERALD_DESKTOP_ROOT to it",
      );
    }
    return { dev: false, reason: "this Herald is a compiled binary, not a checkout" };
  }
  if (flag === "1") return { dev: true, checkout: facts.checkout };
  if (flag === "0") return { dev: false, reason: "HERALD_DEV=0" };
  if (!facts.isGitCheckout) {
    return { dev: false, reason: `${facts.checkout} is not a git checkout` };
  }
  if (facts.sameFolder) return { dev: false, reason: `${facts.checkout} is the install folder` };
  return { dev: true, checkout: facts.checkout };
}

/** True for `1`, `true`, `yes` (any case). */
export function truthy(value: string | undefined): boolean {
  return /^(1|true|yes)$/i.test(value?.trim() ?? "");
}

/** Whether a `--version` line is Herald's (`herald <version> (<commit>)`). */
export function isHeraldVersion(line: string): boolean {
  return /^herald \S+/.test(line.trim());
}

// ---------------------------------------------------------------------------
// The installer protocol.

/** The installer protocol version this resolver speaks. */
export const INSTALLER_PROTOCOL_VERSION = 1;

/** One stage of the installer's manifest. */
export const stageSchema = z.looseObject({
  name: z.string().regex(/^[a-z][a-z0-9-]*$/, "not a stage name"),
  title: z.string(),
  category: z.string(),
  needsInput: z.boolean(),
});

/** A stage from the manifest. */
export type InstallerStage = z.infer<typeof stageSchema>;

/** `install.sh --manifest`. */
export const manifestSchema = z.looseObject({
  protocolVersion: z.literal(INSTALLER_PROTOCOL_VERSION),
  stages: z.array(stageSchema),
});

/** A parsed manifest. */
export type InstallerManifest = z.infer<typeof manifestSchema>;

/** One stage's result frame (`install.sh --stage <name> --json`). */
export const frameSchema = z.looseObject({
  ok: z.boolean(),
  stage: z.string(),
  skipped: z.boolean().optional().default(false),
  reason: z.string().nullable().optional(),
});

/** A parsed result frame. */
export type StageFrame = z.infer<typeof frameSchema>;

/** A parse that failed says why; one that worked gives the value. */
export type Parsed<T> = { ok: true; value: T } | { ok: false; reason: string };

function zodReason(error: z.ZodError): string {
  const issue = error.issues[0];
  return `${issue.path.length > 0 ? issue.path.join(".") : "the value"}: ${issue.message}`;
}

/** Parses the stdout of `install.sh --manifest`: one JSON object. */
export function parseManifest(stdout: string): Parsed<InstallerManifest> {
  let value: unknown;
  try {
    value = JSON.parse(stdout);
  } catch {
    return { ok: false, reason: `the manifest is not JSON: ${clip(stdout.trim(), 200)}` };
  }
  const parsed = manifestSchema.safeParse(value);
  return parsed.success
    ? { ok: true, value: parsed.data }
    : { ok: false, reason: `the manifest is not protocol 1: ${zodReason(parsed.error)}` };
}

/**
 * Parses a stage's stdout, which must be exactly one JSON frame (one
 * non-blank line) for `stage`.
 */
export function parseFrame(stdout: string, stage: string): Parsed<StageFrame> {
  const lines = stdout.split("\n").filter((line) => line.trim() !== "");
  if (lines.length !== 1) {
    return {
      ok: false,
      reason: `the stage printed ${lines.length} lines on stdout, not one JSON result frame`,
    };
  }
  let value: unknown;
  try {
    value = JSON.parse(lines[0]);
  } catch {
    return { ok: false, reason: `the result frame is not JSON: ${clip(lines[0], 200)}` };
  }
  const parsed = frameSchema.safeParse(value);
  if (!parsed.success) {
    return { ok: false, reason: `the result frame is malformed: ${zodReason(parsed.error)}` };
  }
  if (parsed.data.stage !== stage) {
    return { ok: false, reason: `the result frame is for stage "${parsed.data.stage}"` };
  }
  return { ok: true, value: parsed.data };
}

function clip(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max)}...` : text;
}

// ---------------------------------------------------------------------------
// Progress.

/** Lines of installer stderr kept in the output ring buffer. */
export const OUTPUT_RING_LINES = 200;

/** The longest line kept; the rest of a longer line is cut (with `...`). */
export const OUTPUT_LINE_MAX = 2000;

/** Terminal colour and cursor sequences, dropped from kept lines. */
// deno-lint-ignore no-control-regex
const ANSI = /\x1b\[[0-9;?]*[ -\/]*[@-~]/g;

/**
 * The last {@link OUTPUT_RING_LINES} lines of installer output (stderr),
 * without terminal colour codes. Text arrives in chunks; a line is complete
 * at its line break, and {@link flush} completes the last one.
 */
export class OutputRing {
  readonly capacity: number;
  #lines: string[] = [];
  #partial = "";

  /** A ring of `capacity` lines (at least 1). */
  constructor(capacity: number = OUTPUT_RING_LINES) {
    this.capacity = Math.max(1, Math.floor(capacity));
  }

  /** Adds `chunk`; returns the lines it completed (after cutting), oldest first. */
  write(chunk: string): string[] {
    const parts = (this.#partial + chunk).split("\n");
    this.#partial = parts.pop() ?? "";
    if (this.#partial.length > OUTPUT_LINE_MAX * 4) {
      parts.push(this.#partial);
      this.#partial = "";
    }
    return parts.map((line) => this.#push(line));
  }

  /** Completes the last line, if any text is waiting; returns it. */
  flush(): string[] {
    if (this.#partial === "") return [];
    const line = this.#push(this.#partial);
    this.#partial = "";
    return [line];
  }

  #push(raw: string): string {
    const line = clip(raw.replace(/\r$/, "").replace(ANSI, ""), OUTPUT_LINE_MAX);
    this.#lines.push(line);
    if (this.#lines.length > this.capacity) {
      this.#lines.splice(0, this.#lines.length - this.capacity);
    }
    return line;
  }

  /** The kept lines, oldest first (a copy). */
  lines(): string[] {
    return [...this.#lines];
  }
}

/** A stage's state during a bootstrap. */
export type StageState = "pending" | "running" | "done" | "failed";

/**
 * A progress event of a bootstrap, in order: a synthetic `manifest` event
 * with no stages (the start), the `manifest` with the installer's stage
 * list, then for each stage `running`, its `output` lines, and `done` or
 * `failed` (which carries the output ring buffer's lines).
 */
export type BootstrapEvent =
  | { type: "manifest"; stages: InstallerStage[] }
  | { type: "stage"; stage: string; state: "running" }
  | { type: "stage"; stage: string; state: "done"; skipped: boolean; reason?: string }
  | { type: "stage"; stage: string; state: "failed"; reason: string; output: string[] }
  | { type: "output"; stage: string; line: string };

// ---------------------------------------------------------------------------
// The latched failure.

/** The file, in the install folder, that holds a latched installer failure. */
export const FAILURE_FILE = ".herald-bootstrap-failed";

/** A latched installer failure, as kept in memory and in {@link FAILURE_FILE}. */
export const failureSchema = z.looseObject({
  schemaVersion: z.number().int().min(1),
  /** The stage that failed (`manifest` when the stage list could not be read). */
  stage: z.string(),
  reason: z.string(),
  failedAt: z.string(),
  /** The last lines of the installer's stderr. */
  output: z.array(z.string()),
});

/** A latched failure. */
export type BootstrapFailure = z.infer<typeof failureSchema>;

/** A failure record for `stage`. */
export function newFailure(
  stage: string,
  reason: string,
  output: readonly string[],
  now: Date,
): BootstrapFailure {
  return { schemaVersion: 1, stage, reason, failedAt: now.toISOString(), output: [...output] };
}

/** Parses a latch file's text; undefined when it is not a failure record. */
export function parseFailure(text: string): BootstrapFailure | undefined {
  try {
    const parsed = failureSchema.safeParse(JSON.parse(text));
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The error a latched failure throws: the stage, the reason, the last
 * output lines, and what to do.
 */
export function bootstrapFailedError(failure: BootstrapFailure): HeraldError {
  const tail = failure.output.filter((line) => line.trim() !== "").slice(-3).join(" | ");
  return new HeraldError(
    "desktop_bootstrap_failed",
    "state",
    `The Herald installer failed at stage "${failure.stage}" (${failure.failedAt}): ` +
      `${failure.reason}${tail ? ` [${tail}]` : ""}. Fix the cause, then run ` +
      "`herald desktop --reset` to run the installer again",
    { details: { stage: failure.stage, reason: failure.reason, failedAt: failure.failedAt } },
  );
}

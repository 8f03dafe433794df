/**
 * The file-mutation verifier: remembers, during one turn, which file writes
 * or patches failed and were never followed by a success for the same path,
 * and renders them as an advisory footer for the final answer.
 *
 * @module
 */

/** Most entries the footer lists; the rest are counted. */
export const MAX_FOOTER_ENTRIES = 10;

/** Tracks failed file mutations across one turn. */
export class MutationTracker {
  readonly #failed = new Map<string, string>();

  /** Records the outcome of a write or patch on `path`. A success clears an earlier failure. */
  record(path: string, ok: boolean, error = ""): void {
    this.#failed.delete(path);
    if (!ok) this.#failed.set(path, error);
  }

  /** Failed paths still unresolved, in the order of their last failure. */
  failures(): { path: string; error: string }[] {
    return [...this.#failed].map(([path, error]) => ({ path, error }));
  }

  /** The footer text, or "" when every mutation ended well. */
  footer(): string {
    const failures = this.failures();
    if (failures.length === 0) return "";
    const shown = failures.slice(0, MAX_FOOTER_ENTRIES).map(({ path, error }) =>
      `- ${path}${error ? `: ${error.split("\n")[0]}` : ""}`
    );
    const hidden = failures.length - shown.length;
    return "\n\n" + [
      "---",
      `Note: ${failures.length} file change${
        failures.length === 1 ? "" : "s"
      } failed in this turn and ${failures.length === 1 ? "was" : "were"} not redone successfully:`,
      ...shown,
      ...(hidden > 0 ? [`- ... and ${hidden} more`] : []),
    ].join("\n");
  }
}

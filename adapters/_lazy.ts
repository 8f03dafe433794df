/**
 * Loading a heavy package only when it is first used. The specifier goes
 * through a variable because Deno pre-loads (downloads, parses, holds) the
 * graph behind every literal `import("...")` at start-up, even one that never
 * runs; that cost a third of `herald --version`'s start-up and about 10 MB of
 * the idle dashboard. `deno compile` must be given such packages explicitly.
 *
 * @module
 */

/**
 * Imports a bare package specifier (resolved through deno.json's import map) at run time.
 *
 * @example
 * ```ts
 * const { default: OpenAI } = await importLazily<typeof import("openai")>("openai");
 * ```
 */
export function importLazily<T>(specifier: string): Promise<T> {
  return import(specifier);
}

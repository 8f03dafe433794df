/**
 * Loading data for a page: `useAsync(load, deps)` runs `load` when a
 * dependency changes (the profile among them, by the page's choice), drops
 * answers that arrive after a newer load started, and gives a `reload`.
 *
 * When the dependencies change, the data of the old ones is dropped at
 * once (`data` is undefined until the new answer), so a page never shows
 * the previous profile's data, and a view keyed on the data mounts afresh
 * with the new answer. A `reload()`, or a change of the `refresh` values,
 * loads again and keeps the data on screen meanwhile.
 */

import { useCallback, useEffect, useRef, useState } from "preact/hooks";

/** The state of one load. */
export interface AsyncState<T> {
  data: T | undefined;
  error: unknown;
  loading: boolean;
  reload: () => void;
}

/**
 * Runs `load` now and whenever `deps` or `refresh` change. New `deps` drop
 * the data at once; new `refresh` values (say, a version that counts
 * changes) load again over the data on screen.
 *
 * @example
 * ```tsx
 * const profile = useProfile();
 * const { data, error, reload } = useAsync(
 *   (signal) => api<Skills>("GET", "/api/skills", { signal }),
 *   [profile],
 * );
 * ```
 */
export function useAsync<T>(
  load: (signal: AbortSignal) => Promise<T>,
  deps: unknown[],
  refresh: unknown[] = [],
): AsyncState<T> {
  const [state, setState] = useState<{ data?: T; error?: unknown; loading: boolean }>({
    loading: true,
  });
  const generation = useRef(0);
  const [tick, setTick] = useState(0);
  const reload = useCallback(() => setTick((n) => n + 1), []);
  // The deps of the data on screen: a change of them (not a reload) drops that data.
  const shownDeps = useRef(deps);
  const changed = !sameDeps(shownDeps.current, deps);
  useEffect(() => {
    const mine = ++generation.current;
    const controller = new AbortController();
    const fresh = !sameDeps(shownDeps.current, deps);
    shownDeps.current = deps;
    setState((previous) =>
      fresh ? { loading: true } : { ...previous, loading: true, error: undefined }
    );
    load(controller.signal).then(
      (data) => mine === generation.current && setState({ data, loading: false }),
      (error) => {
        if (mine !== generation.current || (error as Error)?.name === "AbortError") return;
        setState({ error, loading: false });
      },
    );
    return () => controller.abort();
  }, [...deps, ...refresh, tick]);
  // The render that sees new deps already shows no old data (the effect runs after it).
  if (changed) return { data: undefined, error: undefined, loading: true, reload };
  return { data: state.data, error: state.error, loading: state.loading, reload };
}

function sameDeps(a: readonly unknown[], b: readonly unknown[]): boolean {
  return a.length === b.length && a.every((value, index) => Object.is(value, b[index]));
}

/**
 * Loading data for a page: `useAsync(load, deps)` runs `load` when a
 * dependency changes (the profile among them, by the page's choice), drops
 * answers that arrive after a newer load started, and gives a `reload`.
 */

import { useCallback, useEffect, useRef, useState } from "preact/hooks";

/** The state of one load. */
export interface AsyncState<T> {
  data: T | undefined;
  error: unknown;
  loading: boolean;
  reload: () => void;
}

/** Runs `load` now and whenever `deps` change. */
export function useAsync<T>(
  load: (signal: AbortSignal) => Promise<T>,
  deps: unknown[],
): AsyncState<T> {
  const [state, setState] = useState<{ data?: T; error?: unknown; loading: boolean }>({
    loading: true,
  });
  const generation = useRef(0);
  const [tick, setTick] = useState(0);
  const reload = useCallback(() => setTick((n) => n + 1), []);
  useEffect(() => {
    const mine = ++generation.current;
    const controller = new AbortController();
    setState((previous) => ({ ...previous, loading: true, error: undefined }));
    load(controller.signal).then(
      (data) => mine === generation.current && setState({ data, loading: false }),
      (error) => {
        if (mine !== generation.current || (error as Error)?.name === "AbortError") return;
        setState({ error, loading: false });
      },
    );
    return () => controller.abort();
  }, [...deps, tick]);
  return { data: state.data, error: state.error, loading: state.loading, reload };
}

/**
 * Pages that load on demand: each page's code is its own chunk, fetched the
 * first time the page opens, so the first load parses only the shell and
 * the page it shows. A page whose chunk is slow shows "Loading…" after a
 * moment; one whose chunk cannot be fetched (the dashboard was updated
 * while the tab stayed open, so the old file names are gone) says so and
 * offers to reload.
 */

import type { ComponentType } from "preact";
import { useEffect, useState } from "preact/hooks";
import { Button } from "./ui.tsx";

/** How long a page may take to load before "Loading…" shows, in ms. */
const QUIET_MS = 150;

/**
 * Wraps `load` (a dynamic `import()` of the page's module, picking its
 * component) as a component that fetches the code on first render and
 * then renders the page with the same props. A failed fetch is tried
 * again the next time the page opens.
 */
export function lazyPage<P extends object>(
  load: () => Promise<ComponentType<P>>,
): ComponentType<P> {
  let loaded: ComponentType<P> | null = null;
  let loading: Promise<ComponentType<P>> | null = null;
  const fetchPage = () => {
    loading ??= load().then(
      (page) => (loaded = page),
      (error) => {
        loading = null;
        throw error;
      },
    );
    return loading;
  };
  function Lazy(props: P) {
    const [page, setPage] = useState<ComponentType<P> | null>(() => loaded);
    const [failed, setFailed] = useState(false);
    const [slow, setSlow] = useState(false);
    useEffect(() => {
      if (page) return;
      let live = true;
      const timer = setTimeout(() => live && setSlow(true), QUIET_MS);
      fetchPage().then(
        (next) => live && setPage(() => next),
        () => live && setFailed(true),
      );
      return () => {
        live = false;
        clearTimeout(timer);
      };
    }, [page]);
    if (page) {
      const Page = page;
      return <Page {...props} />;
    }
    if (failed) {
      return (
        <section class="page">
          <div class="note note-error" role="alert">
            <span>
              This page could not be loaded. The dashboard may have been updated since this tab
              opened: reload the page.
            </span>
            <Button variant="ghost" onClick={() => location.reload()}>Reload</Button>
          </div>
        </section>
      );
    }
    return slow ? <section class="page muted" aria-busy="true">Loading…</section> : null;
  }
  return Lazy;
}

/**
 * The Sessions page: `/sessions` lists the profile's stored sessions and
 * searches their messages; `/sessions/<id>` opens one (`?around=<message
 * id>` scrolled to that message) to read, rename, export or delete.
 */

import { useRoute } from "../lib/router.ts";
import { SessionIndex } from "./sessions/index_view.tsx";
import { SessionDetail } from "./sessions/detail.tsx";
import "./sessions.css";

/** The Sessions page for the current path. */
export function SessionsPage() {
  const route = useRoute();
  const id = route.segments[1];
  if (id) {
    const around = Number(route.query.get("around"));
    return (
      <SessionDetail
        key={id}
        id={id}
        around={Number.isSafeInteger(around) && around > 0 ? around : undefined}
      />
    );
  }
  return <SessionIndex query={route.query.get("q")?.trim() ?? ""} />;
}
